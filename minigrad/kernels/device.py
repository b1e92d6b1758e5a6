"""Moving an array between devices (the forward of ``Tensor.to(device)``)."""
from minigrad import _array
from minigrad._device import as_device

__all__ = ["to_device"]


def to_device(self, device):
    """``self`` on ``device`` (a minigrad device or a string such as "cuda:1"): itself when
    it is there already, else a copy."""
    d = as_device(device)
    return _array.to_device(self, d.type, d.index)
