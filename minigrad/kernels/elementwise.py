"""numpy building blocks for the elementwise ops' `forward:` expressions.

Special functions come from scipy.special: it is accurate over the whole
domain (erfinv near +-1, digamma near the poles, polygamma of any order),
which a few lines of numpy here would not be.
"""
import numpy as np

from minigrad._array import namespace_of, special_of
from minigrad._dtypes import get_default_dtype
from minigrad._dtypes import wrapped_int
from minigrad.kernels.core import result_type, special_of_any, xp_of
from minigrad.kernels.quiet import quietly


def _floating(x):
    """``x`` as an array of a floating dtype (integers and bools become float64, as
    torch promotes them to its default float type)."""
    x = namespace_of(x).asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


def _same_float(out, *inputs):
    """scipy may compute float32 in float64: give the result the inputs' float dtype."""
    kinds = [i.dtype for i in inputs if hasattr(i, "dtype") and not isinstance(i, np.generic)]
    want = np.result_type(*kinds) if kinds else np.dtype(np.float64)
    if want.kind not in "fc":
        want = np.dtype(np.float64)
    return namespace_of(out).asarray(out, dtype=want)


def pow_array(self, exponent):
    """``np.power``, with the exponents PyTorch computes without ``pow`` computed as it
    does (5-10x faster than ``np.power`` on large arrays): 2 and 3 as multiplications,
    -1 and -2 as ``1 / x`` and ``1 / (x * x)`` (PyTorch's bits), 0.5 and -0.5 as
    ``sqrt`` and ``1 / sqrt`` (so ``-0.0 ** 0.5`` is ``-0.0``, ``-inf ** 0.5`` is
    nan and ``-0.0 ** -0.5`` is ``-inf``, as PyTorch's)."""
    if (type(exponent) in (int, float)
            and (type(self) is np.ndarray or namespace_of(self) is not np)
            and self.dtype.kind == "f"):
        rewritten = _POWERS.get(exponent)
        if rewritten is not None:
            return quietly(rewritten, self)
    if getattr(self, "dtype", None) is not None and self.dtype.kind in "iu" or \
            getattr(exponent, "dtype", None) is not None and exponent.dtype.kind in "iu":
        return _integer_pow(self, exponent)
    return quietly(xp_of(self, exponent).power, self, exponent)


_C_INTS = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
           "int64": "int64_t", "bool": "bool"}


def _integer_pow(base, exponent):
    """PyTorch's integer powers: a Python exponent must fit the dtype and not be negative;
    a negative exponent in a tensor gives 1 for a base of 1, +-1 for -1, else 0 (numpy
    refuses it)."""
    dtype = getattr(base, "dtype", None) if getattr(base, "dtype", None) is not None \
        else exponent.dtype
    if type(exponent) is int:
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exponent > np.iinfo(dtype).max:
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_INTS[np.dtype(dtype).name]} without overflow")
    if type(base) is int and np.dtype(dtype).itemsize < 8:
        base = wrapped_int(base, dtype)   # 2 ** x: the base in x's dtype, as PyTorch casts it
    xp = xp_of(base, exponent)
    if type(exponent) is int or getattr(exponent, "dtype", np.dtype("f")).kind not in "iu":
        return quietly(xp.power, base, exponent)
    negative = exponent < 0
    out = quietly(xp.power, base, xp.where(negative, 0, exponent).astype(exponent.dtype))
    odd = (exponent % 2) != 0
    at_negative = xp.where(base == 1, 1, xp.where(base == -1, xp.where(odd, -1, 1), 0))
    return xp.where(negative, at_negative, out).astype(out.dtype)


def _square(x):
    return x * x


def _cube(x):
    return x * x * x


def _reciprocal(x):
    return namespace_of(x).reciprocal(x)


def _reciprocal_square(x):
    return namespace_of(x).reciprocal(x * x)


def _sqrt(x):
    return namespace_of(x).sqrt(x)


def _rsqrt(x):
    xp = namespace_of(x)
    return xp.reciprocal(xp.sqrt(x))


_POWERS = {2: _square, 3: _cube, -1: _reciprocal, -2: _reciprocal_square, 0.5: _sqrt,
           -0.5: _rsqrt}


def erf_array(x):
    return _same_float(special_of(x).erf(x), x)


def erfc_array(x):
    return _same_float(special_of(x).erfc(x), x)


def erfinv_array(x):
    return _same_float(special_of(x).erfinv(x), x)


def lgamma_array(x):
    return _same_float(special_of(x).gammaln(x), x)


def digamma_array(x):
    return _same_float(special_of(x).digamma(x), x)


