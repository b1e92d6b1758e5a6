"""Formula helpers for the elementwise ops (see formulas/__init__.py for the rules).

The masks below are piecewise constant in the inputs, so they are built from the
values as constants (no graph): their derivative is zero everywhere it exists.
"""
import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import array_of, ops_for, values_of  # noqa: F401
from minigrad.kernels.quiet import quietly
from minigrad import _tensor  # a module: read at call time (import cycle)


def _data(x):
    """The values of a Tensor (``values_of``: a mask's, read in Python); a Python number
    as a numpy scalar (typed as a 0-d array is, and, unlike a host array, usable with
    arrays of any device)."""
    if isinstance(x, (bool, int, float, complex)):
        return np.asarray(x)[()]
    return values_of(x)


def _array(x):
    """``array_of``, a Python number as a numpy scalar (for its dtype: no values read)."""
    return np.asarray(x)[()] if isinstance(x, (bool, int, float, complex)) else array_of(x)


def _constant(array, like):
    """``array`` as the kind of value ``like`` is (a graph-free Tensor, or an array), on
    ``like``'s device (a mask from Python numbers is a numpy scalar until here)."""
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    array = namespace_of(_array(like)).asarray(array)
    return _wrap(array) if isinstance(like, Tensor) else array


def _float_dtype(*values):
    dtype = np.result_type(*[_array(v).dtype for v in values])
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def zeros_shaped(grad, shape):
    """A constant zero gradient of ``shape`` in ``grad``'s dtype (torch's new_zeros)."""
    data = _array(grad)
    return _constant(namespace_of(data).zeros(tuple(shape), dtype=data.dtype), grad)


def masked(grad, mask):
    """``grad`` where ``mask`` is nonzero, times the mask there, and 0 elsewhere.

    Selected, not multiplied: PyTorch's masks select, and ``inf * 0`` would be NaN
    (``sqrt(relu(x))`` at x < 0 has gradient 0, not NaN)."""
    F = ops_for(grad)
    m = _data(mask)
    if m.dtype != bool and not ((m == 0) | (m == 1)).all():
        grad = grad * mask  # fractional shares (ties of maximum/minimum)
    return F.where(m != 0, grad, 0.0)


def safe_reciprocal(x):
    """``1 / x`` with 0 where ``x`` is 0: PyTorch's atan2 backward at the origin (whose
    second derivative there stays NaN, as PyTorch's: the masked branch still divides)."""
    F = ops_for(x)
    return F.where(_data(x) == 0, 0.0, 1.0 / x)


def evenly_distribute(grad, x, value):
    """median(), max() and min() backward (PyTorch's evenly_distribute_backward): the
    gradient is shared by the elements equal to the value, or by the NaNs when it is NaN."""
    F = ops_for(grad)
    a, v = _data(x), _data(value)
    xp = namespace_of(a)
    mask = xp.isnan(a) if xp.isnan(v) else a == v
    return F.where(mask, grad / float(mask.sum()), 0.0)


def extremum_share(x, y, x_wins):
    """Share of ``grad`` that ``x`` gets in maximum/minimum(x, y), as torch:
    1 where x wins (or either is NaN), 0.5 at ties, 0 where x loses.
    ``x_wins`` is "gt" for maximum, "lt" for minimum."""
    a, b = _data(x), _data(y)
    loses = a < b if x_wins == "gt" else a > b
    share = 1.0 - loses - 0.5 * (a == b)
    return _constant(share.astype(_float_dtype(x, y)), x)


def fmax_mask(x, y, pick):
    """fmax/fmin: ``self`` takes the gradient where it is chosen (ties and a NaN
    ``other`` included), ``other`` elsewhere.  ``pick`` is "ge" (fmax) or "le" (fmin);
    returns the mask for ``self``."""
    a, b = _data(x), _data(y)
    chosen = (a >= b) if pick == "ge" else (a <= b)
    return _constant((chosen | namespace_of(b).isnan(b)).astype(_float_dtype(x, y)), x)


