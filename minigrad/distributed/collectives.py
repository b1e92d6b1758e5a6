"""Collectives over MPI, with PyTorch's signatures: each works in place on the tensors
it is given, and with ``async_op=True`` returns a :class:`Work` to ``wait()`` on.

Every collective is started non-blocking and then waited for with the process group's
timeout, so a peer that died or never arrived turns into a ``DistBackendError`` naming
the collective, not a hang.
"""
import time

import numpy as np

from minigrad._array import namespace_of, to_host
from minigrad.distributed import _mpi
from minigrad.distributed.process_group import DistBackendError, ReduceOp, _comm, _timeout_seconds


class Work:
    """A started collective (PyTorch's ``Work``): ``wait()`` blocks until it is done, then
    writes its result into the output tensors."""

    def __init__(self, name, requests, finish=None, statuses=None):
        self._name, self._requests, self._finish = name, requests, finish
        self._statuses = statuses  # filled by MPI when the requests complete (recv's sender)
        self._done = False

    def is_completed(self):
        if not self._done and _mpi.mpi().Request.Testall(self._requests, self._statuses):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        if self._done:
            return True
        limit = _timeout_seconds() if timeout is None else _seconds(timeout)
        MPI, deadline, pause = _mpi.mpi(), time.monotonic() + limit, 0.0
        while not MPI.Request.Testall(self._requests, self._statuses):
            if time.monotonic() > deadline:
                raise DistBackendError(
                    f"{self._name} timed out after {limit:g} s: another rank raised, died or did "
                    f"not call {self._name}. Set init_process_group(timeout=...) to wait longer.")
            time.sleep(pause)
            pause = min(2 * pause + 1e-6, 1e-3)  # poll fast at first, then back off
        self._complete()
        return True

    def _complete(self):
        self._done = True
        if self._finish is not None:
            self._finish()


def _seconds(timeout):
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)


def _run(name, requests, finish, async_op):
    work = Work(name, requests, finish)
    if async_op:
        return work
    work.wait()
    return None


# ----------------------------------------------------------------- buffers

_STAGED = {np.dtype(np.float16): np.float32}  # dtypes MPI has no type for travel widened


def _buffer(tensor):
    """A contiguous host array MPI can work on, and a function writing it back into ``tensor``.

    GPU tensors are staged through host memory: the MPI from pip is not CUDA-aware."""
    _check_tensor(tensor)
    array = tensor._data
    staged = _STAGED.get(array.dtype)
    on_host = type(array) is np.ndarray
    in_place = on_host and staged is None and array.flags.c_contiguous and array.flags.writeable
    buffer = array if in_place else np.ascontiguousarray(to_host(array), dtype=staged or array.dtype)

    def write_back(result=None):
        if result is not None or not in_place:
            _store(tensor, buffer if result is None else result)
        _bump(tensor)
    return buffer, write_back


def _store(tensor, host):
    """Write host values into ``tensor`` (copied to its GPU when it lives on one)."""
    array = tensor._data
    array[...] = host if type(array) is np.ndarray else namespace_of(array).asarray(host)


def _check_tensor(tensor):
    from minigrad import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `tensor` of type "
                        f"minigrad.Tensor but got {type(tensor).__name__} instead.")


def _bump(tensor):
    tensor._version_counter[0] += 1


def _mpi_op(op, dtype):
    MPI = _mpi.mpi()
    if op not in ReduceOp.__members__.values():
        raise ValueError(f"unknown reduce op {op!r}; use minigrad.distributed.ReduceOp")
    if dtype == np.bool_:  # MPI reduces bools only logically; PyTorch's bool SUM/MAX is an "or"
        return MPI.LAND if op in (ReduceOp.MIN, ReduceOp.PRODUCT) else MPI.LOR
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX}[op]


def _divide_for_avg(array, world):
    if array.dtype.kind == "f":
        array /= world
    else:
        array //= world


# ------------------------------------------------------------- collectives

