"""Padding layers (Constant/Zero/Reflection/Replication/Circular, 1d to 3d) over F.pad.

>>> nn.ReflectionPad2d(1)(minigrad.zeros(1, 3, 4, 4)).shape
(1, 3, 6, 6)
"""
import collections.abc

from minigrad.nn import functional as F
from minigrad.nn.modules.module import Module


def _padding_tuple(padding, n):
    """torch's _ntuple: an int is repeated to ``n`` entries, an iterable kept as a tuple."""
    if isinstance(padding, collections.abc.Iterable):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    """Pads the last ``_dims`` dimensions with ``F.pad(mode=_mode)``."""

    _mode = None
    _dims = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _padding_tuple(padding, 2 * self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class _ZeroPad:
    """ConstantPad with value 0.0, shown as its padding only."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    pass


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    pass


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass


class ReflectionPad1d(_PadNd):
    _mode, _dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    _mode, _dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    _mode, _dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    _mode, _dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    _mode, _dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    _mode, _dims = "replicate", 3


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        # torch checks the rank here: F.pad's circular mode would accept other ranks
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input "
                             f"(got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _dims = 1


class CircularPad2d(_CircularPadNd):
    _dims = 2


class CircularPad3d(_CircularPadNd):
    _dims = 3
