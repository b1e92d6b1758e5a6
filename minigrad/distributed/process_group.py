"""The process group: who we are (rank), how many we are (world size), and how long
a collective may wait for the others (timeout), as in ``torch.distributed``.

Ranks and the world size come from MPI (``mpiexec -n 4 python train.py``), never from
environment variables a launcher would have to invent.
"""
import datetime
import enum
import sys
import time

from minigrad.distributed import _mpi

default_pg_timeout = datetime.timedelta(minutes=30)

_state = {"comm": None, "timeout": default_pg_timeout.total_seconds(), "backend": None,
          "excepthook": None}


class DistBackendError(RuntimeError):
    """A collective failed or timed out (a peer raised, died or never arrived)."""


class ReduceOp(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


class Backend:
    MPI = "mpi"
    GLOO = "gloo"


def is_available():
    """True: minigrad.distributed is always importable (MPI itself is checked at init)."""
    return True


def is_mpi_available():
    return _mpi.available()


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job started by ``mpiexec`` (or ``python -m minigrad.distributed.run``).

    ``backend`` is ``"mpi"``; ``"gloo"`` is accepted too so that CPU scripts written for
    PyTorch run unchanged (both mean MPI here). ``world_size``/``rank``, when given, must
    agree with what MPI says.

    >>> import minigrad.distributed as dist
    >>> dist.init_process_group("mpi")            # doctest: +SKIP
    >>> dist.get_rank(), dist.get_world_size()    # doctest: +SKIP
    (0, 2)
    """
    if _state["comm"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend not in (None, "mpi", "gloo", "cpu:gloo"):
        raise ValueError(f"minigrad.distributed supports backend 'mpi' (and 'gloo', run over MPI); "
                         f"got {backend!r}. NCCL needs CUDA-aware communication, which the MPI "
                         f"from pip does not provide.")
    if timeout is not None and not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    MPI = _mpi.mpi()
    comm = MPI.COMM_WORLD.Dup()
    for name, given, actual in (("world_size", world_size, comm.Get_size()),
                                ("rank", rank, comm.Get_rank())):
        if given not in (-1, None) and given != actual:
            raise ValueError(f"init_process_group: {name}={given} but MPI started this process "
                             f"with {name}={actual}; launch with `mpiexec -n N` and leave {name} out.")
    _state.update(comm=comm, backend=backend or "mpi",
                  timeout=(timeout or default_pg_timeout).total_seconds())
    _abort_job_on_uncaught_exception(MPI)


def _abort_job_on_uncaught_exception(MPI):
    """A rank that raises takes the whole job down at once, instead of leaving its
    peers waiting in a collective until their timeout."""
    previous = _state["excepthook"] = sys.excepthook

    def hook(kind, value, traceback):
        previous(kind, value, traceback)
        sys.stderr.flush()
        # The launcher forwards our stderr asynchronously, and Abort tears its proxies
        # down at once: give it a moment, or on a busy machine the traceback is lost.
        time.sleep(0.2)
        MPI.COMM_WORLD.Abort(1)

    sys.excepthook = hook


def is_initialized():
    return _state["comm"] is not None


def _comm():
    if _state["comm"] is None:
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
    return _state["comm"]


def _timeout_seconds():
    return _state["timeout"]


def get_rank(group=None):
    """This process's rank; -1 before ``init_process_group``, as in PyTorch."""
    return _state["comm"].Get_rank() if _state["comm"] is not None else -1


def get_world_size(group=None):
    return _state["comm"].Get_size() if _state["comm"] is not None else -1


def get_backend(group=None):
    _comm()
    return _state["backend"]


def destroy_process_group(group=None):
    comm = _state["comm"]
    if comm is not None:
        comm.Free()
    if _state["excepthook"] is not None:
        sys.excepthook = _state["excepthook"]
    _state.update(comm=None, backend=None, timeout=default_pg_timeout.total_seconds(),
                  excepthook=None)
