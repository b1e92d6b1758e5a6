"""PyTorch's type promotion for elementwise ops with several Tensor inputs.

numpy promotes by value ranges (float32 * int64 -> float64; a 0-d float64 array upcasts a
float32 array); PyTorch promotes by category (bool < integer < floating) and lets
dimensioned tensors decide before 0-d tensors, and those before Python numbers:

    float32 * int64 -> float32        float32 * tensor(2.0, float64) -> float32
    int64 * 2.5     -> float32 (the default dtype)        int32 + int64 -> int64

Entries in derivatives.yaml with ``promote: [self, other]`` call :func:`promote_types` on
those inputs first; an input of another dtype is cast with the differentiable ``.to``, so
its gradient comes back in its own dtype.  Entries with ``floating: [self, ...]`` then cast
integral and bool inputs to the default dtype (:func:`to_floating`), as PyTorch does for
ops whose result is floating whatever the input (``sin``, ``sqrt``, ``int / int``).
Entries with ``refuses:`` raise PyTorch's error for the dtypes it has no kernel for
(:func:`refuse_dtypes`: ``hypot(int)``, ``abs(bool)``).
"""
import functools

import numpy as np

from minigrad._dtypes import get_default_dtype, wrapped_int
from minigrad.kernels.core import not_implemented_for, scalar_type_name
from minigrad._tensor import Tensor

#: PyTorch's order of dtype categories: bool < integer < floating < complex
CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(*values, wrap_ints=True):
    """``values`` with every Tensor among them cast to PyTorch's result dtype (None and
    Python numbers are returned as they are, numpy scalars as Python numbers: PyTorch
    takes ``np.float64(2.0)`` for the number 2.0, where numpy would make the result float64).
    With ``wrap_ints``, a Python int is wrapped into a narrow integer result dtype, as
    PyTorch casts it (``uint8 < -1`` compares with 255); ops that compute in floating point
    (``wrap_ints=False``) take the int as it is."""
    if len(values) == 2:  # the common case, kept quick: two tensors of one dtype
        a, b = values
        if isinstance(a, Tensor):
            if isinstance(b, Tensor):
                if a._data.dtype is b._data.dtype:
                    return values
            elif b.__class__ is float and a._data.dtype.kind == "f":
                return values
    target = result_dtype(values)
    if target is None:
        return values
    values = tuple(v.to(target) if isinstance(v, Tensor) and v._data.dtype != target
                   else v.item() if isinstance(v, np.generic) else v for v in values)
    if wrap_ints and target.kind in "iu" and target.itemsize < 8:
        values = tuple(wrapped_int(v, target) if type(v) is int else v for v in values)
    return values


def to_floating(*values):
    """``values`` with each integral or bool Tensor cast to the default dtype: PyTorch's
    rule for ops that compute floats (``sqrt``, ``sin``, true division ``int / int``),
    where numpy would give float64 (or float16 for bool)."""
    return tuple(v.to(get_default_dtype()) if isinstance(v, Tensor) and v._data.dtype.kind in "biu"
                 else v for v in values)


def refuse_dtypes(dtypes, message, *values):
    """Raise PyTorch's error where it has no kernel for these dtypes (``refuses:`` in the
    YAML): ``dtypes`` is "integral" (integers and bool), "bool", "integral_except_int64" or
    "half" (float16);
    ``message`` a kernel name (NotImplementedError ``"hypot_cpu" not implemented for
    'Long'``) or, with a space, a RuntimeError message with ``{dtype}`` (and ``{shape}``)
    in it.  The first refused input names the dtype."""
    for v in values:  # floating inputs, the common case, pass at the first test
        if isinstance(v, Tensor) and (v._data.dtype.kind in "biu" or dtypes == "half"):
            _refuse(dtypes, message, v._data.dtype, list(v._data.shape))


def refuse_bool_operand(message, *values):
    """PyTorch's refusal (RuntimeError ``message``) of a bool Tensor or a Python bool among
    operands that are not all bool (``x - mask``, ``1 - mask``); all bool is refused after
    promotion with the op's ``refuses`` message."""
    bools = [isinstance(v, bool) or isinstance(v, Tensor) and v._data.dtype.kind == "b"
             for v in values]
    if any(bools) and not all(bools):
        raise RuntimeError(message)


def refuse_result_dtype(dtypes, message, *values):
    """:func:`refuse_dtypes` for the dtype ``values`` promote to (``mse_loss(float, int)``
    computes in float; ``mse_loss(int, int)`` is refused)."""
    dtype = result_dtype(values)
    if dtype is not None:
        _refuse(dtypes, message, dtype)


_REFUSED = {"integral": lambda d: d.kind in "biu", "bool": lambda d: d.kind == "b",
            "integral_except_int64": lambda d: d.kind in "biu" and d != np.int64,  # avg_pool2d
            "half": lambda d: d == np.float16}


def _refuse(dtypes, message, dtype, shape=None):
    if _REFUSED[dtypes](dtype):
        name = scalar_type_name(dtype)
        if " " in message:
            raise RuntimeError(message.format(dtype=name, shape=shape))
        raise not_implemented_for(message, dtype)


def result_dtype(values):
    """The numpy dtype PyTorch's promotion gives ``values`` (None without any Tensor)."""
    dimensioned, zero_dim, scalar = [], [], -1
    for v in values:
        if isinstance(v, Tensor):
            (dimensioned if v._data.ndim else zero_dim).append(v._data.dtype)
        elif isinstance(v, (bool, np.bool_)):
            scalar = max(scalar, 0)
        elif isinstance(v, (int, np.integer)):
            scalar = max(scalar, 1)
        elif isinstance(v, (float, np.floating)):
            scalar = max(scalar, 2)
    result = _combine(dimensioned)
    zero = _combine(zero_dim)
    if zero is not None and (result is None or _category(zero) > _category(result)):
        result = zero
    if result is None:
        return None
    if scalar > _category(result):
        result = np.dtype(get_default_dtype()) if scalar == 2 else np.dtype(np.int64)
    return result


def _category(dtype):
    return CATEGORY.get(dtype.kind, 3)


def _combine(dtypes):
    """Within the highest category present, numpy's promotion (int32 + int64 -> int64)."""
    if not dtypes:
        return None
    top = max(_category(d) for d in dtypes)
    return functools.reduce(np.promote_types, [d for d in dtypes if _category(d) == top])
