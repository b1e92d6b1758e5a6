"""Launch a training script on N processes: ``python -m minigrad.distributed.run -n 4 train.py
[script args...]``. It runs the script under the ``mpiexec`` that ``pip install
minigrad[distributed]`` installed, so rank and world size come from MPI; everything after
the script's name is passed to the script.
"""
import argparse
import os
import shutil
import subprocess
import sys

from minigrad.distributed import _mpi


def find_mpiexec():
    """The mpiexec next to this Python (the mpich wheel puts it there), else the one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = beside if os.access(beside, os.X_OK) else shutil.which("mpiexec")
    if found is None or not _mpi.available():
        raise SystemExit(_mpi.INSTALL_HINT)
    return found


def command(nprocs, script, script_args):
    return [find_mpiexec(), "-n", str(nprocs), sys.executable, script, *script_args]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.distributed.run",
        description="Run a minigrad training script on N MPI processes.")
    parser.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="nprocs", type=int,
                        default=1, help="number of processes (default 1)")
    parser.add_argument("script", help="the training script")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments for the script")
    args = parser.parse_args(argv)
    if args.nprocs < 1:
        parser.error(f"-n must be at least 1, got {args.nprocs}")
    return subprocess.call(command(args.nprocs, args.script, args.script_args))


if __name__ == "__main__":
    sys.exit(main())
