"""Formula helpers for the reductions ops (see formulas/__init__.py for the rules).

The products (``prod``, ``cumprod``) follow PyTorch's FunctionsManual: a cheap
``result / self`` formula when no input is zero, and a division-free one otherwise
that is exact at zeros and stays differentiable (second order is checked).
"""
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import (array_of, normalize_dims, ops_for, reduced_numel,
                                             unreduce, values_of)
from minigrad import _tensor  # a module: read at call time (import cycle)


# ------------------------------------------------------------------ small pieces
def _constant(like, array):
    """``array`` as the same kind of value as ``like`` (a constant: no graph)."""
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    array = namespace_of(array_of(like)).asarray(array, dtype=like.dtype)
    return _wrap(array) if isinstance(like, Tensor) else array


def _values(x):
    """The values of a Tensor read in Python (``values_of``), or the array itself."""
    return values_of(x)


def _has_zero(x):
    return bool((_values(x) == 0).any())


def _slice(x, dim, start, stop, step=None):
    return ops_for(x).getitem(x, (slice(None),) * dim + (slice(start, stop, step),))


def flip_dim(x, dim):
    """``x`` reversed along ``dim`` (a differentiable view through getitem)."""
    return _slice(x, dim % x.ndim, None, None, -1)


def reversed_cumsum(x, dim):
    """out[j] = sum_{i >= j} x[i] along ``dim``: the adjoint of cumsum."""
    F = ops_for(x)
    return flip_dim(F.cumsum(flip_dim(x, dim), dim), dim)


def cast_to(x, dtype):
    """``x`` as ``dtype``: a reduction computed in another ``dtype=`` hands its input's
    gradient back in the input's own dtype (differentiably, through _to_copy)."""
    if x.dtype == dtype:
        return x
    return ops_for(x)._to_copy(x, dtype)


# ------------------------------------------------------------------ scans
def cumsum_backward(grad, dim):
    if grad.ndim == 0:
        return grad
    return reversed_cumsum(grad, dim % grad.ndim)


def cumprod_backward(grad, self, dim, result):
    """d cumprod: O(n) when no input is zero; else the exact O(n^2) form (as torch does
    under grad mode), built from cumprod itself so that it is differentiable again."""
    F = ops_for(grad)
    if self.ndim == 0 or self.shape[dim] <= 1:
        return grad
    dim = dim % self.ndim
    if not _has_zero(self):
        return reversed_cumsum(result * grad, dim) / self
    if not isinstance(grad, _tensor.Tensor):  # a plain backward: no graph, O(n) suffices
        return _cumprod_backward_zeros_array(grad, self, dim, result)
    n, shape = self.shape[dim], tuple(self.shape)
    xp = namespace_of(array_of(self))
    k = xp.arange(n).reshape((n,) + (1,) * len(shape))                # which input
    j = xp.arange(n).reshape((1,) + tuple(n if i == dim else 1 for i in range(len(shape))))
    # left_out[k, ..., j, ...] = x[..., j, ...] except 1 at j == k, so its cumprod along
    # j is prod_{i <= j, i != k} x_i = d y_j / d x_k for j >= k.
    left_out = F.where(k == j, 1.0, F.expand(F.unsqueeze(self, 0), (n,) + shape))
    partials = F.cumprod(left_out, dim + 1)
    weights = F.where(j >= k, F.unsqueeze(grad, 0), 0.0)
    g = F.sum(partials * weights, dim + 1)                             # (n, rest...)
    return F.permute(g, tuple(range(1, dim + 1)) + (0,) + tuple(range(dim + 1, len(shape))))


