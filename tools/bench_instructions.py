"""Instructions per step of tools/bench.py's eager ``chain`` and ``simple`` workloads,
and of the ``mlp-loop`` workload's parameter update (``update``: ``p -= 0.01 * p.grad;
p.grad = None`` under no_grad for six 4x4 parameters, its per-op overhead alone).

    python tools/bench_instructions.py [--steps 10]

Timings on the shared machines here move by 10-20% from run to run (PyTorch's own
chain time alone ranges over a third), so per-op work is compared by instruction
count: ``valgrind --tool=callgrind`` runs one process and counts only inside the
steps (``--toggle-collect`` on ``itertools.takewhile`` for the chain, ``dropwhile``
for the simple workload, ``filterfalse`` for the update), with the garbage collector
as in a real run.  The count is the same whatever the neighbours do; it moves by well
under 1% between runs.
"""
import argparse
import gc
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _callgrind import count_instructions  # noqa: E402


def update_minigrad():
    """The update of bench.py's mlp-loop, on parameters small enough that numpy's work is
    negligible: the gradients are set again before each step, outside the count."""
    import minigrad as mg
    params = [mg.tensor(np.random.rand(4, 4), requires_grad=True) for _ in range(6)]

    def step():
        with mg.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None

    def set_grads():
        for p in params:
            p.grad = mg.tensor(np.random.rand(4, 4))
    return step, set_grads


def child(steps):
    """Runs under callgrind: the counted steps, each workload's inside its own counter."""
    sys.modules["torch"] = None  # bench.py then skips it: importing it under valgrind takes minutes
    import bench
    update, set_grads = update_minigrad()
    workloads = {itertools.takewhile: (bench.chain_minigrad(), None),
                 itertools.dropwhile: (bench.simple_minigrad(), None),
                 itertools.filterfalse: (update, set_grads)}
    for step, prepare in workloads.values():  # warm-up, not counted
        for _ in range(3):
            if prepare:
                prepare()
            step()
    gc.collect()
    for counter, (step, prepare) in workloads.items():
        def one(_, step=step):
            step()
            return True  # (takewhile and dropwhile call it again only after a True)
        for _ in range(steps):
            if prepare:
                prepare()
            list(counter(one, range(1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return child(options.steps)
    counts = count_instructions(__file__, ["--child", "--steps", str(options.steps)])
    for name, counter in (("chain", "takewhile_next"), ("simple", "dropwhile_next"),
                          ("update", "filterfalse_next")):
        print(f"{name:8s} {counts[counter] / options.steps:12,.0f} instructions per step")


if __name__ == "__main__":
    main()
