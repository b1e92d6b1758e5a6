"""minigrad.nn.parallel: ``DistributedDataParallel`` (over MPI, see minigrad.distributed) and
``DataParallel`` (on the CPU it runs the module, as PyTorch's does without GPUs)."""
from minigrad.nn.parallel.data_parallel import DataParallel  # noqa: F401
from minigrad.nn.parallel.distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel"]
