"""PyTorch's dtype rules as functions: ``result_type`` (the promotion of tensors and
numbers, minigrad/autograd/promotion.py), ``promote_types`` (of two dtypes) and
``can_cast`` (the casts in-place ops allow: no float -> integer, complex -> real or
non-bool -> bool)."""
import numbers

import numpy as np

from minigrad._dtypes import as_dtype, dtype as _dtype, get_default_dtype
from minigrad._tensor import Tensor
from minigrad.autograd.promotion import CATEGORY, _combine, result_dtype

__all__ = ["result_type", "promote_types", "can_cast"]

_RESULT_TYPE_SIGNATURES = (
    " * (Tensor tensor, Tensor other)\n * (Number scalar, Tensor tensor)\n"
    " * (Tensor tensor, Number other)\n * (Number scalar1, Number scalar2)\n")


def _number_dtype(value):
    """A Python number's dtype alone: bool, int64, the default float, complex64."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, numbers.Integral):
        return np.dtype(np.int64)
    if isinstance(value, numbers.Real):
        return np.dtype(get_default_dtype()._numpy)
    return np.dtype(np.complex64)


def result_type(tensor, other):
    """The dtype an elementwise op on ``tensor`` and ``other`` (tensors or numbers)
    computes in: ``result_type(int32 tensor, 2.5)`` is float32."""
    values = (tensor, other)
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        got = ", ".join(type(v).__name__ for v in values)
        raise TypeError(f"result_type() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n" + _RESULT_TYPE_SIGNATURES)
    dtype = result_dtype(values)
    if dtype is None:  # two numbers: the higher category's dtype
        dtype = max((_number_dtype(v) for v in values), key=lambda d: CATEGORY[d.kind])
    return as_dtype(dtype)


def _check_dtype(function, name, position, value):
    if not isinstance(value, _dtype):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                        f"torch.dtype, not {type(value).__name__}")
    return np.dtype(value._numpy)


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing their
    category (int64 and float16 give float16, as PyTorch)."""
    a = _check_dtype("promote_types", "type1", 1, type1)
    b = _check_dtype("promote_types", "type2", 2, type2)
    top = max(CATEGORY[a.kind], CATEGORY[b.kind])
    return as_dtype(_combine([d for d in (a, b) if CATEGORY[d.kind] == top]))


def can_cast(from_, to):
    """Whether PyTorch's in-place ops may write a ``from_`` result into a ``to`` tensor."""
    source = _check_dtype("can_cast", "from_", 1, from_)
    target = _check_dtype("can_cast", "to", 2, to)
    return CATEGORY[source.kind] <= CATEGORY[target.kind]
