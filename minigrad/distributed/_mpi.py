"""The one place minigrad.distributed touches mpi4py.

MPI is an optional extra: importing minigrad never needs it, and the first call that does
says how to install it.
"""
import os

INSTALL_HINT = ("minigrad.distributed runs over MPI through mpi4py, which is not installed. "
                "Install it with `pip install minigrad[distributed]` (mpi4py + mpich).")


def available():
    try:
        import mpi4py  # noqa: F401  (only asking whether it is there)
    except ImportError:
        return False
    return True


def mpi():
    """The ``mpi4py.MPI`` module, initialising MPI on first use."""
    try:
        import mpi4py
    except ImportError as error:
        raise RuntimeError(INSTALL_HINT) from error
    # Threads are not used for communication; asking for less keeps MPICH's progress cheap.
    mpi4py.rc.thread_level = os.environ.get("MINIGRAD_MPI_THREAD_LEVEL", "serialized")
    from mpi4py import MPI
    return MPI
