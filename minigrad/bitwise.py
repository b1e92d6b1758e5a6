"""Bitwise ops on integer and bool tensors: ``&``, ``|``, ``^``, ``~``, the shifts ``<<``
and ``>>``, and their names (torch.bitwise_and, x.bitwise_left_shift(y) ...).

As in PyTorch they work bit by bit on integers (``tensor([1, 2]) & tensor([3, 1])`` is
``tensor([1, 0])``) and as logical ops on bools; the operands promote as other elementwise
ops do, and floating tensors are refused.  Results never require grad.

>>> minigrad.tensor([6, 3]) & 5
tensor([4, 1])
>>> ~minigrad.tensor([True, False])
tensor([False,  True])
"""
import numbers

import numpy as np

from minigrad import _tensor
from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd.numpy_errors import translate
from minigrad._dtypes import wrapped_int
from minigrad.autograd.promotion import result_dtype
from minigrad.kernels.core import not_implemented_for, xp_of

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift"]


def _operand(value, dtype):
    """An operand in the result's dtype: a Python int wrapped into it, as PyTorch casts."""
    if isinstance(value, Tensor):
        return value._data.astype(dtype, copy=False)
    if type(value) is int and dtype.kind in "iu":
        return wrapped_int(value, dtype)
    return value


_LOGICAL = {"bitwise_and": np.logical_and, "bitwise_or": np.logical_or}


def _binary(name):
    def op(input, other):
        if not isinstance(other, (Tensor, numbers.Number)):
            return NotImplemented  # a list, a string ...: Python's TypeError
        dtype = result_dtype((input, other))
        if dtype.kind not in "biu":
            raise not_implemented_for(f"{name}_cpu", dtype)
        if dtype.kind == "b" and name in _LOGICAL:  # masks: the comparison path, which
            return _tensor._compare(_LOGICAL[name], input, other)  # minigrad.compile records
        a, b = _operand(input, dtype), _operand(other, dtype)
        xp = xp_of(a, b)
        try:
            return _wrap(xp.asarray(getattr(xp, name)(a, b)).astype(dtype, copy=False))
        except ValueError as exc:  # shapes that do not broadcast: PyTorch's RuntimeError
            raise translate(exc, name, a, b) from None
    op.__name__ = name
    op.__doc__ = f"{name}(input, other) -> Tensor, for integer and bool tensors."
    return op


def _shift(name, kernel):
    def op(input, other):
        if not isinstance(other, (Tensor, numbers.Number)) or \
                not isinstance(input, (Tensor, numbers.Number)):
            return NotImplemented
        dtype = result_dtype((input, other))
        if dtype.kind not in "iu":
            raise not_implemented_for(kernel, dtype)
        a, b = _operand(input, dtype), _operand(other, dtype)
        xp = xp_of(a, b)
        a, b = xp.asarray(a, dtype=dtype), xp.asarray(b, dtype=dtype)
        try:
            return _wrap(_shifted(xp, name, a, b))
        except ValueError as exc:
            raise translate(exc, name, a, b) from None
    op.__name__ = name
    op.__doc__ = f"{name}(input, other) -> Tensor, for integer tensors."
    return op


def _shifted(xp, name, a, b):
    """PyTorch's shifts: a shift by the width or more, or by a negative amount, gives 0
    (left, and right of unsigned), or the sign (right of signed); numpy's is undefined."""
    bits = a.dtype.itemsize * 8
    outside = (b < 0) | (b >= bits)
    within = xp.where(outside, 0, b).astype(a.dtype)
    if name == "bitwise_left_shift":
        return xp.where(outside, 0, xp.left_shift(a, within)).astype(a.dtype)
    if a.dtype.kind == "i":
        return xp.right_shift(a, xp.where(outside, bits - 1, within).astype(a.dtype))
    return xp.where(outside, 0, xp.right_shift(a, within)).astype(a.dtype)


bitwise_left_shift = _shift("bitwise_left_shift", "lshift_cpu")
bitwise_right_shift = _shift("bitwise_right_shift", "rshift_cpu")


def _reflected(function):
    def reflected(self, other):
        return function(other, self)
    return reflected


def _shift_inplace(function):
    def shift_(self, other):
        return self.copy_(function(self, other))
    shift_.__name__ = function.__name__ + "_"
    return shift_


bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")


def bitwise_not(input):
    """``~x``: each bit flipped (integers), logical not (bools)."""
    if input._data.dtype.kind not in "biu":
        raise not_implemented_for("bitwise_not_cpu", input._data.dtype)
    if input._data.dtype.kind == "b":   # a mask's not (~pad): == False, which compile records
        return _tensor._compare(np.equal, input, False)
    return _wrap(namespace_of(input._data).invert(input._data))


def _invert(self):
    if self._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


def _bind():
    operators = {"__and__": bitwise_and, "__or__": bitwise_or, "__xor__": bitwise_xor}
    for name, function in operators.items():
        setattr(Tensor, name, function)
        setattr(Tensor, name.replace("__", "__r", 1), function)  # both orders: commutative
    Tensor.__invert__ = _invert
    for name, function in (("lshift", bitwise_left_shift), ("rshift", bitwise_right_shift)):
        setattr(Tensor, f"__{name}__", function)
        setattr(Tensor, f"__r{name}__", _reflected(function))
        setattr(Tensor, f"__i{name}__", _shift_inplace(function))
        setattr(Tensor, function.__name__ + "_", _shift_inplace(function))
    for function in (bitwise_and, bitwise_or, bitwise_xor, bitwise_not, bitwise_left_shift,
                     bitwise_right_shift):
        setattr(Tensor, function.__name__, function)


_bind()
