"""numpy building blocks for the reductions ops' `forward:` expressions."""
import math
import operator
import warnings

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import accumulate, axes, axes_of, scalar_type_name, stable_argsort
from minigrad.kernels.quiet import quietly


def reduce_axis(x, dim, op, needs_elements=False):
    """numpy's ``axis`` for torch's ``dim``, with torch's checks: dims in range (a 0-d
    tensor takes 0 and -1) and, for max/min/argmax (``needs_elements``), no empty
    reduction."""
    axis = axes(dim)
    if axis is None:
        if needs_elements and x.size == 0:
            raise (IndexError if op.startswith("arg") else RuntimeError)(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
                + ("" if op.startswith("arg") else " Specify the reduction dim with the 'dim' argument."))
        return None
    dims = (axis,) if isinstance(axis, (int, np.integer)) else axis
    size = max(x.ndim, 1)
    for d in dims:
        if not -size <= d < size:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-size}, {size - 1}], but got {d})")
    if x.ndim == 0:
        return None
    if needs_elements:
        for d in dims:
            if x.shape[d] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d % x.ndim} to have non-zero size.")
    return axis


def mean_array(x, dim, keepdim, dtype=None):
    """torch.mean: NaN, silently, over an empty dim; integers need a floating ``dtype``."""
    if dim is None and not keepdim and dtype is None and x.dtype.kind == "f":
        if x.__class__ is np.ndarray and x.dtype.itemsize <= 8:
            # (a loss's mean) the sum, a numpy scalar, divided as one: the true_divide
            # ufunc's result below, bit for bit, for a third of its cost
            return np.asarray(quietly(operator.truediv, np.add.reduce(x, axis=None), x.size))
        axis, count = None, x.size   # (nothing to check or convert)
    else:
        which = "Input" if dtype is None else "Optional"
        kind = np.dtype(x.dtype if dtype is None else dtype).kind
        if kind not in "fc":
            raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be "
                               "either a floating point or complex dtype. Got: "
                               f"{scalar_type_name(x.dtype if dtype is None else dtype)}")
        axis = reduce_axis(x, dim, "mean")
        if dtype is not None:
            x = x.astype(dtype)
        count = x.size if axis is None else math.prod(
            x.shape[d] for d in ((axis,) if isinstance(axis, (int, np.integer)) else axis))
    xp = namespace_of(x)
    total = xp.add.reduce(x, axis=axis, keepdims=keepdim and x.ndim > 0)
    return xp.asarray(quietly(xp.true_divide, total, count),
                      dtype=x.dtype if x.dtype.kind == "f" else np.float64)


def extreme_array(reduce, x, dim, keepdim, op):
    """amax/amin/max/min over ``dim`` (torch refuses an empty reduction)."""
    axis = reduce_axis(x, dim, op, needs_elements=True)
    return reduce(x, axis=axis, keepdims=keepdim and x.ndim > 0)


def prod_array(x, dim, keepdim, dtype=None):
    xp = namespace_of(x)
    if dim is None:
        out = xp.prod(x, dtype=dtype)
        return out.reshape((1,) * x.ndim) if keepdim else out
    return xp.prod(x, axis=axes_of(x, dim), keepdims=keepdim, dtype=dtype)


def var_array(x, dim, correction, keepdim, name="var"):
    """torch.var: ``correction`` (default 1) is subtracted from the element count."""
    ddof = 1 if correction is None else correction
    if x.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    axis = reduce_axis(x, dim, name)
    count = x.size if axis is None else math.prod(
        x.shape[d] for d in ((axis,) if isinstance(axis, (int, np.integer)) else axis))
    if count - ddof <= 0:
        from minigrad.autograd._user import user_stacklevel
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=user_stacklevel())
    xp = namespace_of(x)
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty dim gives NaN silently
        centred = x - xp.add.reduce(x, axis=axis, keepdims=True) / count
        total = xp.sum(centred * centred, axis=axis, keepdims=keepdim and x.ndim > 0)
        return xp.true_divide(total, max(count - ddof, 0)).astype(x.dtype, copy=False)


def unbiased_correction(unbiased):
    """torch's ``unbiased`` flag as a ``correction``."""
    return 1 if unbiased else 0


