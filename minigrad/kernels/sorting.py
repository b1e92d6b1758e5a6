"""Sorting and order statistics: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``.

PyTorch's order: NaN counts as larger than every number (last ascending, first
descending), and ties keep their original order (the stable sort torch uses when
asked, and what its CPU sort gives).
"""
import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import stable_argsort
from minigrad.kernels.shape import _wrap_dim

__all__ = ["sort_with_indices", "argsort_array", "msort_array", "topk_array", "kthvalue_array"]


def _order(x, dim, descending):
    """Stable ordering indices along ``dim`` (an int64 array shaped like ``x``)."""
    xp = namespace_of(x)
    if x.ndim == 0:
        return xp.zeros((), np.int64)
    if not descending:
        return stable_argsort(x, dim).astype(np.int64)
    if x.dtype.kind == "f":
        key = xp.where(xp.isnan(x), -np.inf, -x)  # NaNs first, ahead of -(+inf)
        nan_first = ~xp.isnan(x)                  # False (0) for NaN sorts before True
        if xp is np:
            moved = np.moveaxis(key, dim, -1), np.moveaxis(nan_first, dim, -1)
            order = np.lexsort((moved[0], moved[1]), axis=-1)
            return np.moveaxis(order, -1, dim).astype(np.int64)
        # CuPy's lexsort has no axis: the same lexicographic order from two stable sorts,
        # by the secondary key and then by the primary one
        by_key = stable_argsort(key, dim)
        by_nan = stable_argsort(xp.take_along_axis(nan_first, by_key, axis=dim), dim)
        return xp.take_along_axis(by_key, by_nan, axis=dim).astype(np.int64)
    if x.dtype == np.bool_ or x.dtype.kind == "u":
        x = x.astype(np.int64)
    return stable_argsort(-x, dim).astype(np.int64)


def sort_with_indices(x, dim, descending, stable):
    """``torch.sort``: (values, indices) along ``dim``."""
    dim = _wrap_dim(dim, x.ndim)
    indices = _order(x, dim, descending)
    values = x.copy() if x.ndim == 0 else namespace_of(x).take_along_axis(x, indices, axis=dim)
    return values, indices


def argsort_array(x, dim, descending, stable):
    return _order(x, _wrap_dim(dim, x.ndim), descending)


def msort_array(x):
    """``torch.msort``: sorted along the first dim."""
    return namespace_of(x).sort(x, axis=0) if x.ndim else x.copy()


def topk_array(x, k, dim, largest, sorted):
    """``torch.topk``: the ``k`` largest (or smallest) along ``dim``, with their indices."""
    dim = _wrap_dim(dim, x.ndim)
    size = x.shape[dim] if x.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range")
    indices = _order(x, dim, descending=largest)
    if x.ndim == 0:
        return x.copy(), indices
    xp = namespace_of(x)
    indices = xp.take(indices, xp.arange(k), axis=dim)
    return xp.take_along_axis(x, indices, axis=dim), indices


def kthvalue_array(x, k, dim, keepdim):
    """``torch.kthvalue``: the k-th smallest element along ``dim`` (1-based) and its index."""
    dim = _wrap_dim(dim, x.ndim)
    size = x.shape[dim] if x.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    xp = namespace_of(x)
    if x.ndim == 0:
        return x.copy(), xp.zeros((), np.int64)
    indices = xp.take(_order(x, dim, descending=False), xp.asarray([k - 1]), axis=dim)
    values = xp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=dim), xp.squeeze(indices, axis=dim)
    return values, indices
