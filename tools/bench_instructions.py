"""Instructions per step of tools/bench.py's eager ``chain`` and ``simple`` workloads,
and of the ``mlp-loop`` workload's parameter update (``update``: ``p -= 0.01 * p.grad;
p.grad = None`` under no_grad for six 4x4 parameters, its per-op overhead alone).

    python tools/bench_instructions.py [--steps 10]
    python tools/bench_instructions.py --mlp [--nn] [--tiny] [--steps 3]
    python tools/bench_instructions.py --compiled [--steps 10]

``--mlp`` counts bench.py's full-size MLP step instead (784-256-256-10, batch 128, with
``optim.SGD``): eager, compiled and the hand-written numpy step, one BLAS thread.  Most of
the step is BLAS, whose time depends on the caches as much as on its instructions, so the
count shows what minigrad adds around the same arrays' work, not the time ratio.
``--nn``: the step written with nn.Linear, nn.ReLU and F.cross_entropy (bench.mlp_nn)
in place of the raw ops; ``--tiny``: layers 4-4-4-10 and batch 2, where the count is
almost all per-op overhead.  Without ``--nn`` the step also runs on bench_floor.py's bare
tape (no semantics; ``itertools.starmap``'s counter): a Python tape's least work.
``--compiled`` counts tools/bench_compile.py's compiled ``simple`` and ``chain`` steps
(``minigrad.compile``: the generated code and the runtime around it), whose time targets
(0.3x and 0.2x eager PyTorch) are the ones nearest their limits.

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

# One BLAS thread (as bench.py): callgrind counts every thread's instructions, spinning too.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

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


def child(steps, mlp=False, nn=False, tiny=False, compiled=False):
    """Runs under callgrind: the counted steps, each workload's inside its own counter."""
    sys.modules["torch"] = None  # bench.py then skips it: importing it under valgrind takes minutes
    import bench
    if compiled:
        import bench_compile as bc
        import minigrad as mg
        workloads = {itertools.takewhile: (bc._steps(mg, bc._simple, bc.simple_inputs,
                                                     "minigrad"), None),
                     itertools.dropwhile: (bc._steps(mg, bc._chain, bc.chain_inputs,
                                                     "minigrad"), None)}
    elif mlp:
        import minigrad as mg
        if tiny:
            bench.MLP_SIZES, bench.MLP_BATCH = (4, 4, 4, 10), 2
        make = bench.mlp_nn if nn else bench.mlp_minigrad
        workloads = {itertools.takewhile: (make(), None),
                     itertools.dropwhile: (make(compile=mg.compile), None),
                     itertools.filterfalse: (bench.mlp_numpy(), None)}
        if not nn:
            import bench_floor
            workloads[itertools.starmap] = (bench.mlp_minigrad(bench_floor.BareLib), None)
    else:
        update, set_grads = update_minigrad()
        workloads = {itertools.takewhile: (bench.chain_minigrad(), None),
                     itertools.dropwhile: (bench.simple_minigrad(), None),
                     itertools.filterfalse: (update, set_grads)}
    # Warm-up, not counted.  CPython 3.11 specializes a function's bytecode from its 8th
    # call on: the compiled steps, a few Python calls each, are counted once they run it
    # (the eager workloads keep the 3 warm-up steps their published counts had).
    warm_up = 10 if compiled else 3
    for step, prepare in workloads.values():
        for _ in range(warm_up):
            if prepare:
                prepare()
            step()
    gc.collect()
    for counter, (step, prepare) in workloads.items():
        def one(_, step=step):
            step()
            return True  # (takewhile and dropwhile call it again only after a True)
        calls = [(0,)] if counter is itertools.starmap else range(1)   # (one call of one)
        for _ in range(steps):
            if prepare:
                prepare()
            list(counter(one, calls))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None,
                        help="counted steps per workload (default 10; 3 with --mlp)")
    parser.add_argument("--mlp", action="store_true",
                        help="the full-size MLP step: eager, compiled and numpy")
    parser.add_argument("--nn", action="store_true",
                        help="with --mlp: the step written with nn.Linear and F.cross_entropy")
    parser.add_argument("--tiny", action="store_true",
                        help="with --mlp: layers 4-4-4-10, batch 2 (the overhead alone)")
    parser.add_argument("--compiled", action="store_true",
                        help="bench_compile.py's compiled simple and chain steps")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    steps = options.steps or (3 if options.mlp and not options.tiny else 10)
    if options.child:
        return child(steps, options.mlp, options.nn, options.tiny, options.compiled)
    flags = [f"--{name}" for name in ("mlp", "nn", "tiny", "compiled")
             if getattr(options, name)]
    counts = count_instructions(__file__, ["--child", "--steps", str(steps)] + flags)
    names = (("mlp eager", "mlp compiled", "mlp numpy", "mlp bare tape") if options.mlp
             else ("compiled simple", "compiled chain") if options.compiled
             else ("chain", "simple", "update"))
    for name, counter in zip(names, ("takewhile_next", "dropwhile_next", "filterfalse_next",
                                     "starmap_next")):
        if counts[counter]:
            print(f"{name:15s} {counts[counter] / steps:12,.0f} instructions per step")
    if options.mlp:
        numpy_count = counts["filterfalse_next"]
        print(f"eager / numpy {counts['takewhile_next'] / numpy_count:.4f}, "
              f"compiled / numpy {counts['dropwhile_next'] / numpy_count:.4f}"
              + (f", bare tape / numpy {counts['starmap_next'] / numpy_count:.4f}"
                 if counts["starmap_next"] else ""))


if __name__ == "__main__":
    main()