def _cumprod_backward_zeros_array(grad, x, dim, result):
    """PyTorch's O(n) cumprod gradient for inputs with zeros (numpy only, not
    differentiable).  Along ``dim``, with z1 and z2 the first two zeros: inputs before
    z1 get the usual formula, the one at z1 gets prod(x[:z1]) * sum_{z1<=j<z2}
    grad_j * prod(x[z1+1:j+1]), and those after z1 get nothing."""
    xp = namespace_of(x)
    is_zero = x == 0
    zeros_so_far = xp.cumsum(is_zero, axis=dim)
    before = zeros_so_far == 0
    tail = xp.flip(xp.cumsum(xp.flip(xp.where(before, result * grad, 0), dim), axis=dim), dim)
    out = xp.where(before, tail / xp.where(before, x, 1), 0)
    first = is_zero & (zeros_so_far == 1)
    prefix = xp.prod(xp.where(before, x, 1), axis=dim, keepdims=True)
    after_first = xp.cumprod(xp.where((zeros_so_far == 1) & ~first, x, 1), axis=dim)
    between = xp.sum(xp.where(zeros_so_far == 1, grad * after_first, 0), axis=dim, keepdims=True)
    return xp.where(first, prefix * between, out).astype(grad.dtype, copy=False)


def logcumsumexp_backward(grad, self, result, dim):
    """PyTorch's logcumsumexp backward: the positive and negative parts of ``grad``
    carried in log space by reversed logcumsumexps, so nothing overflows; built from
    logcumsumexp itself, so it is differentiable again."""
    F = ops_for(grad)
    if self.ndim == 0:
        return grad
    dim = dim % self.ndim
    # "log of zero": finite (-inf would give inf - inf), with headroom so adding never overflows
    lowest = float(np.finfo(np.result_type(self.dtype, np.float32)).min) / 8
    log_abs = F.log(F.where(grad == 0, 1.0, F.abs(grad)))
    positive = F.where(grad > 0, log_abs, lowest)
    negative = F.where(grad < 0, log_abs, lowest)

    def reversed_logcumsumexp(x):
        return flip_dim(F.logcumsumexp(flip_dim(x, dim), dim), dim)
    return (F.exp(reversed_logcumsumexp(positive - result) + self)
            - F.exp(reversed_logcumsumexp(negative - result) + self))


# ------------------------------------------------------------------ prod
def prod_safe_zeros_backward(grad, x, dim):
    """grad * prod_{i != k} x_i along ``dim`` without dividing (exclusive cumprods)."""
    F = ops_for(grad)
    n = x.shape[dim]
    if n == 0:
        return F.expand(grad, x.shape) * 0.0
    ones = _constant(x, namespace_of(array_of(x)).ones(
        tuple(1 if i == dim else s for i, s in enumerate(x.shape))))
    before = F.cumprod(F.cat([ones, _slice(x, dim, 0, n - 1)], dim), dim)
    after = flip_dim(F.cumprod(F.cat([ones, flip_dim(_slice(x, dim, 1, n), dim)], dim), dim), dim)
    return grad * before * after


def prod_backward(grad, self, result, dim, keepdim):
    F = ops_for(grad)
    if self.ndim == 0:
        return grad
    if dim is None:
        if not _has_zero(self):
            return F.reshape(grad * result, (1,) * self.ndim) / self
        flat = F.reshape(self, (-1,))
        g = prod_safe_zeros_backward(F.reshape(grad, (1,)), flat, 0)
        return F.reshape(g, self.shape)
    dim = dim % self.ndim
    if not keepdim:
        grad, result = F.unsqueeze(grad, dim), F.unsqueeze(result, dim)
    if not _has_zero(self):
        return grad * result / self
    return prod_safe_zeros_backward(grad, self, dim)


