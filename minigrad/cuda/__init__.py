"""minigrad.cuda: as ``torch.cuda``, backed by CuPy (the optional ``[cuda]`` extra).

Without CuPy or without a GPU, ``is_available()`` is False and ``device_count()`` is 0,
so scripts that pick their device with ``"cuda" if minigrad.cuda.is_available() else
"cpu"`` run unchanged; seeding and cache calls are then no-ops, as in PyTorch, and
calls that need a GPU (``current_device``, ``synchronize`` ...) raise AssertionError
saying how to install the extra (a CPU build of PyTorch raises AssertionError too).

Random ops draw from minigrad's host generator on every device (docs/gpu.md), so
``manual_seed`` here seeds that same stream, as ``minigrad.manual_seed`` does.

>>> device = "cuda" if minigrad.cuda.is_available() else "cpu"
"""
from minigrad import _array
from minigrad._array import device_checks
from minigrad._device import device as _make_device
from minigrad._device import require_cuda
from minigrad.cuda import amp  # noqa: F401


def _xp():
    """The cuda array library (CuPy, or the test backend), loading it; raises without it."""
    require_cuda()
    return _array.namespace_for("cuda")


def is_available():
    """Whether minigrad can put tensors on a GPU here (CuPy installed and a GPU seen)."""
    return _array.has_backend("cuda")


def device_count():
    return _xp().cuda.runtime.getDeviceCount() if is_available() else 0


def is_initialized():
    return "cuda" in _array._BY_DEVICE


def current_device():
    """The index of the GPU that new cuda tensors go to."""
    return _xp().cuda.Device().id


def set_device(device):
    """Make GPU ``device`` (an index, "cuda:1" or a minigrad.device) the current one."""
    index = device if isinstance(device, int) else _make_device(device).index
    if index is None or index < 0:
        return  # torch: a negative index or a device without one is a no-op
    _xp().cuda.Device(index).use()


class device:
    """Context manager that makes GPU ``device`` current inside the block (torch.cuda.device)."""

    def __init__(self, device):
        self.index = device if isinstance(device, int) or device is None \
            else _make_device(device).index
        self._previous = None

    def __enter__(self):
        if self.index is not None and self.index >= 0:
            self._previous = current_device()
            set_device(self.index)

    def __exit__(self, *exc):
        if self._previous is not None:
            set_device(self._previous)
        return False


def synchronize(device=None):
    """Wait for every kernel queued on the GPU (timing GPU code needs this)."""
    xp = _xp()
    with xp.cuda.Device(current_device() if device is None else _index(device)):
        xp.cuda.runtime.deviceSynchronize()
    device_checks.raise_ready(wait=True)  # a failed check on the GPU raises here


def _index(value):
    return value if isinstance(value, int) else _make_device(value).index or 0


def get_device_name(device=None):
    props = get_device_properties(device)
    return props["name"]


def get_device_properties(device=None):
    xp = _xp()
    props = xp.cuda.runtime.getDeviceProperties(current_device() if device is None
                                                else _index(device))
    name = props["name"]
    return {**props, "name": name.decode() if isinstance(name, bytes) else name}


def get_device_capability(device=None):
    props = get_device_properties(device)
    return props["major"], props["minor"]


def manual_seed(seed):
    """Seed the generator cuda tensors draw from: minigrad's own (see the module docstring).
    A no-op without a GPU, as in PyTorch."""
    if is_available():
        from minigrad.random import manual_seed as seed_host  # (random imports the tensor)
        seed_host(seed)


def manual_seed_all(seed):
    """As ``manual_seed``: every GPU draws from the same host generator."""
    manual_seed(seed)


def seed():
    """A no-op: cuda tensors draw from minigrad's host generator."""


def seed_all():
    """A no-op: cuda tensors draw from minigrad's host generator."""


def empty_cache():
    """Return the GPU memory CuPy keeps cached to the driver (a no-op without a GPU)."""
    if is_available():
        _xp().get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    return _xp().get_default_memory_pool().used_bytes() if is_available() else 0


def max_memory_allocated(device=None):
    return memory_allocated(device)


def memory_reserved(device=None):
    return _xp().get_default_memory_pool().total_bytes() if is_available() else 0


def is_bf16_supported(including_emulation=True):
    return False


__all__ = ["is_available", "device_count", "is_initialized", "current_device", "set_device",
           "device", "synchronize", "get_device_name", "get_device_properties",
           "get_device_capability", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "is_bf16_supported", "amp"]
