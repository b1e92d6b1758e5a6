"""minigrad.cuda: as ``torch.cuda``, for a machine where CUDA is not available.

minigrad computes on the CPU today, so ``is_available()`` is False and
``device_count()`` is 0; scripts that pick their device with
``"cuda" if minigrad.cuda.is_available() else "cpu"`` run unchanged.  Seeding and
cache calls are no-ops, as in PyTorch without a GPU; calls that need a GPU
(``current_device``, ``synchronize`` ...) raise an error that says how to get one.

>>> minigrad.cuda.is_available()
False
"""
from minigrad._device import CUDA_UNAVAILABLE
from minigrad.cuda import amp  # noqa: F401


def is_available():
    """False: minigrad has no CUDA backend on this machine."""
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _unavailable(*args, **kwargs):
    raise AssertionError(CUDA_UNAVAILABLE)  # torch raises AssertionError without CUDA


current_device = synchronize = get_device_name = get_device_capability = _unavailable
get_device_properties = set_device = device = _unavailable


def manual_seed(seed):
    """A no-op without a GPU (as in PyTorch): the CPU generator is ``minigrad.manual_seed``."""


def manual_seed_all(seed):
    """A no-op without a GPU (as in PyTorch)."""


def seed():
    """A no-op without a GPU (as in PyTorch)."""


def seed_all():
    """A no-op without a GPU (as in PyTorch)."""


def empty_cache():
    """Nothing is cached without a GPU."""


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def is_bf16_supported(including_emulation=True):
    return False