def fmax_other_mask(x, y, pick):
    a, b = _data(x), _data(y)
    chosen = (a >= b) if pick == "ge" else (a <= b)
    return _constant((~(chosen | namespace_of(b).isnan(b))).astype(_float_dtype(x, y)), y)


def clamp_tensor_masks(x, min, max, which):
    """clamp.Tensor backward masks (torch's clamp_backward / clamp_backward_min_max).

    ``which`` = "self": 1 where min <= x <= max;  "min": 1 where x < min (and
    min < max when both bounds are given);  "max": 1 where x > max, or max < min
    (then the result is max everywhere)."""
    a = _data(x)
    lo = None if min is None else _data(min)
    hi = None if max is None else _data(max)
    if which == "self":
        mask = namespace_of(a).ones(a.shape, dtype=bool)
        if lo is not None:
            mask = mask & (a >= lo)
        if hi is not None:
            mask = mask & (a <= hi)
    elif which == "min":
        mask = a < lo
        if hi is not None:
            mask = mask & (lo < hi)
    else:
        mask = a > hi
        if lo is not None:
            mask = mask | (hi < lo)
    like = x if which == "self" else (min if which == "min" else max)
    return _constant(mask.astype(_float_dtype(x)), like)


def finite_mask(x):
    """1 where ``x`` is finite (nan_to_num passes the gradient only there)."""
    a = _data(x)
    return _constant(namespace_of(a).isfinite(a).astype(_float_dtype(x)), x)


def logit_grad(grad, x, eps):
    """torch's logit backward: 1/(x(1-x)); zero outside [eps, 1-eps] when eps is
    given, NaN outside [0, 1] when it is not."""
    F = ops_for(grad)
    a = _data(x)
    if eps is None:
        outside = (a < 0) | (a > 1)
        fill = np.nan
    else:
        outside = (a < eps) | (a > 1 - eps)
        fill = 0.0
    d = grad / (x * (1 - x))
    if not outside.any():
        return d
    return F.where(_constant(outside, grad), fill, d)


def sinc_grad(grad, x):
    """d sinc(x)/dx = (cos(pi x) - sinc(x)) / x, and 0 at x = 0 (as torch)."""
    F = ops_for(x)
    zero = _constant(_data(x) == 0, x)
    safe = F.where(zero, 1.0, x)  # no 0/0 in the branch that where() discards
    pix = safe * np.pi
    d = (F.cos(pix) * pix - F.sin(pix)) / (pix * safe)
    return F.where(zero, 0.0, grad * d)


def pow_grad_self(grad, x, exponent):
    """torch's pow_backward_self: exponent * x**(exponent-1), and 0 where exponent == 0
    (a constant zero for a number exponent 0, as torch's pow_backward: no graph, so no
    NaN from 0 * x**-1 at x == 0 in second order)."""
    F = ops_for(grad)
    if type(exponent) in (int, float) and exponent == 0:
        return zeros_shaped(grad, np.shape(_array(grad)))
    e = _data(exponent)
    d = grad * exponent * F.pow(x, exponent - 1)
    if not (e == 0).any():
        return d
    return F.where(_constant(e == 0, grad), 0.0, d)


def pow_grad_exponent(grad, x, exponent, result):
    """torch's pow_backward_exponent: result * log(x), and 0 where x == 0 and exponent >= 0
    (selected after the log, as PyTorch's, so its second order there is NaN as PyTorch's)."""
    F = ops_for(grad)
    a, e = _data(x), _data(exponent)
    zero = (a == 0) & (e >= 0)
    if not zero.any():
        if isinstance(x, (int, float)):  # a Python base: its log is a constant on grad's device
            return grad * result * _constant(quietly(np.log, float(x)), grad)
        return grad * (result * F.log(x))
    return grad * F.where(_constant(zero, grad), 0.0, result * F.log(x))


def xlogy_grad_self(grad, x, y):
    """torch: xlogy(grad, y), with 0 where x == 0 and y <= 0."""
    F = ops_for(grad)
    mask = (_data(x) == 0) & (_data(y) <= 0)
    d = F.xlogy(grad, y)
    if not mask.any():
        return d
    return F.where(_constant(mask, grad), 0.0, d)
