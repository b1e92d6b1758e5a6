"""python -m codegen [--check] [--yaml PATH]

Regenerate minigrad/_generated/ and tests/generated/ from derivatives.yaml.
With --check, write nothing and exit 1 naming each file that is not current.
"""
import argparse
import os
import sys

from codegen.emit import render_all, render_readme, stale_files, write_if_changed
from codegen.load import SpecError, load_registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_root():
    """The current directory when it holds derivatives.yaml, else this checkout."""
    return os.getcwd() if os.path.exists("derivatives.yaml") else ROOT


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__.splitlines()[2])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if any generated file is stale; write nothing")
    parser.add_argument("--root", default=default_root(),
                        help="repository root holding derivatives.yaml (default: here)")
    options = parser.parse_args(argv)
    try:
        registry = load_registry(os.path.join(options.root, "derivatives.yaml"), options.root)
        files = render_all(registry)
        files.update(render_readme(registry, options.root))
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("Nothing was written.", file=sys.stderr)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
