"""What the engine's check of generated nodes' gradients costs (issue 11).

    python tools/bench_validation.py [--rounds 41] [--iterations 20]
    python tools/bench_validation.py --instructions [--rounds 6] [--iterations 4]

Runs tools/bench.py's chain workload (a 200-op elementwise chain, forward and
backward) with the check on and off, in interleaved rounds of one process (the order
alternates each round), and reports the median of each and their ratio.  Target:
on/off below 1.03.

"Off" removes every part of the check, each by running the same function without
those lines (its code swapped in for the "off" rounds, so every reference to it
follows; the "on" rounds run the unchanged source compiled again the same way, since
freshly compiled code objects ran fewer instructions than the imported ones):
- the engine's comparison (``minigrad.autograd.engine.check_generated``);
- the recording of each output's dtype on its node, by the generated forwards (the
  ``out_dtype = out.dtype`` lines of ``minigrad._generated.functions``) and by
  ``minigrad._tensor._init`` for other outputs;
- the forwards' own test, in nodes whose gradients' dtypes are certain for float32 and
  float64, that the output and inputs share such a dtype (support.check_every_gradient);
- the recording of input shapes by the forwards of nodes whose formulas' shapes are
  not certain (``support.record_shapes``, made a no-op; codegen/exactness.py).

By default it measures CPU time, which on a shared machine moves the ratio by several
percent from run to run.  ``--instructions`` counts instructions instead, under
``valgrind --tool=callgrind``, the same whatever the neighbours do: the "on" rounds
run inside ``itertools.takewhile`` and the "off" rounds inside ``itertools.dropwhile``,
and callgrind collects only inside those two (``--toggle-collect``), so start-up,
imports and warm-up are not counted and both halves share one process and its memory.
"""
import argparse
import gc
import inspect
import itertools
import os
import re
import statistics
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (tools/bench.py: the chain workload itself)
from _callgrind import count_instructions  # noqa: E402
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
# In the generated forwards: the recording of the output's dtype, and the test of the
# dtypes of nodes whose gradients' dtypes are certain for float32 and float64
FORWARD_CHECK = re.compile(r"\n    (node\._output_dtype = )?out_dtype = out\.dtype[^\n]*(?=\n)"
                           r"|\n    if [^\n]*:  # \(support\.check_every_gradient\)\n"
                           r"        check_every_gradient\(node\)(?=\n)")


def code_without(fn, remove):
    """The code of ``fn`` with the text ``remove`` finds taken out (SystemExit if none)."""
    source = textwrap.dedent(inspect.getsource(fn))
    bare = remove(source)
    if bare == source:
        raise SystemExit(f"{fn.__module__}.{fn.__name__} changed: update this script")
    return _compiled(fn, bare)


def fresh_code(fn):
    """The code of ``fn`` compiled again from its source, as code_without's is: the "on"
    rounds run it, so both halves run code objects made the same way.  (The imported ones
    ran ~1.5% more instructions on the chain than the same source compiled again,
    2026-11-27: the check's cost would include that.)"""
    return _compiled(fn, textwrap.dedent(inspect.getsource(fn)))


def _compiled(fn, source):
    namespace = {}
    exec(compile(source, inspect.getsourcefile(fn), "exec"), fn.__globals__, namespace)
    return namespace[fn.__name__].__code__


def _no_record(*values):
    """``support.record_shapes`` for the "off" rounds."""


class Switch:
    """Turns every part of the check on or off (see the module's docstring)."""

    def __init__(self):
        self.codes = {_tensor._init: (fresh_code(_tensor._init),
                                      code_without(_tensor._init, lambda s: s.replace(RECORDING, "")))}
        for fn in vars(functions).values():
            if inspect.isfunction(fn) and fn.__module__ == functions.__name__:
                source = inspect.getsource(fn)
                if FORWARD_CHECK.search(source):
                    self.codes[fn] = (fresh_code(fn),
                                      code_without(fn, lambda s: FORWARD_CHECK.sub("", s)))
        if len(self.codes) < 2:
            raise SystemExit("no forward records its output's dtype: update this script")

    def __call__(self, on):
        engine.check_generated = on
        for fn, (with_check, without) in self.codes.items():
            fn.__code__ = with_check if on else without
        # (the chain's ops have certain shapes and never call it; other workloads would)
        functions.record_shapes = support.record_shapes if on else _no_record


def time_once(step, iterations):
    # CPU time of this process: the machines here are shared, and wall time mostly
    # measures the neighbours
    start = time.process_time()
    for _ in range(iterations):
        step()
    return (time.process_time() - start) / iterations


def report(what, on, off):
    ratio = on / off
    print(f"chain workload ({bench.CHAIN_OPS} ops, forward + backward), {what}")
    print(f"  check on  {on:14,.1f}")
    print(f"  check off {off:14,.1f}")
    print(f"  on/off    {ratio:14.3f}   target < {TARGET}: {'ok' if ratio < TARGET else 'MISSED'}")


def by_time(switch, rounds, iterations):
    step = bench.chain_minigrad()
    times = {True: [], False: []}
    try:
        for on in (True, False):  # warm up both
            switch(on)
            time_once(step, iterations)
        for r in range(rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                switch(on)
                times[on].append(time_once(step, iterations))
    finally:
        switch(True)
    report(f"us per step, median of {rounds} interleaved rounds x {iterations} iterations",
           statistics.median(times[True]) * 1e6, statistics.median(times[False]) * 1e6)


def counted_rounds(switch, rounds, iterations):
    """The child of --instructions: callgrind counts what runs inside takewhile (on) and
    dropwhile (off)."""
    step = bench.chain_minigrad()

    def run(on):
        def one(_):
            step()
            return True  # both go on calling it while it says True
        switch(on)
        list((itertools.takewhile if on else itertools.dropwhile)(one, range(iterations)))

    for on in (True, False, True, False):  # warm-up, not counted
        switch(on)
        step()
    gc.collect()
    gc.disable()  # a collection falls in one round and not the other: noise, not the check
    for r in range(rounds):
        for on in ((True, False) if r % 2 == 0 else (False, True)):
            run(on)
    switch(True)


def by_instructions(rounds, iterations):
    counts = count_instructions(__file__, ["--child", "--rounds", str(rounds),
                                           "--iterations", str(iterations)])
    steps = rounds * iterations
    report(f"instructions per step (callgrind, {rounds} interleaved rounds x {iterations} steps)",
           counts["takewhile_next"] / steps, counts["dropwhile_next"] / steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under valgrind instead of timing")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return counted_rounds(Switch(), options.rounds, options.iterations)
    if options.instructions:
        return by_instructions(options.rounds or 6, options.iterations or 4)
    by_time(Switch(), options.rounds or 41, options.iterations or 20)


if __name__ == "__main__":
    main()
