"""numpy building blocks for the reductions ops' `forward:` expressions."""
import math

import numpy as np

from minigrad.kernels.core import axes


def prod_array(x, dim, keepdim, dtype=None):
    if dim is None:
        out = np.prod(x, dtype=dtype)
        return out.reshape((1,) * x.ndim) if keepdim else out
    return np.prod(x, axis=dim, keepdims=keepdim, dtype=dtype)


def var_array(x, dim, correction, keepdim):
    """torch.var: ``correction`` (default 1) is subtracted from the element count."""
    ddof = 1 if correction is None else correction
    count = x.size if axes(dim) is None else math.prod(
        x.shape[d] for d in ((dim,) if isinstance(dim, int) else dim))
    with np.errstate(divide="ignore", invalid="ignore"):
        centred = x - np.mean(x, axis=axes(dim), keepdims=True)
        total = np.sum(centred * centred, axis=axes(dim), keepdims=keepdim)
        return np.true_divide(total, max(count - ddof, 0)).astype(x.dtype, copy=False)


def unbiased_correction(unbiased):
    """torch's ``unbiased`` flag as a ``correction``."""
    return 1 if unbiased else 0


def std_array(x, dim, correction, keepdim):
    return np.sqrt(var_array(x, dim, correction, keepdim))


def norm_array(x, p, dim, keepdim):
    """torch.norm: 'fro' (the 2-norm over ``dim``) or a vector p-norm over ``dim``."""
    if p == "nuc":
        raise NotImplementedError("minigrad.norm does not support p='nuc' (the nuclear norm "
                                  "needs singular values); use p='fro' or a number.")
    if isinstance(p, str) and p != "fro":
        raise ValueError(f"norm: unknown p {p!r}; use 'fro' or a number (inf and 0 included).")
    p = 2.0 if p is None or p == "fro" else float(p)
    axis = axes(dim)
    a = np.abs(x)
    if p == math.inf:
        out = np.amax(a, axis=axis, keepdims=keepdim)
    elif p == -math.inf:
        out = np.amin(a, axis=axis, keepdims=keepdim)
    elif p == 0:
        out = np.sum(a != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    else:
        out = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(out, dtype=x.dtype)


def argmax_array(x, dim, keepdim):
    if dim is None:
        out = np.argmax(x)
        return np.asarray(out).reshape((1,) * x.ndim) if keepdim else np.asarray(out)
    return np.argmax(x, axis=dim, keepdims=keepdim)


def argmin_array(x, dim, keepdim):
    if dim is None:
        out = np.argmin(x)
        return np.asarray(out).reshape((1,) * x.ndim) if keepdim else np.asarray(out)
    return np.argmin(x, axis=dim, keepdims=keepdim)


def cumprod_array(x, dim, dtype=None):
    return np.cumprod(x, axis=dim, dtype=dtype) if x.ndim else x.astype(dtype or x.dtype)


def cumsum_array(x, dim, dtype=None):
    return np.cumsum(x, axis=dim, dtype=dtype) if x.ndim else x.astype(dtype or x.dtype)


def _logical_axes(dim):
    # torch.any/all reduce nothing for dim=() (unlike sum, amax, ... which reduce all)
    return dim if dim is None or isinstance(dim, (int, np.integer)) else tuple(dim)


def any_array(x, dim, keepdim):
    return np.any(x, axis=_logical_axes(dim), keepdims=keepdim)


def all_array(x, dim, keepdim):
    return np.all(x, axis=_logical_axes(dim), keepdims=keepdim)
