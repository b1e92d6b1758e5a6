"""Data-parallel training over MPI with PyTorch's ``torch.distributed`` API.

Launch with ``mpiexec -n 4 python train.py`` or ``python -m minigrad.distributed.run -n 4
train.py``; rank and world size come from MPI. MPI is the optional extra
``pip install minigrad[distributed]`` (mpi4py + mpich); nothing here needs it at import.

>>> import minigrad.distributed as dist
>>> dist.init_process_group("mpi")                     # doctest: +SKIP
>>> t = minigrad.ones(3) * dist.get_rank()             # doctest: +SKIP
>>> dist.all_reduce(t)                                 # doctest: +SKIP
"""
from minigrad.distributed.process_group import (  # noqa: F401
    Backend, DistBackendError, ReduceOp, default_pg_timeout, destroy_process_group, get_backend,
    get_rank, get_world_size, init_process_group, is_available, is_initialized, is_mpi_available)
from minigrad.distributed.collectives import (  # noqa: F401
    Work, all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast, gather, irecv, isend,
    recv, reduce, reduce_scatter, scatter, send)
