"""python -m codegen [--check] [--allow-removal] [--root DIR] [--yaml PATH]

Regenerate minigrad/_generated/ and tests/generated/ from derivatives.yaml.
With --check, write nothing and exit 1 naming each file that is not current.
An op that the generated files have and the YAML lost is an error (nothing is
written) unless --allow-removal says the removal is meant.
"""
import argparse
import os
import sys

from codegen.emit import generated_ops, render_all, render_readme, stale_files, write_if_changed
from codegen.forward import forward_report
from codegen.errors import SpecError
from codegen.load import load_registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_root():
    """The current directory when it holds derivatives.yaml, else this checkout."""
    return os.getcwd() if os.path.exists("derivatives.yaml") else ROOT


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__.splitlines()[2])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if any generated file is stale; write nothing")
    parser.add_argument("--allow-removal", action="store_true",
                        help="allow dropping ops that the current generated files have")
    parser.add_argument("--root", default=default_root(),
                        help="repository root: minigrad/ and the output folders (default: here)")
    parser.add_argument("--yaml", default=None,
                        help="the registry to read (default: ROOT/derivatives.yaml)")
    options = parser.parse_args(argv)
    try:
        registry = load_registry(options.yaml or os.path.join(options.root, "derivatives.yaml"),
                                 options.root)
        _check_removal(registry, options.root, options.allow_removal)
        files = render_all(registry)
        files.update(render_readme(registry, options.root))
    except SpecError as exc:
        message = str(exc) if str(exc).endswith((".", "?")) else f"{exc}."
        print(f"error: {message} Nothing was written.", file=sys.stderr)  # one line, no traceback
        return 2
    if options.check:
        stale = stale_files(files, options.root)
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        if stale:
            print("Generated files are out of date: run `python -m codegen` and commit.",
                  file=sys.stderr)
            return 1
        print(f"{len(files)} generated files are current ({len(registry.ops)} ops).")
        return 0
    written = write_if_changed(files, options.root)
    print(f"{len(registry.ops)} ops; wrote {len(written)} of {len(files)} files"
          + ("".join(f"\n  {p}" for p in written)))
    for line in forward_report(registry, options.root):
        print(line)
    return 0


def _check_removal(registry, root, allowed):
    """Refuse to drop ops silently: an emptied or truncated YAML would wipe the library."""
    have = generated_ops(root)
    kept = {op.full_name for op in registry.ops}
    if not registry.ops and not have:
        raise SpecError(f"{registry.path}:1: the file has no entries; an entry starts with "
                        "`- name: op(Tensor self) -> Tensor`.")
    lost = [name for name in have if name not in kept]
    if lost and not allowed:
        shown = ", ".join(lost[:10]) + (f" and {len(lost) - 10} more" if len(lost) > 10 else "")
        raise SpecError(f"{registry.path}: would remove {len(lost)} op(s) that "
                        f"minigrad/_generated has: {shown}. Restore their entries, or pass "
                        "--allow-removal if removing them is meant.")


if __name__ == "__main__":
    sys.exit(main())
