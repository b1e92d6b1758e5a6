"""``minigrad.device``: where a tensor's values live.

Today every tensor lives on the CPU in a numpy array.  The plumbing is PyTorch's
(``device=`` on factories, ``Tensor.device``, ``.to(device)``) so that scripts
written as ``x.to(device)`` run unchanged, and so an accelerator backend can be
added behind it later.  Asking for CUDA raises a clear error until then.

>>> minigrad.device("cpu")
device(type='cpu')
>>> minigrad.zeros(2, device="cpu").device
device(type='cpu')
"""

_TYPES = ("cpu", "cuda")

CUDA_UNAVAILABLE = (
    "CUDA is not available in minigrad: this build computes on the CPU only. Running on a GPU "
    "needs minigrad's [cuda] extra (CuPy; not released yet) and an NVIDIA GPU. Use device='cpu', "
    "or pick the device with minigrad.cuda.is_available().")


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


def as_device(value):
    """The device for a ``device=`` argument: a device, a string such as ``"cpu"``, or None."""
    if value is None:
        return CPU
    d = value if isinstance(value, device) else device(value)
    if d.type != "cpu":
        raise AssertionError(CUDA_UNAVAILABLE)  # torch raises AssertionError here too
    return d


def is_device_like(value):
    """True for arguments ``Tensor.to`` should read as a device: a device or a device string."""
    if isinstance(value, device):
        return True
    if isinstance(value, str):
        return value.partition(":")[0] in _TYPES
    return False


def get_default_device():
    """The device factories use when given no ``device=``: always the CPU today.

    >>> minigrad.get_default_device()
    device(type='cpu')
    """
    return CPU


def set_default_device(device):
    """As ``torch.set_default_device``: ``"cpu"`` (or None) is accepted, as scripts that
    pick their device at the top call it; an accelerator raises the CUDA error.

    >>> minigrad.set_default_device("cpu")
    """
    as_device(device)
