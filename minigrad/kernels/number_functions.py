"""numpy building blocks for elementwise number functions: gcd, lcm (integers), frexp,
ldexp and nextafter (floating point), with PyTorch's dtypes and refusals."""
import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import scalar_type_name


def _integers_only(name, x):
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{scalar_type_name(x.dtype)}'")


def gcd_array(x, other):
    """The greatest common divisor (non-negative; gcd(0, 0) = 0)."""
    _integers_only("gcd", x)
    return namespace_of(x).gcd(x, other).astype(x.dtype, copy=False)


def lcm_array(x, other):
    """The least common multiple (non-negative; 0 when either is 0)."""
    _integers_only("lcm", x)
    return namespace_of(x).lcm(x, other).astype(x.dtype, copy=False)


def frexp_array(x):
    """The mantissa (of ``x``'s dtype, 0.5 <= |m| < 1) and the exponent (int32)."""
    if x.dtype.kind not in "fc":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = namespace_of(x).frexp(x)
    return mantissa, exponent.astype(np.int32)


def ldexp_array(x, other):
    """``x * 2 ** other`` (both floating, of one dtype, by then)."""
    return x * namespace_of(x).exp2(other)


def nextafter_array(x, other):
    """The next floating-point value after ``x`` towards ``other``."""
    return namespace_of(x).nextafter(x, other)
