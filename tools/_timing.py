"""The benchmarks' timers (tools/bench.py, bench_compile.py, bench_floor.py, bench_gpu.py)."""
import time


def best_time(fn, iterations, repeats, sync=None):
    """Seconds per iteration: the best of ``repeats`` runs of ``iterations`` calls.

    ``sync`` (e.g. a device synchronize) runs after the warm-up call and after each run's
    calls, inside its timing, so asynchronous work is counted."""
    fn()
    if sync:
        sync()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        if sync:
            sync()
        best = min(best, (time.perf_counter() - start) / iterations)
    return best


def interleaved(steps, iterations, repeats, clock=time.perf_counter):
    """{name: seconds per iteration}: the best of ``repeats`` rounds, every step timed in
    each round, so a load spike on this shared machine hits all of them alike."""
    for step in steps.values():
        step()
    best = {name: float("inf") for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            start = clock()
            for _ in range(iterations):
                step()
            best[name] = min(best[name], (clock() - start) / iterations)
    return best