def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank has reached this call."""
    return _run("barrier", [_comm().Ibarrier()], None, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copy rank ``src``'s ``tensor`` into every other rank's ``tensor``."""
    comm = _comm()
    _check_rank(src, comm, "src")
    buffer, write_back = _buffer(tensor)
    return _run("broadcast", [comm.Ibcast(buffer, root=src)], write_back, async_op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks (SUM, AVG, PRODUCT, MIN, MAX); every rank gets the result.

    >>> t = minigrad.tensor([float(dist.get_rank())])   # doctest: +SKIP
    >>> dist.all_reduce(t, op=dist.ReduceOp.SUM)         # doctest: +SKIP
    """
    comm = _comm()
    buffer, write_back = _buffer(tensor)
    result = np.empty_like(buffer)

    def finish():
        if op == ReduceOp.AVG:
            _divide_for_avg(result, comm.Get_size())
        write_back(result)
    return _run("all_reduce", [comm.Iallreduce(buffer, result, op=_mpi_op(op, buffer.dtype))],
                finish, async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks into rank ``dst``'s ``tensor``."""
    comm = _comm()
    _check_rank(dst, comm, "dst")
    buffer, write_back = _buffer(tensor)
    result = np.empty_like(buffer)
    is_dst = comm.Get_rank() == dst

    def finish():
        if is_dst:
            if op == ReduceOp.AVG:
                _divide_for_avg(result, comm.Get_size())
            write_back(result)
    request = comm.Ireduce(buffer, result, op=_mpi_op(op, buffer.dtype), root=dst)
    return _run("reduce", [request], finish, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's ``tensor`` into ``tensor_list[rank]``, on every rank."""
    comm = _comm()
    _check_list(tensor_list, comm.Get_size(), tensor, "tensor_list")
    buffer, _ = _buffer(tensor)
    gathered = np.empty((comm.Get_size(),) + buffer.shape, buffer.dtype)
    return _run("all_gather", [comm.Iallgather(buffer, gathered)],
                lambda: _scatter_rows(gathered, tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor`` concatenated along dim 0 into ``output_tensor``."""
    comm = _comm()
    buffer, _ = _buffer(input_tensor)
    out, write_back = _buffer(output_tensor)
    if out.size != buffer.size * comm.Get_size():
        raise ValueError(f"all_gather_into_tensor: output has {out.size} elements, expected "
                         f"world_size x input = {comm.Get_size()} x {buffer.size}")
    return _run("all_gather_into_tensor", [comm.Iallgather(buffer, out)], write_back, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list`` over all ranks; rank r receives the reduction of the ``input_list[r]``s."""
    comm = _comm()
    _check_list(input_list, comm.Get_size(), output, "input_list")
    out, write_back = _buffer(output)
    stacked = np.ascontiguousarray(np.stack([to_host(t._data) for t in input_list]), dtype=out.dtype)
    result = np.empty_like(out)

    def finish():
        if op == ReduceOp.AVG:
            _divide_for_avg(result, comm.Get_size())
        write_back(result)
    request = comm.Ireduce_scatter_block(stacked, result, op=_mpi_op(op, out.dtype))
    return _run("reduce_scatter", [request], finish, async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (others pass None)."""
    comm = _comm()
    _check_rank(dst, comm, "dst")
    is_dst = comm.Get_rank() == dst
    if is_dst:
        _check_list(gather_list, comm.Get_size(), tensor, "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    buffer, _ = _buffer(tensor)
    gathered = np.empty((comm.Get_size(),) + buffer.shape, buffer.dtype) if is_dst else None
    finish = (lambda: _scatter_rows(gathered, gather_list)) if is_dst else None
    return _run("gather", [comm.Igather(buffer, gathered, root=dst)], finish, async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank ``src``'s ``scatter_list[r]`` into rank r's ``tensor``."""
    comm = _comm()
    _check_rank(src, comm, "src")
    is_src = comm.Get_rank() == src
    if is_src:
        _check_list(scatter_list, comm.Get_size(), tensor, "scatter_list")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    out, write_back = _buffer(tensor)
    stacked = (np.ascontiguousarray(np.stack([to_host(t._data) for t in scatter_list]), dtype=out.dtype)
               if is_src else None)
    result = np.empty_like(out)
    return _run("scatter", [comm.Iscatter(stacked, result, root=src)],
                lambda: write_back(result), async_op)


def send(tensor, dst, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` (blocks until it was handed to MPI)."""
    comm = _comm()
    _check_rank(dst, comm, "dst")
    buffer, _ = _buffer(tensor)
    _run("send", [comm.Isend(buffer, dest=dst, tag=tag)], None, False)


def isend(tensor, dst, group=None, tag=0):
    comm = _comm()
    _check_rank(dst, comm, "dst")
    buffer, _ = _buffer(tensor)
    return Work("isend", [comm.Isend(buffer, dest=dst, tag=tag)])


def recv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    work, status = _irecv(tensor, src, tag)
    work.wait()
    return status.Get_source()


def irecv(tensor, src=None, group=None, tag=0):
    return _irecv(tensor, src, tag)[0]


def _irecv(tensor, src, tag):
    MPI, comm = _mpi.mpi(), _comm()
    if src is not None:
        _check_rank(src, comm, "src")
    out, write_back = _buffer(tensor)
    status = MPI.Status()
    request = comm.Irecv(out, source=MPI.ANY_SOURCE if src is None else src, tag=tag)
    return Work("recv", [request], write_back, statuses=[status]), status


def _check_rank(rank, comm, name):
    if not isinstance(rank, int) or not 0 <= rank < comm.Get_size():
        raise ValueError(f"Invalid {name} rank {rank!r}: the world has ranks 0..{comm.Get_size() - 1}")


def _check_list(tensors, size, like, name):
    if tensors is None or len(tensors) != size:
        got = "None" if tensors is None else f"{len(tensors)} tensors"
        raise ValueError(f"Argument ``{name}`` must hold world_size = {size} tensors; got {got}")
    for t in tensors:
        _check_tensor(t)
        if tuple(t.shape) != tuple(like.shape):
            raise ValueError(f"Tensors in ``{name}`` must have the shape of the tensor, "
                             f"{tuple(like.shape)}; got {tuple(t.shape)}")


def _scatter_rows(gathered, tensors):
    for row, t in zip(gathered, tensors):
        _store(t, row)
        _bump(t)
