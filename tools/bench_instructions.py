"""Instructions per step of tools/bench.py's eager ``chain`` and ``simple`` workloads.

    python tools/bench_instructions.py [--steps 10]

Timings on the shared machines here move by 10-20% from run to run (PyTorch's own
chain time alone ranges over a third), so per-op work is compared by instruction
count: ``valgrind --tool=callgrind`` runs one process and counts only inside the
steps (``--toggle-collect`` on ``itertools.takewhile`` for the chain, ``dropwhile``
for the simple workload), with the garbage collector as in a real run.  The count is
the same whatever the neighbours do; it moves by well under 1% between runs.
"""
import argparse
import gc
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _callgrind import count_instructions  # noqa: E402


def child(steps):
    """Runs under callgrind: the counted steps, each workload's inside its own counter."""
    sys.modules["torch"] = None  # bench.py then skips it: importing it under valgrind takes minutes
    import bench
    workloads = {itertools.takewhile: bench.chain_minigrad(),
                 itertools.dropwhile: bench.simple_minigrad()}
    for step in workloads.values():  # warm-up, not counted
        for _ in range(3):
            step()
    gc.collect()
    for counter, step in workloads.items():
        def one(_, step=step):
            step()
            return True  # both counters go on while it says True
        list(counter(one, range(steps)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return child(options.steps)
    counts = count_instructions(__file__, ["--child", "--steps", str(options.steps)])
    for name, counter in (("chain", "takewhile_next"), ("simple", "dropwhile_next")):
        print(f"{name:8s} {counts[counter] / options.steps:12,.0f} instructions per step")


if __name__ == "__main__":
    main()
