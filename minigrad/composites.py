"""Ops composed of differentiable generated ops: meshgrid, cartesian_prod, block_diag,
cdist, quantile, and the index helpers tril_indices / triu_indices.

torch builds these from other ops too (meshgrid from views, cartesian_prod from meshgrid,
quantile from sort and lerp, cdist's gradient is the norm's), so the gradients of the ops
used here, declared in derivatives.yaml, are the composites' gradients.
"""
import itertools
import warnings

import numpy as np

from minigrad import _dtypes
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd.promotion import result_dtype
from minigrad.creation import tensor as _tensor, zeros as _zeros
from minigrad.kernels.core import scalar_type_name

__all__ = ["meshgrid", "cartesian_prod", "combinations", "dist", "block_diag", "tril_indices", "triu_indices",
           "cdist", "quantile", "nanquantile"]

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def meshgrid(*tensors, indexing=None):
    """Grids from 1-D tensors: output ``i`` repeats ``tensors[i]`` along dim ``i``
    (``indexing='ij'``, the default) or with the first two dims swapped (``'xy'``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    # dim of output grids along which tensor i runs: 'xy' swaps the first two
    place = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        place[0], place[1] = 1, 0
    shape = [0] * len(tensors)
    for i, t in enumerate(tensors):
        shape[place[i]] = t.numel()
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(shape)
        view[place[i]] = -1
        grids.append(t.reshape(view).expand(shape))
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, one per row."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _F.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-D tensor's elements, one per row (as
    itertools.combinations, or combinations_with_replacement), in index order."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input[:0]
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input[:0].reshape(0, r)
    index = _tensor(rows)   # (positions only: from the shape, never the values)
    return input[index.reshape(-1)].reshape(len(rows), r)


def block_diag(*tensors):
    """The tensors (0-d, 1-D or 2-D) as blocks along the diagonal of one matrix."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    dtype = result_dtype(tensors) if tensors else _dtypes.default_numpy()  # 0-d ones count less
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        pieces = [_zeros(r, left, dtype=dtype, device=b.device), b.to(dtype),
                  _zeros(r, width - left - c, dtype=dtype, device=b.device)]
        rows.append(_F.cat(pieces, 1))
        left += c
    return _F.cat(rows, 0) if rows else _zeros(0, 0, dtype=dtype)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    """The (2, N) indices of the lower triangle of a row x col matrix, row by row."""
    rows, cols = np.tril_indices(row, offset, col)
    return _tensor(np.stack([rows, cols]), dtype=dtype or _dtypes.int64, device=device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    """The (2, N) indices of the upper triangle of a row x col matrix, row by row."""
    rows, cols = np.triu_indices(row, offset, col)
    return _tensor(np.stack([rows, cols]), dtype=dtype or _dtypes.int64, device=device)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): (..., P, R).  Its gradient is vector_norm's (0 at zero distance)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{scalar_type_name(x._data.dtype)}")
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    difference = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _F.linalg_vector_norm(difference, p, -1)


def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast), over all its elements."""
    return _F.linalg_vector_norm(input - other, p)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles (a float, or a 0-d / 1-D tensor: its dim comes first) of
    ``input`` along ``dim`` (all elements if None): the sorted values at rank
    ``q * (n - 1)``, interpolated as ``interpolation`` says; NaN where a slice has NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` of the values that are not NaN (rank ``q * (k - 1)`` among the ``k``
    of them); NaN only where a slice is all NaN, as torch."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    _check_quantile(input, q, interpolation)
    qs = np.atleast_1d(q._data if isinstance(q, Tensor) else np.asarray(q, dtype=np.float64))
    x = input.reshape(-1) if dim is None else input.movedim(dim, -1)
    ordered = _F.sort(x, -1)[0]
    data = ordered._data
    n = data.shape[-1]
    nan = np.isnan(data)
    if ignore_nan:  # NaN sorts last: the k values before it are the slice's
        count = n - nan.sum(-1, keepdims=True)
        ranks = np.where(count == 0, n - 1, qs * np.maximum(count - 1, 0)).astype(np.float64)
    else:
        ranks = np.broadcast_to(qs * (n - 1), data.shape[:-1] + qs.shape).astype(np.float64)
        ranks = np.where(nan.any(-1, keepdims=True), n - 1, ranks)
    if interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as torch.round
    below, above = np.floor(ranks).astype(np.int64), np.ceil(ranks).astype(np.int64)
    low = _F.gather(ordered, -1, _wrap(below))
    if interpolation == "lower" or interpolation == "nearest":
        result = low
    elif interpolation == "higher":
        result = _F.gather(ordered, -1, _wrap(above))
    else:
        high = _F.gather(ordered, -1, _wrap(above))
        weight = np.full(ranks.shape, 0.5) if interpolation == "midpoint" else ranks - below
        result = _F.lerp(low, high, _wrap(weight.astype(data.dtype)))
    return _quantile_shape(result, input, q, dim, keepdim)


def _check_quantile(input, q, interpolation):
    if input.dtype not in (_dtypes.float32, _dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if ((q._data < 0) | (q._data > 1)).any():
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")


def _quantile_shape(result, input, q, dim, keepdim):
    """(..., nq) -> torch's layout: q's dim first (if q is 1-D), then the reduced shape."""
    if keepdim:
        if dim is None:
            result = result.reshape((1,) * input.dim() + (result.shape[-1],))
        else:
            result = result.unsqueeze(-2).movedim(-2, dim % input.dim())
    result = result.movedim(-1, 0)
    one_q = not isinstance(q, Tensor) or q.dim() == 0
    return result.squeeze(0) if one_q else result


if not hasattr(Tensor, "dist"):
    Tensor.dist = dist
if not hasattr(Tensor, "quantile"):
    Tensor.quantile = quantile
if not hasattr(Tensor, "nanquantile"):
    Tensor.nanquantile = nanquantile
