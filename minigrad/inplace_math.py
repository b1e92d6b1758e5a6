"""In-place methods torch has beside the generated ones: ``deg2rad_``, ``rad2deg_`` and
``polygamma_(n)`` (differentiable: the out-of-place op's node becomes grad_fn, as for
every in-place op), and ``apply_`` / ``map_`` / ``map2_``, which run a Python callable
on each element (CPU tensors only; like torch they refuse a tensor that requires grad,
since a Python callable has no derivative).
"""
import numbers

import numpy as np

from minigrad._array import to_host
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad.autograd.inplace import apply_inplace, write

__all__ = ["deg2rad_", "rad2deg_", "polygamma_", "apply_", "map_", "map2_"]


def deg2rad_(self):
    """Degrees to radians, in place."""
    return apply_inplace(self, _F.deg2rad)


def rad2deg_(self):
    """Radians to degrees, in place."""
    return apply_inplace(self, _F.rad2deg)


def _polygamma_of(input, n):   # (apply_inplace passes self first)
    return _F.polygamma(n, input)


def polygamma_(self, n):
    """The n-th derivative of digamma, in place (``x.polygamma_(n)``, torch's order)."""
    return apply_inplace(self, _polygamma_of, n)


def _refuse_grad(self, name):
    if self._requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if type(self._data) is not np.ndarray:
        raise RuntimeError(f"{name}_ is only implemented on CPU tensors")


def _as_element(value, dtype):
    """The callable's result as a value of ``dtype`` (torch: a real number, else TypeError)."""
    if not isinstance(value, numbers.Real):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if dtype.kind == "b":
        return bool(value)
    return int(value) if dtype.kind in "iu" else float(value)


def _same_type(self, other, name, argument):
    if other._data.dtype != self._data.dtype:
        raise TypeError(f"{name}: expected {self.type()} for '{argument}' (got "
                        f"{other.type()})")
    return np.broadcast_to(to_host(other._data), self._data.shape)


def _elementwise(self, callable, operands):
    """Write ``callable(self_i, *operands_i)`` into each element of self."""
    values = to_host(self._data)
    out = np.empty(values.shape, dtype=values.dtype)
    for index in np.ndindex(values.shape):
        arguments = [a[index].item() for a in (values,) + tuple(operands)]
        out[index] = _as_element(callable(*arguments), values.dtype)
    write(self, out)
    return self


def apply_(self, callable):
    """Replace each element x by ``callable(x)`` (a Python number)."""
    _refuse_grad(self, "apply_")
    return _elementwise(self, callable, ())


def map_(self, tensor, callable):
    """Replace each element x by ``callable(x, y)``, y from ``tensor`` broadcast to self."""
    _refuse_grad(self, "map_")
    return _elementwise(self, callable, (_same_type(self, tensor, "map_", "other"),))


def map2_(self, x, y, callable):
    """Replace each element s by ``callable(s, x_i, y_i)``, x and y broadcast to self."""
    _refuse_grad(self, "map2_")
    return _elementwise(self, callable, (_same_type(self, x, "map2_", "x"),
                                         _same_type(self, y, "map2_", "y")))


for _name in __all__:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