def polygamma_array(n, x):
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got n={n}); "
                           "n must be a non-negative int")
    if n == 0:
        return digamma_array(x)
    xp = namespace_of(x)
    order = n if xp is np else xp.asarray(n)  # cupyx's polygamma takes n as an array only
    return _same_float(special_of(x).polygamma(order, x), x)


def xlogy_array(x, y):
    return _same_float(special_of_any(x, y).xlogy(x, y), x, y)


def logit_array(x, eps):
    x = _floating(x)
    xp = namespace_of(x)
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.log(x / (1 - x))


def clamp_array(x, min, max):
    """``clamp`` with scalar or array bounds; min > max gives max, as torch."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    xp = xp_of(x, min, max)
    if x.dtype.kind in "biu" and any(isinstance(b, float) for b in (min, max)):
        x = x.astype(get_default_dtype())  # int clamped to 0.5 is float32, as torch
    out = x
    # numpy's maximum(a, b) gives b on ties, PyTorch's clamp keeps x: clamp(-0.0, min=0) is -0.0
    if min is not None:
        out = xp.maximum(min, out)  # (min first: ties keep out's -0.0, as PyTorch)
    if max is not None:
        out = xp.minimum(max, out)
    return xp.asarray(out)


def round_array(x, decimals):
    # numpy rounds half to even, like torch
    xp = namespace_of(x)
    return xp.round(x, decimals) if decimals else xp.round(x)


def square_array(x):
    """torch.square: bools square to int64, as torch (numpy's square gives int8)."""
    return namespace_of(x).square(x.astype(np.int64) if x.dtype.kind == "b" else x)


def sign_array(x):
    """torch.sign: -1, 0 or 1, and 0 for NaN (numpy's sign gives NaN); a bool stays bool."""
    if x.dtype.kind == "b":  # numpy's sign has no bool loop
        return x.copy()
    out = np.sign(x)
    if out.dtype.kind == "f":
        nan = np.isnan(out)
        if nan.any():
            out = np.where(nan, 0, out).astype(out.dtype, copy=False)
    return out


def frac_array(x):
    return x - namespace_of(x).trunc(x)


def remainder_array(ufunc, self, other):
    """``np.remainder`` (Python's sign) or ``np.fmod`` (C's); an integer division by zero
    raises torch's error (numpy gives 0)."""
    if result_type(self, other).kind in "iub":
        xp = xp_of(self, other)
        if xp.any(xp.asarray(other) == 0):  # a host sync on a device: deliberate
            raise RuntimeError("ZeroDivisionError")  # torch's type and words
    return quietly(ufunc, self, other)


def div_array(self, other, rounding_mode):
    """``div(..., rounding_mode=None | 'trunc' | 'floor')`` with torch's semantics."""
    return quietly(_div, self, other, rounding_mode)  # x / 0 is inf or nan, silently


def _div(self, other, rounding_mode):
    xp = xp_of(self, other)
    integral = result_type(self, other).kind in "iub"
    if rounding_mode is None:  # true division: int / int is the default dtype, as torch
        out = xp.true_divide(self, other)
        return out.astype(get_default_dtype()) if integral else out
    if integral and xp.any(xp.asarray(other) == 0):  # a host sync on a device: deliberate
        raise RuntimeError("ZeroDivisionError")  # torch's type and words
    if rounding_mode == "floor":
        return xp.floor_divide(self, other)
    if rounding_mode == "trunc":
        if integral:
            q = xp.floor_divide(self, other)
            exact = xp.remainder(self, other) == 0
            return xp.where(exact | ((xp.asarray(self) < 0) == (xp.asarray(other) < 0)),
                            q, q + 1).astype(q.dtype)
        return xp.trunc(xp.true_divide(self, other))
    raise ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                     f"found '{rounding_mode}'")


def float_power_array(self, exponent):
    xp = xp_of(self, exponent)
    return quietly(xp.power, xp.asarray(self, dtype=np.float64),
                   xp.asarray(exponent, dtype=np.float64))


def lerp_array(self, end, weight):
    """torch's lerp: from the nearer end, so weight 1 gives exactly ``end``."""
    xp = xp_of(self, end, weight)
    diff = xp.subtract(end, self)
    small = xp.abs(weight) < 0.5
    return xp.where(small, self + weight * diff, end - diff * (1 - weight))


def addcmul_array(self, tensor1, tensor2, value):
    return self + value * (tensor1 * tensor2) if value != 1 else self + tensor1 * tensor2


def addcdiv_array(self, tensor1, tensor2, value):
    quotient = quietly(xp_of(tensor1, tensor2).true_divide, tensor1, tensor2)
    return self + value * quotient if value != 1 else self + quotient


def nan_to_num_array(x, nan, posinf, neginf):
    return namespace_of(x).nan_to_num(x, copy=True, nan=0.0 if nan is None else nan, posinf=posinf,
                         neginf=neginf)
