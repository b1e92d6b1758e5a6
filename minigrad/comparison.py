"""Comparisons and logical ops by name, as functions and Tensor methods (torch.eq, x.eq(y), ...).

The operators (``==``, ``<``, ...) live on Tensor itself; scripts also call them by name
(pytorch/examples mnist: ``pred.eq(target.view_as(pred)).sum()``), and check results with
``torch.allclose``/``torch.equal``. Results are boolean tensors without a graph: their
derivative is zero wherever it exists, as in PyTorch.

>>> minigrad.tensor([1, 2, 3]).eq(2)
tensor([False,  True, False])
>>> minigrad.allclose(minigrad.tensor([1.0]), minigrad.tensor([1.0 + 1e-9]))
True
"""
import numpy as np

from minigrad import _tensor
from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad._value_reads import reads_values
from minigrad.kernels.core import xp_of
from minigrad.autograd.numpy_errors import translate

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal", "less_equal",
           "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "equal",
           "isclose", "allclose", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"]


def _data(value):
    """A Tensor's array; a Python number as a numpy scalar (typed like a 0-d array, and
    usable with device arrays, which a host array is not)."""
    if isinstance(value, Tensor):
        return value._data
    return np.asarray(value)[()] if isinstance(value, (bool, int, float, complex)) else value


def _require_tensor(name, other, position):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, "
                        f"not {type(other).__name__}")


def _elementwise(ufunc, name, tensor_only=False):
    def op(input, other, _position=2):
        if tensor_only:
            _require_tensor(name, other, _position)
        if isinstance(input, Tensor) and isinstance(other, _tensor._COMPARABLE):
            # the operators' path (x == y): a Python number compares in the tensor's
            # dtype, as in PyTorch, and minigrad.compile records it (never frozen)
            return _tensor._compare(getattr(np, ufunc), input, other)
        a, b = _data(input), _data(other)
        xp = xp_of(a, b)
        try:
            return _wrap(xp.asarray(getattr(xp, ufunc)(a, b)))
        except ValueError as exc:
            raise translate(exc, name, a, b) from None
    op.__name__ = name
    op.__doc__ = (f"{name}(input, other) -> Tensor: elementwise ``{ufunc}`` as a bool "
                  f"tensor, broadcasting as PyTorch.\n\n>>> minigrad.{name}(x, 0.5)  # doctest: +SKIP")
    return op


eq = _elementwise("equal", "eq")
ne = not_equal = _elementwise("not_equal", "ne")
lt = less = _elementwise("less", "lt")
le = less_equal = _elementwise("less_equal", "le")
gt = greater = _elementwise("greater", "gt")
ge = greater_equal = _elementwise("greater_equal", "ge")
logical_and = _elementwise("logical_and", "logical_and", tensor_only=True)
logical_or = _elementwise("logical_or", "logical_or", tensor_only=True)
logical_xor = _elementwise("logical_xor", "logical_xor", tensor_only=True)


def logical_not(input):
    """Elementwise ``not`` as a bool tensor (nonzero is True).

    >>> minigrad.logical_not(minigrad.tensor([0.0, 2.0]))
    tensor([ True, False])
    """
    if isinstance(input, Tensor):   # (== 0 is not: recorded by minigrad.compile, as x == y)
        return _tensor._compare(np.equal, input, 0)
    a = _data(input)
    xp = namespace_of(a)
    return _wrap(xp.asarray(xp.logical_not(a)))


def _predicate(ufunc, name):
    def test(input):
        a = _data(input)
        xp = namespace_of(a)
        function = getattr(xp, ufunc, None) or _FALLBACKS[ufunc]
        return _wrap(xp.asarray(function(a)))
    test.__name__ = name
    test.__doc__ = (f"{name}(input) -> Tensor: elementwise ``{ufunc}`` as a bool tensor."
                    f"\n\n>>> minigrad.{name}(minigrad.tensor([1.0, float('nan')]))"
                    f"  # doctest: +SKIP")
    return test


# numpy functions an array library may lack (numpy writes them the same way)
_FALLBACKS = {
    "isposinf": lambda a: namespace_of(a).isinf(a) & ~namespace_of(a).signbit(a),
    "isneginf": lambda a: namespace_of(a).isinf(a) & namespace_of(a).signbit(a),
}

isnan = _predicate("isnan", "isnan")
isinf = _predicate("isinf", "isinf")
isfinite = _predicate("isfinite", "isfinite")
isposinf = _predicate("isposinf", "isposinf")
isneginf = _predicate("isneginf", "isneginf")
signbit = _predicate("signbit", "signbit")


def equal(input, other):
    """True when both tensors have the same shape and the same values (a Python bool).

    >>> minigrad.equal(minigrad.ones(2), minigrad.ones(2))
    True
    """
    reads_values("minigrad.equal returns a Python bool from the values")
    a, b = _data(input), _data(other)
    return a.shape == b.shape and bool(xp_of(a, b).array_equal(a, b))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False, _position=2):
    """``|input - other| <= atol + rtol * |other|`` elementwise (PyTorch's and numpy's rule);
    both tensors must have the same dtype, as in PyTorch.

    >>> minigrad.isclose(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 2.1]))
    tensor([ True, False])
    """
    _require_tensor("isclose", other, _position)
    a, b = _data(input), _data(other)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_torch_name(a.dtype)} did not match {_torch_name(b.dtype)}")
    try:
        xp = xp_of(a, b)
        return _wrap(xp.asarray(xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))
    except ValueError as exc:
        raise translate(exc, "isclose", a, b) from None


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element is close (see ``isclose``): a Python bool.

    >>> minigrad.allclose(minigrad.ones(3), minigrad.ones(3) + 1e-7)
    True
    """
    _require_tensor("allclose", other, 2)
    reads_values("minigrad.allclose returns a Python bool from the values")
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def _torch_name(dtype):
    """PyTorch's scalar-type name used in its dtype-mismatch messages (Float, Double, Long)."""
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    return names.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _type_as(self, other):
    """``self`` in ``other``'s dtype (as ``self.to(other.dtype)``)."""
    return self.to(other.dtype)


def _where(self, condition, other):
    """``minigrad.where(condition, self, other)``."""
    from minigrad import where  # at call time: minigrad imports this module while it loads
    return where(condition, self, other)


def _method(function):
    """As a Tensor method: torch counts `other` as argument 1 there (0 is `self`)."""
    def method(self, other, *args, **kwargs):
        return function(self, other, *args, _position=1, **kwargs)
    method.__name__, method.__doc__ = function.__name__, function.__doc__
    return method


def _bind_methods():
    for name in __all__:
        function = globals()[name]
        if not hasattr(Tensor, name):
            takes_position = "_position" in function.__code__.co_varnames
            setattr(Tensor, name, _method(function) if takes_position else function)
    for name, method in (("type_as", _type_as), ("where", _where)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)


_bind_methods()
