"""python -m minigrad.compile_explain [--source] script.py [args ...]

Run a script, then print what ``minigrad.compile`` did with each compiled function it
called: the guards it compiled for, the graph breaks (with the line that caused each),
and with ``--source`` the generated forward and backward code.

    $ python -m minigrad.compile_explain train.py
    <minigrad.compile of 'loss_fn'>: 1 guard(s)
      guard: grad mode on, args (Tensor[128, 784] float32, Tensor[128, 1] int64)
        compiled: 9 ops, 8 inputs (6 captured from outside)
"""
import argparse
import runpy
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minigrad.compile_explain",
                                     description=__doc__.splitlines()[2])
    parser.add_argument("--source", action="store_true",
                        help="also print the generated forward and backward")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    options = parser.parse_args(argv)
    from minigrad.compile import _created  # only the command needs the compiled-function registry
    before = len(_created)
    sys.argv = [options.script] + options.args
    try:
        runpy.run_path(options.script, run_name="__main__")
    finally:
        print(report(_created[before:], options.source))
    return 0


def report(compiled, with_source=False):
    """The text ``compile_explain`` prints for these CompiledFunctions."""
    used = [c for c in compiled if c._cache]
    if not used:
        return "minigrad.compile_explain: no compiled function was called"
    breaks = sum(len(getattr(e, "breaks", ())) for c in used for es in c._cache.values()
                 for e in es)
    lines = [f"minigrad.compile_explain: {len(used)} compiled function(s), {breaks} graph break(s)"]
    for c in used:
        lines.append(c.explain())
        if with_source:
            lines.append(c.source())
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
