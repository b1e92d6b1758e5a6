"""Ops that find, count and locate elements: nonzero, unique, bincount, searchsorted,
bucketize, heaviside, mode.

Their results are indices, counts or step values, which have no gradient (torch does not
differentiate them either); ``mode``'s values are a ``gather`` of the input at the indices
found, so they get gather's gradient, as torch's.
"""
import math
from collections import namedtuple

import numpy as np

from minigrad._array import namespace_of
from minigrad._dtypes import default_numpy
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.kernels.core import not_implemented_for

__all__ = ["nonzero", "where", "argwhere", "histc", "unique", "bincount", "searchsorted", "bucketize",
           "heaviside", "mode"]

mode_result = namedtuple("mode", ["values", "indices"])


def _data(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return x._data


def nonzero(input, *, as_tuple=False):
    """Indices of the non-zero elements: an (N, ndim) int64 tensor, or with ``as_tuple`` one
    1-D tensor per dim (a 0-d input counts as 1-D)."""
    data = _data(input, "nonzero")
    xp = namespace_of(data)
    if as_tuple:
        return tuple(_wrap(i.astype(np.int64)) for i in xp.nonzero(xp.atleast_1d(data)))
    return _wrap(xp.argwhere(data).astype(np.int64))


_NOT_GIVEN = object()


def where(condition, input=_NOT_GIVEN, other=_NOT_GIVEN):
    """``where(condition, input, other)``: ``input`` where ``condition``, else ``other``;
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``, as in torch."""
    if input is _NOT_GIVEN and other is _NOT_GIVEN:
        return nonzero(condition, as_tuple=True)
    if input is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError("where() takes a condition alone, or a condition, an input and an "
                        "other: where(condition) or where(condition, input, other)")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor) \
            and isinstance(condition, Tensor):
        input = _scalar_pair_first(condition, input, other)
    return _F.where(condition, input, other)


def _scalar_pair_first(condition, input, other):
    """``input`` as a 0-d tensor of the dtype PyTorch gives two real Python numbers: the
    default float dtype for a float (numpy would take float64), else int64 or bool."""
    pair = (input, other)
    if any(isinstance(v, complex) or not isinstance(v, (int, float)) for v in pair):
        return input
    if any(isinstance(v, float) for v in pair):
        dtype = default_numpy()
    elif all(isinstance(v, bool) for v in pair):
        return input
    else:
        dtype = np.int64
    return _wrap(namespace_of(condition._data).asarray(input, dtype=dtype))