def std_array(x, dim, correction, keepdim):
    var = var_array(x, dim, correction, keepdim, "std")
    return namespace_of(var).sqrt(var)


def reduction_norm_array(x, p, dim, keepdim):
    """torch.norm: 'fro' (the 2-norm over ``dim``) or a vector p-norm over ``dim``."""
    if x.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name(x.dtype)}")
    if p == "nuc":
        raise NotImplementedError("minigrad.norm does not support p='nuc' (the nuclear norm "
                                  "needs singular values); use p='fro' or a number.")
    if isinstance(p, str) and p != "fro":
        raise ValueError(f"norm: unknown p {p!r}; use 'fro' or a number (inf and 0 included).")
    p = 2.0 if p is None or p == "fro" else float(p)
    axis = axes(dim)
    xp = namespace_of(x)
    a = xp.abs(x)
    if p == math.inf:
        out = xp.amax(a, axis=axis, keepdims=keepdim)
    elif p == -math.inf:
        out = xp.amin(a, axis=axis, keepdims=keepdim)
    elif p == 0:
        out = xp.sum(a != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    else:
        out = xp.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return xp.asarray(out, dtype=x.dtype)


def argmax_array(x, dim, keepdim):
    return _arg_extremum("argmax", x, dim, keepdim)


def argmin_array(x, dim, keepdim):
    return _arg_extremum("argmin", x, dim, keepdim)


def _arg_extremum(op, x, dim, keepdim):
    reduce_axis(x, dim, op, needs_elements=True)
    xp = namespace_of(x)
    if dim is None or x.ndim == 0:
        out = xp.asarray(getattr(xp, op)(x))
        return out.reshape((1,) * x.ndim) if keepdim else out
    return getattr(xp, op)(x, axis=dim, keepdims=keepdim)


def cumprod_array(x, dim, dtype=None):
    dtype = _running_dtype(x, dtype)
    return namespace_of(x).cumprod(x, axis=dim, dtype=dtype) if x.ndim else _of_0d(x, dim, dtype)


def cumsum_array(x, dim, dtype=None):
    dtype = _running_dtype(x, dtype)
    out = namespace_of(x).cumsum(x, axis=dim, dtype=dtype) if x.ndim else _of_0d(x, dim, dtype)
    if out.dtype.kind == "f":
        out += 0.0  # PyTorch's sums start from +0.0: a running sum of -0.0s is +0.0
    return out


def _running_dtype(x, dtype):
    """PyTorch's running sums and products of integers and bools are int64 (numpy's of
    uint8 are uint64)."""
    return np.int64 if dtype is None and x.dtype.kind in "biu" else dtype


def _of_0d(x, dim, dtype=None):
    """A 0-d tensor along ``dim``: itself, for dim 0 or -1 only (PyTorch's range)."""
    if dim not in (0, -1):
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{dim})")
    return x.astype(dtype or x.dtype)


def _logical_axes(dim):
    # torch.any/all reduce nothing for dim=() (unlike sum, amax, ... which reduce all)
    return dim if dim is None or isinstance(dim, (int, np.integer)) else tuple(dim)


def any_array(x, dim, keepdim):
    return namespace_of(x).any(x, axis=_logical_axes(dim), keepdims=keepdim)


def all_array(x, dim, keepdim):
    return namespace_of(x).all(x, axis=_logical_axes(dim), keepdims=keepdim)


def _positions(x, dim):
    """0, 1, ..., n-1 along ``dim``, shaped to broadcast against ``x``."""
    n = x.shape[dim]
    return namespace_of(x).arange(n).reshape(tuple(n if i == dim % x.ndim else 1 for i in range(x.ndim)))


def _cumulative_extremum(x, dim, ufunc_name):
    xp = namespace_of(x)
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=np.int64)
    values = accumulate(ufunc_name, x, dim)
    # a position that reaches (or ties) the running extremum becomes its index: ties
    # take the last one, as torch does; a NaN is the extremum from there on, its index
    # that of the last NaN so far
    reached = (x == values) | (x != x)
    indices = accumulate("maximum", xp.where(reached, _positions(x, dim), 0), dim)
    return values, indices.astype(np.int64)


def cummax_array(x, dim):
    return _cumulative_extremum(x, dim, "maximum")


def cummin_array(x, dim):
    return _cumulative_extremum(x, dim, "minimum")


