"""``minigrad.device``: where a tensor's values live.

A CPU tensor holds a numpy array; a CUDA tensor holds a CuPy array (the optional
``[cuda]`` extra, loaded on first use; see minigrad/_array).  A tensor's device is
read from its array.  The plumbing is PyTorch's (``device=`` on factories,
``Tensor.device``, ``.to(device)``, ``.cuda()``) so scripts written as
``x.to(device)`` run unchanged.  Without CuPy, asking for CUDA raises
AssertionError (as a CPU build of PyTorch does) saying how to install it.

>>> minigrad.device("cpu")
device(type='cpu')
>>> minigrad.zeros(2, device="cpu").device
device(type='cpu')
"""

_TYPES = ("cpu", "cuda")
#: device types torch knows and minigrad does not have (``x.to("meta")`` is a device there)
_OTHER_TORCH_TYPES = ("meta", "mps", "xpu", "hip", "xla", "lazy", "vulkan", "hpu", "mtia",
                      "ipu", "mkldnn", "opengl", "opencl", "ideep", "ve", "fpga", "maia",
                      "privateuseone")

import numpy as np

from minigrad import _array

CUDA_UNAVAILABLE = (
    "CUDA is not available in minigrad: CuPy is not installed. Install minigrad's [cuda] extra "
    "on a machine with an NVIDIA GPU: pip install minigrad[cuda] (it installs cupy-cuda12x). "
    "Use device='cpu', or pick the device with minigrad.cuda.is_available().")


class device:
    """A device type (``"cpu"`` or ``"cuda"``) and an optional index.

    >>> minigrad.device("cuda:1")
    device(type='cuda', index=1)
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(f"device() expects a string or a device, not {type.__class__.__name__}")
        elif ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            type, _, number = type.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{number}'")
            index = int(number)
        if type not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = type, index

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented  # torch: device("cpu") == "cpu" is False too
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
_CUDA = {}  # index -> device("cuda", index), so Tensor.device builds nothing per call


def cuda_device(index):
    d = _CUDA.get(index)
    if d is None:
        d = _CUDA[index] = device("cuda", index)
    return d


def of_array(array):
    """The device an array lives on: ``cpu`` for numpy, ``cuda:N`` for a GPU array."""
    if type(array) is np.ndarray or _array.device_type_of(array) == "cpu":
        return CPU
    return cuda_device(array.device.id)


def require_cuda():
    """Load the cuda backend, or raise torch's AssertionError (a CPU build) saying how."""
    if not _array.has_backend("cuda"):
        raise AssertionError(CUDA_UNAVAILABLE)  # torch: "Torch not compiled with CUDA enabled"


def as_device(value):
    """The device for a ``device=`` argument: a device, a string such as ``"cpu"``, or None
    (the default device).  A cuda device without an index means the current GPU."""
    if value is None:
        return _default[0]
    d = value if isinstance(value, device) else device(value)
    if d.type != "cpu":
        require_cuda()
        xp = _array.namespace_for("cuda")
        count = xp.cuda.runtime.getDeviceCount()
        index = xp.cuda.Device().id if d.index is None else d.index
        if index >= count:
            raise RuntimeError("CUDA error: invalid device ordinal")
        d = cuda_device(index)
    return d


def on_device(array, value):
    """``array`` (made on the host) moved to the device asked for by ``device=``."""
    d = as_device(value)
    if d.type == "cpu":
        return array if type(array) is np.ndarray else _array.to_host(array)
    return _array.to_device(array, "cuda", d.index)


def is_device_like(value):
    """True for arguments ``Tensor.to`` should read as a device: a device or a device string."""
    if isinstance(value, device):
        return True
    if isinstance(value, str):   # (torch's other device types too: device() refuses them)
        return value.partition(":")[0] in _TYPES + _OTHER_TORCH_TYPES
    return False


_default = [CPU]


def get_default_device():
    """The device factories use when given no ``device=`` (the CPU unless changed).

    >>> minigrad.get_default_device()
    device(type='cpu')
    """
    return _default[0]


def set_default_device(device):
    """As ``torch.set_default_device``: factories without ``device=`` make tensors there
    (None means the CPU); cuda without CuPy raises the CUDA error.

    >>> minigrad.set_default_device("cpu")
    """
    _default[0] = CPU if device is None else as_device(device)
