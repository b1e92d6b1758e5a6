"""The benchmarks' timers (tools/bench.py, bench_compile.py, bench_floor.py, bench_gpu.py)."""
import time


def best_time(fn, iterations, repeats, sync=None, clock=time.perf_counter):
    """Seconds per iteration: the best of ``repeats`` runs of ``iterations`` calls.

    ``sync`` (e.g. a device synchronize) runs after the warm-up call and after each run's
    calls, inside its timing, so asynchronous work is counted."""
    fn()
    if sync:
        sync()
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        for _ in range(iterations):
            fn()
        if sync:
            sync()
        best = min(best, (clock() - start) / iterations)
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


def add_options(parser):
    """The timing options of bench.py and bench_compile.py."""
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--repeats", type=int, default=7,
                        help="interleaved rounds; each time is the best round's (default 7)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this thread's CPU time, not the wall clock (steadier "
                             "on a loaded machine; PyTorch runs on one thread here)")


def rounds_and_clock(options):
    """(rounds, clock) that ``add_options``' options ask for."""
    return (3 if options.quick else options.repeats,
            time.thread_time if options.cpu_time else time.perf_counter)
