"""Instruction counts under callgrind, for the benchmarks whose timings this shared
machine's noise would hide (tools/bench_instructions.py, bench_validation.py).

The script runs once under ``valgrind --tool=callgrind`` and counts only inside calls of
``itertools.takewhile``, ``itertools.dropwhile``, ``itertools.filterfalse`` and
``itertools.starmap``
(``--toggle-collect``): the script runs what it measures through those, so imports,
start-up and set-up do not count.  A counter the script does not use counts 0.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COUNTERS = ("takewhile_next", "dropwhile_next", "filterfalse_next", "starmap_next")


def count_instructions(script, args):
    """{counter: instructions counted inside it} for ``python script *args``."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise SystemExit("this needs valgrind (apt install valgrind)")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind"]
                       + [f"--toggle-collect={name}" for name in COUNTERS]
                       + [f"--callgrind-out-file={out}", sys.executable, os.path.abspath(script)]
                       + list(args),
                       check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        listing = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], check=True,
                                 capture_output=True, text=True).stdout
    found = {name: re.search(r"([\d,]+) \([^)]*\)\s+\S*:" + name, listing) for name in COUNTERS}
    return {name: int(match.group(1).replace(",", "")) if match else 0
            for name, match in found.items()}
