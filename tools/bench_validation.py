"""What the engine's check of generated nodes' gradients costs (issue 11).

    python tools/bench_validation.py [--rounds 41] [--iterations 20]
    python tools/bench_validation.py --instructions     # the same ratio by valgrind's count


Runs tools/bench.py's chain workload (a 200-op elementwise chain, forward and
backward) with the check on and off, in interleaved rounds of the same process, in CPU time
(the order alternates each round), and reports the median time of each and their
ratio.  "Off" removes both halves of the check: the engine's comparison
(``minigrad.autograd.engine.check_generated``), the recording of each output's
dtype in ``minigrad._tensor._init`` (replaced, for the "off" rounds only, by the same
function without those lines) and the recording of input shapes by the forwards of
nodes whose formulas' shapes are not certain (``support.record_shapes``, made a no-op;
codegen/exactness.py).  Target: on/off below 1.03.

On a shared machine the timed ratio moves by several percent from run to run;
``--instructions`` runs the chain under ``valgrind --tool=callgrind`` instead (instructions
executed, the same whatever the neighbours do): N and 2N iterations with the check on and
off, each in its own process, so that start-up and warm-up cancel out.  The count still
moves by a few percent between runs (object addresses decide dict probes): repeat it.
"""
import argparse
import gc
import inspect
import os
import re
import shutil
import subprocess
import statistics
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (tools/bench.py: the chain workload itself)
from minigrad import _tensor  # noqa: E402
from minigrad._generated import functions  # noqa: E402
from minigrad.autograd import support  # noqa: E402
from minigrad.autograd import engine  # noqa: E402

TARGET = 1.03
RECORDING = """    if grad_fn is not None:
        # What this output looks like, for the engine's check of the gradients flowing
        # into it (PyTorch's InputMetadata), never the array.  Output 0: the dtype; its
        # shape only where a consumer's formula needs checking (support.record_shapes).
        if output_nr == 0:
            grad_fn._output_dtype = array.dtype
        else:
            _record_output(grad_fn, output_nr, array)
"""


def init_without_recording():
    """``_tensor._init`` minus the recording lines (fails loudly if they changed)."""
    source = inspect.getsource(_tensor._init)
    if RECORDING not in source:
        raise SystemExit("minigrad._tensor._init changed: update RECORDING in this script")
    namespace = {}
    exec(textwrap.dedent(source.replace(RECORDING, "")), vars(_tensor), namespace)
    return namespace["_init"]


def _no_record(*values):
    """``support.record_shapes`` for the "off" rounds."""


def switch(on, original_init, bare_init):
    engine.check_generated = on
    _tensor._init = original_init if on else bare_init
    # (the chain's ops have certain shapes and never call it; other workloads would)
    functions.record_shapes = support.record_shapes if on else _no_record


def time_once(step, iterations):
    # CPU time of this process: the machines here are shared, and wall time mostly
    # measures the neighbours
    start = time.process_time()
    for _ in range(iterations):
        step()
    return (time.process_time() - start) / iterations


def instructions(on, iterations):
    """Instructions valgrind counts for a process that runs ``iterations`` chain steps."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               sys.executable, os.path.abspath(__file__), "--child", "on" if on else "off",
               "--iterations", str(iterations)]
    # one hash seed for all four processes: string hashing decides dict layouts and costs
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def by_instructions(iterations):
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt install valgrind)")
    runs = [(on, n) for on in (True, False) for n in (iterations, 2 * iterations)]
    with ThreadPoolExecutor(2) as pool:  # valgrind runs one thread: two at a time
        counts = dict(zip(runs, pool.map(lambda run: instructions(*run), runs)))
    per_step = {on: (counts[on, 2 * iterations] - counts[on, iterations]) / iterations
                for on in (True, False)}
    ratio = per_step[True] / per_step[False]
    print(f"chain workload ({bench.CHAIN_OPS} ops, forward + backward), instructions per step "
          f"(valgrind, {iterations} and {2 * iterations} steps)")
    print(f"  check on  {per_step[True]:12,.0f}")
    print(f"  check off {per_step[False]:12,.0f}")
    print(f"  on/off    {ratio:12.3f}   target < {TARGET}: {'ok' if ratio < TARGET else 'MISSED'}")


def child(on, iterations):
    """One process of --instructions: the chain ``iterations`` times, after a warm-up."""
    original, bare = _tensor._init, init_without_recording()
    switch(on, original, bare)
    step = bench.chain_minigrad()
    for _ in range(3):
        step()
    gc.collect()
    gc.disable()  # a collection falls in one run and not the other: noise, not the check
    for _ in range(iterations):
        step()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under valgrind instead of timing")
    parser.add_argument("--child", choices=["on", "off"], help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return child(options.child == "on", options.iterations)
    if options.instructions:
        return by_instructions(options.iterations)
    original, bare = _tensor._init, init_without_recording()
    step = bench.chain_minigrad()
    times = {True: [], False: []}
    try:
        for on in (True, False):  # warm up both
            switch(on, original, bare)
            time_once(step, options.iterations)
        for r in range(options.rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                switch(on, original, bare)
                times[on].append(time_once(step, options.iterations))
    finally:
        switch(True, original, bare)
    on, off = statistics.median(times[True]), statistics.median(times[False])
    ratio = on / off
    print(f"chain workload ({bench.CHAIN_OPS} ops, forward + backward), median of "
          f"{options.rounds} interleaved rounds x {options.iterations} iterations")
    print(f"  check on  {on * 1e6:9.1f} us")
    print(f"  check off {off * 1e6:9.1f} us")
    print(f"  on/off    {ratio:9.3f}   target < {TARGET}: {'ok' if ratio < TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