def argwhere(input):
    """``nonzero(input)``: an (N, ndim) int64 tensor of the non-zero elements' indices."""
    return nonzero(input)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (sorted, as torch on CPU), or the distinct slices along ``dim``;
    with ``return_inverse`` where each element went, with ``return_counts`` how often each
    occurs (int64)."""
    data = _data(input, "unique")
    xp = namespace_of(data)
    nans = {}
    if dim is not None:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        dim = dim + data.ndim if dim < 0 else dim
        if not 0 <= dim < data.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-data.ndim}, {data.ndim - 1}], but got {dim})")
    else:
        nans = {"equal_nan": False}   # each NaN is its own value, as in PyTorch
    values, inverse, counts = xp.unique(data, return_inverse=True, return_counts=True,
                                        axis=dim, **nans)
    if dim is None:
        inverse = inverse.reshape(data.shape)
    out = [_wrap(values)]
    if return_inverse:
        out.append(_wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(_wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The elements (or slices along ``dim``) with each run of equal neighbours kept once
    (a NaN equals nothing); with ``return_inverse`` the run of each element, with
    ``return_counts`` each run's length."""
    data = _data(input, "unique_consecutive")
    xp = namespace_of(data)
    if dim is not None:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if not -data.ndim <= dim < data.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-data.ndim}, {data.ndim - 1}], but got {dim})")
        dim %= data.ndim
        moved = xp.moveaxis(data, dim, 0)
        rows = moved.reshape(data.shape[dim], math.prod(moved.shape[1:]))
    else:
        rows = data.reshape(-1, 1)
    n = rows.shape[0]
    starts_run = xp.ones(n, dtype=bool)
    if n > 1:
        starts_run[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    starts = xp.flatnonzero(starts_run)
    if dim is None:
        values = data.reshape(-1)[starts]
    else:
        values = xp.take(data, starts, axis=dim)
    out = [_wrap(values)]
    if return_inverse:
        runs = xp.cumsum(starts_run) - 1
        out.append(_wrap(runs.reshape(data.shape if dim is None else (n,)).astype(np.int64)))
    if return_counts:
        out.append(_wrap(xp.diff(xp.append(starts, n)).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in a 1-D non-negative integer tensor (summing
    ``weights`` instead of ones when given)."""
    data = _data(input, "bincount")
    if data.dtype.kind not in "iu":   # (the dtype is checked first, bool included, as torch)
        raise not_implemented_for("bincount_cpu", data.dtype)
    if data.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    xp = namespace_of(data)
    if data.size and int(data.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _wrap(xp.bincount(data, minlength=minlength).astype(np.int64))
    w = weights._data if isinstance(weights, Tensor) else xp.asarray(weights)
    if w.shape != data.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = w.dtype if w.dtype == np.float32 else np.float64  # torch: float32 stays, else double
    return _wrap(xp.bincount(data, weights=w, minlength=minlength).astype(dtype))


def histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's argument names
    """Counts of ``input``'s elements in ``bins`` equal bins over [min, max] (the data's own
    range when min == max; elements outside are ignored), in ``input``'s float dtype."""
    data = _data(input, "histc")
    if data.dtype.kind != "f":
        raise not_implemented_for("histogram_cpu", data.dtype)
    if bins <= 0:
        raise RuntimeError(f"minigrad.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError("minigrad.histc: max must be larger than min")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"minigrad.histc: range of [{low}, {high}] is not finite")
    counts = namespace_of(data).histogram(data, bins=bins, range=(low, high))[0]
    return _wrap(counts.astype(data.dtype))


def _search(sorted_data, values, right, name):
    xp = namespace_of(sorted_data)
    side = "right" if right else "left"
    if sorted_data.ndim == 1:
        return xp.searchsorted(sorted_data, values, side=side)
    if sorted_data.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(f"torch.{name}(): boundaries tensor should be 1 dimension or the first "
                           "N-1 dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {list(sorted_data.shape)} and "
                           f"input value tensor {list(values.shape)}")
    rows = sorted_data.reshape(-1, sorted_data.shape[-1])
    wanted = values.reshape(-1, values.shape[-1])
    found = [xp.searchsorted(r, v, side=side) for r, v in zip(rows, wanted)]
    return xp.stack(found).reshape(values.shape)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each of ``input``'s values would go in ``sorted_sequence`` (along its last dim)
    to keep it sorted; ``right`` (or ``side='right'``) puts equal values after."""
    seq = _data(sorted_sequence, "searchsorted")
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    if sorter is not None:
        order = sorter._data if isinstance(sorter, Tensor) else np.asarray(sorter)
        seq = np.take_along_axis(seq, order, axis=-1)
    found = _search(seq, values, right, "searchsorted")
    return _wrap(namespace_of(seq).asarray(found).astype(np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element of ``input`` among 1-D ``boundaries``: ``right=False`` gives
    ``boundaries[i-1] < x <= boundaries[i]``."""
    bounds = _data(boundaries, "bucketize")
    if bounds.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({bounds.ndim})")
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    found = namespace_of(bounds).searchsorted(bounds, values, side="right" if right else "left")
    return _wrap(np.asarray(found).astype(np.int32 if out_int32 else np.int64))


def heaviside(input, values):
    """0 where ``input < 0``, 1 where ``input > 0`` and ``values`` where it is 0 (not
    differentiable, as in torch)."""
    data = _data(input, "heaviside")
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    other = values._data
    if data.dtype != other.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    xp = namespace_of(data)
    return _wrap(xp.asarray(xp.where(data == 0, other, (data > 0)), dtype=data.dtype))


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest among ties) and the index of its
    last occurrence; the values take gather's gradient."""
    data = _data(input, "mode")
    if data.dtype.kind == "b":
        raise NotImplementedError("\"mode_cpu\" not implemented for 'Bool'")
    axis = dim + data.ndim if dim < 0 else dim
    if data.ndim and not 0 <= axis < data.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-data.ndim}, {data.ndim - 1}], but got {dim})")
    if data.ndim == 0:
        index = np.zeros((), dtype=np.int64)
        return mode_result(_F.clone(input), _wrap(index))
    moved = np.moveaxis(np.asarray(data), axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    found = np.array([_mode_index(row) for row in rows], dtype=np.int64).reshape(moved.shape[:-1])
    index = _wrap(np.expand_dims(found, axis))
    values = _F.gather(input, axis, index)
    if not keepdim:
        values, index = values.squeeze(axis), index.squeeze(axis)
    return mode_result(values, index)


def _mode_index(row):
    """The index of the last occurrence of the row's most frequent value (smallest on ties)."""
    values, counts = np.unique(row, return_counts=True)
    value = values[np.argmax(counts)]  # np.unique sorts: argmax takes the smallest tie
    return int(np.flatnonzero(row == value)[-1])


def _bind_methods():
    for name in ("nonzero", "argwhere", "unique", "unique_consecutive", "bincount", "heaviside",
                 "mode", "histc"):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, globals()[name])


_bind_methods()
