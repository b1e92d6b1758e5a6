"""The benchmarks' timer (tools/bench.py, bench_floor.py, bench_gpu.py)."""
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
