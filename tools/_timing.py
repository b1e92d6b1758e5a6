"""The benchmarks' timers (tools/bench.py, bench_compile.py, bench_floor.py, bench_gpu.py)."""
import random
import statistics
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


def paired(steps, iterations, rounds, clock=time.perf_counter, seed=0):
    """{name: [seconds per iteration, one per round]}: each round times every step once, in
    a fresh random order, so a load spike or a slow drift hits the steps alike and a
    round's times are a paired sample (paired_ratio)."""
    order, shuffle = list(steps), random.Random(seed).shuffle
    for step in steps.values():
        step()
    samples = {name: [] for name in steps}
    for _ in range(rounds):
        shuffle(order)
        for name in order:
            step = steps[name]
            start = clock()
            for _ in range(iterations):
                step()
            samples[name].append((clock() - start) / iterations)
    return samples


def paired_ratio(samples, name, base, draws=2000, seed=0):
    """(median, low, high): the median over the rounds of ``name``'s time over ``base``'s,
    and a 95% bootstrap interval of that median."""
    ratios = [ours / theirs for ours, theirs in zip(samples[name], samples[base])]
    pick = random.Random(seed).choices
    medians = sorted(statistics.median(pick(ratios, k=len(ratios))) for _ in range(draws))
    return statistics.median(ratios), medians[draws // 40], medians[draws - 1 - draws // 40]


def paired_verdict(interval, target):
    """A target checked on a paired interval: met only when all of it is within."""
    median, low, high = interval
    state = "ok" if high <= target else "MISSED" if low > target else "undecided"
    return f"{median:.3f}x [{low:.3f}, {high:.3f}] <= {target}x: {state}"


def add_options(parser):
    """The timing options of bench.py and bench_compile.py."""
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--repeats", type=int, default=7,
                        help="interleaved rounds; each time is the best round's (default 7)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this thread's CPU time, not the wall clock (steadier "
                             "on a loaded machine; PyTorch runs on one thread here)")
    parser.add_argument("--paired", type=int, metavar="ROUNDS",
                        help="also time ROUNDS rounds in random order and give each target "
                             "ratio as the median of the rounds' ratios with its 95%% "
                             "interval: met only when the whole interval is (e.g. 101)")


def rounds_and_clock(options):
    """(rounds, clock) that ``add_options``' options ask for."""
    return (3 if options.quick else options.repeats,
            time.thread_time if options.cpu_time else time.perf_counter)