# ------------------------------------------------------------------ moments and norms
def var_backward(grad, self, dim, correction, keepdim):
    F = ops_for(self)
    c = 1 if correction is None else correction
    n = reduced_numel(self.shape, dim)
    if (dim is None or self.ndim == 0) and n <= c:
        # PyTorch's full reduction without degrees of freedom: inf, or NaN (inf * 0) where
        # an element equals the mean -- a constant factor, so its second order is 0
        a = values_of(self) if isinstance(self, _tensor.Tensor) else np.asarray(self)
        factor = np.where(a == np.mean(a), math.nan, math.inf)
        return grad * _constant(self, factor)
    centred = self - F.mean(self, dim, True)
    # n <= correction: PyTorch's 2 / (n - c) is inf (or negative), not a ZeroDivisionError
    factor = 2.0 / (n - c) if n != c else math.inf
    return unreduce(grad, self.shape, dim) * centred * factor


def unbiased_correction(unbiased):
    """torch's ``unbiased`` flag as a ``correction``."""
    return 1 if unbiased else 0


def std_backward(grad, self, result, dim, correction, keepdim):
    """PyTorch's: a slice with zero spread (std 0) gets gradient 0, not 0/0.  (Its second
    order there is NaN, as PyTorch's: the masked branch still divides by 0.)"""
    F = ops_for(self)
    return var_backward(F.where(result == 0, 0.0, grad / (2 * result)), self, dim, correction,
                        keepdim)


def reduction_norm_backward(grad, self, p, result, dim):
    """torch.norm backward (PyTorch's norm_backward), p in 'fro', 0, 1, 2, inf, -inf, any."""
    F = ops_for(grad)
    p = 2.0 if p is None or p == "fro" else float(p)
    g, r = unreduce(grad, self.shape, dim), unreduce(result, self.shape, dim)
    if math.isinf(p):
        mask = (F.abs(self) == r) * 1.0
        dims = normalize_dims(dim, self.ndim)
        count = unreduce(F.sum(mask, dims, True), self.shape, dim)
        return F.sign(self) * g * mask / count
    return finite_norm_grad(g, self, r, p)


def finite_norm_grad(g, x, r, p):
    """PyTorch's norm_backward for a finite order ``p``, with ``g`` and the norm ``r``
    unreduced to ``x``'s dims.  Where the norm is 0 the gradient is 0 (a subgradient),
    selected after the division as PyTorch selects, so that the second order there is
    NaN as PyTorch's (the norm has no second derivative at 0)."""
    F = ops_for(g)
    if p == 0:
        return F.expand(g, x.shape) * 0.0
    if p == 1:
        return g * F.sign(x)
    if p == 2:
        return g * F.where(r == 0, 0.0, x / r)
    if p < 1:
        scaled = F.sign(x) * F.where(x == 0, 0.0, F.pow(F.abs(x), p - 1))
        return scaled * g * F.pow(r, 1 - p)
    scaled = F.sign(x) * F.pow(F.abs(x), p - 1) if p < 2 else x * F.pow(F.abs(x), p - 2)
    return scaled * F.where(r == 0, 0.0, g / F.pow(r, p - 1))


# ------------------------------------------------------------------ value-selecting reductions
def cumulative_extremum_backward(grad, dim, indices, shape):
    """cummax/cummin: each output's gradient goes back to the input it copied."""
    if len(shape) == 0:
        return grad
    return ops_for(grad).gather_backward(grad, dim, indices, shape)


# ------------------------------------------------------------------ NaN-ignoring reductions
def _nan_mask(x):
    data = _values(x)
    return namespace_of(data).isnan(data)


def nansum_backward(grad, self, dim):
    """The sum's gradient, zero at the NaNs it skipped."""
    return ops_for(grad).where(_nan_mask(self), 0.0, unreduce(grad, self.shape, dim))


def nanmean_backward(grad, self, dim):
    """The mean's gradient over the non-NaN entries of each slice, zero at the NaNs."""
    nan = _nan_mask(self)
    dims = normalize_dims(dim, self.ndim)
    xp = namespace_of(nan)
    count = xp.sum(~nan, axis=dims, keepdims=True) if dims else (~nan).astype(np.int64)
    share = unreduce(grad, self.shape, dim) / _constant(grad, xp.maximum(count, 1))
    return ops_for(grad).where(nan, 0.0, share)