def median_array(x):
    """torch.median(x): the lower of the two middle values."""
    if x.size == 0:
        raise RuntimeError("median() of an empty tensor is undefined (torch returns nan); "
                           "check the input's size first.")
    xp = namespace_of(x)
    if xp.isnan(x).any():  # a host sync on a device
        return xp.array(np.nan, dtype=x.dtype)  # torch: a NaN anywhere makes the median NaN
    return xp.sort(x.reshape(-1))[(x.size - 1) // 2]


def median_with_indices(x, dim, keepdim):
    xp = namespace_of(x)
    if x.ndim == 0:
        return _of_0d(x, dim), xp.zeros((), dtype=np.int64)
    order = stable_argsort(x, dim)
    k = (x.shape[dim] - 1) // 2
    indices = xp.take(order, xp.asarray([k]), axis=dim)
    nans = xp.isnan(x)
    if nans.any():  # torch: a slice with a NaN has median NaN, at its first NaN
        has_nan = nans.any(axis=dim, keepdims=True)
        first_nan = xp.argmax(nans, axis=dim, keepdims=True)
        indices = xp.where(has_nan, first_nan, indices)
    values = xp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=dim), xp.squeeze(indices, axis=dim)
    return values, indices.astype(np.int64)


def nanmedian_array(x):
    """torch.nanmedian(x): the lower middle of the values that are not NaN (NaN if all are)."""
    xp = namespace_of(x)
    flat = x.reshape(-1)
    kept = flat[~xp.isnan(flat)] if x.dtype.kind == "f" else flat
    if kept.size == 0:
        return xp.array(np.nan, dtype=x.dtype) if x.dtype.kind == "f" else flat[:1].reshape(())
    return xp.sort(kept)[(kept.size - 1) // 2]


def nanmedian_with_indices(x, dim, keepdim):
    """torch.nanmedian(x, dim): per slice, the lower middle of the values that are not NaN
    (a stable sort puts the NaNs last), at its index; a slice of NaNs gives its first."""
    xp = namespace_of(x)
    if x.ndim == 0:
        return _of_0d(x, dim), xp.zeros((), dtype=np.int64)
    order = stable_argsort(x, dim)
    counts = (~xp.isnan(x)).sum(axis=dim, keepdims=True) if x.dtype.kind == "f" else \
        xp.full(x.shape[:dim % x.ndim] + (1,) + x.shape[dim % x.ndim + 1:], x.shape[dim])
    middle = xp.maximum((counts - 1) // 2, 0)
    indices = xp.take_along_axis(order, middle, axis=dim)
    values = xp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=dim), xp.squeeze(indices, axis=dim)
    return values, indices.astype(np.int64)


def aminmax_array(x, dim, keepdim):
    xp = namespace_of(x)
    return xp.amin(x, axis=dim, keepdims=keepdim), xp.amax(x, axis=dim, keepdims=keepdim)


def var_mean_array(x, dim, correction, keepdim):
    return (var_array(x, dim, correction, keepdim),
            namespace_of(x).mean(x, axis=axes(dim), keepdims=keepdim))


def std_mean_array(x, dim, correction, keepdim):
    return (std_array(x, dim, correction, keepdim),  # (var_mean / std_mean warn as var / std)
            namespace_of(x).mean(x, axis=axes(dim), keepdims=keepdim))


def count_nonzero_array(x, dim):
    xp = namespace_of(x)
    return xp.asarray(xp.count_nonzero(x, axis=axes(dim)), dtype=np.int64)


def nanmean_array(x, dim, keepdim, dtype=None):
    if x.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {scalar_type_name(x.dtype)}")
    xp = namespace_of(x)
    with np.errstate(invalid="ignore"):  # an all-NaN slice is NaN, as in torch
        total = xp.nansum(x, axis=axes(dim), keepdims=keepdim, dtype=dtype)
        count = xp.sum(~xp.isnan(x), axis=axes(dim), keepdims=keepdim)
        return xp.asarray(total / count, dtype=total.dtype)


def logcumsumexp_array(x, dim):
    # (on CuPy a prefix scan, which like the running sum keeps finite values finite: the
    # backward's "log of zero" relies on that)
    return accumulate("logaddexp", x, dim) if x.ndim else x.copy()
