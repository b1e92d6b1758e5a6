"""Formula helpers for ``scatter_reduce`` (see formulas/__init__.py for the rules).

Each output element reduces its own value (unless ``include_self`` is False) and the
``src`` elements scattered to it.  The gradient of each of those contributors is PyTorch's
(FunctionsManual's scatter_reduce_backward): 'sum' passes ``grad``, 'mean' divides it by
the count, 'amax'/'amin' share it evenly among the contributors equal to the result, and
'prod' multiplies it by the product of the other contributors (exact where some are 0).
Which contributors are which is read from the values: masks, constants of the graph.
"""
import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import array_of, ops_for, values_of
from minigrad.autograd.formulas.shape import embed_in_zeros
from minigrad.kernels.shape import _along, _wrap_dim, scatter_reduction


def scatter_reduce_grad_self(grad, self, dim, index, src, reduce, include_self, result):
    """d loss / d self of ``scatter_reduce``."""
    F, reduce = ops_for(grad), scatter_reduction(reduce)
    hit, _ = _targets(self, dim, index)
    if reduce == "sum":
        g = grad
    elif reduce == "mean":
        g = grad / _counts(self, dim, index, include_self, array_of(grad).dtype)
    elif reduce in ("amax", "amin"):
        chosen, _, share = _extremes(self, dim, index, src, result)
        g = F.where(chosen, grad * share, 0.0)
    else:
        zero = values_of(self) == 0   # (self replaced by 1: the others' product, exactly)
        masked = F.where(zero, 1.0, self)
        others = F.scatter_reduce(masked, dim, index, src, "prod", include_self=include_self)
        g = grad * others / masked
    return g if include_self else F.where(hit, 0.0, g)


def scatter_reduce_grad_src(grad, self, dim, index, src, reduce, include_self, result):
    """d loss / d src of ``scatter_reduce`` (zeros beyond ``index``'s shape)."""
    F, reduce = ops_for(grad), scatter_reduction(reduce)
    _, where = _targets(self, dim, index)
    part = F.getitem(src, tuple(slice(0, n) for n in index.shape))
    if reduce == "sum":
        g = F.gather(grad, _dim(dim, self), index)
    elif reduce == "mean":
        counts = _counts(self, dim, index, include_self, array_of(grad).dtype)
        g = F.gather(grad / counts, _dim(dim, self), index)
    elif reduce in ("amax", "amin"):
        _, chosen, share = _extremes(self, dim, index, src, result)
        g = F.where(chosen, F.gather(grad * share, _dim(dim, self), index), 0.0)
    else:
        g = _prod_src_grad(F, grad, self, dim, index, part, include_self, result)
    return embed_in_zeros(g, src.shape)


def _prod_src_grad(F, grad, self, dim, index, part, include_self, result):
    """grad times the product of the others: result / src where src is not 0; for the one
    0 of a target, the product with it replaced by 1; for more zeros, 0."""
    d = _dim(dim, self)
    idx = values_of(index)
    zero = values_of(part) == 0
    xp = namespace_of(zero)
    zeros_there = xp.zeros(tuple(self.shape), dtype=np.int64)
    xp.add.at(zeros_there, _along(idx.shape, d, idx), zero.astype(np.int64))  # (in the target's dtype, for CuPy)
    single = zero & (xp.take_along_axis(zeros_there, idx, d) == 1)
    others = F.scatter_reduce(self, d, index, F.where(single, 1.0, part), "prod",
                              include_self=include_self)
    divided = F.gather(grad * result, d, index) / F.where(zero, 1.0, part)
    return F.where(single, F.gather(grad * others, d, index), divided)


def _dim(dim, self):
    return _wrap_dim(dim, max(len(self.shape), 1))


def _targets(self, dim, index):
    """(the positions of ``self`` some src element is scattered to, as a bool array; the
    fancy-indexing key of those writes)."""
    idx = values_of(index)
    xp = namespace_of(idx)
    where = _along(idx.shape, _dim(dim, self), idx)
    hit = xp.zeros(tuple(self.shape), dtype=bool)
    hit[where] = True
    return hit, where


def _counts(self, dim, index, include_self, dtype):
    """How many values each output averaged (at least 1), in ``dtype``."""
    idx = values_of(index)
    xp = namespace_of(idx)
    hit_count = xp.zeros(tuple(self.shape), dtype=np.int64)
    xp.add.at(hit_count, _along(idx.shape, _dim(dim, self), idx), 1)
    counts = hit_count + 1 if include_self else xp.maximum(hit_count, 1)
    return counts.astype(dtype)


def _extremes(self, dim, index, src, result):
    """(self's elements equal to their result, src's elements equal to theirs, 1 / how many
    are): amax and amin share the gradient evenly among them, as torch.  (As torch, an
    excluded self equal to its result counts in the share too, though its gradient is 0.)"""
    d = _dim(dim, self)
    idx = values_of(index)
    values, out = values_of(self), values_of(result)
    part = values_of(src)[tuple(slice(0, n) for n in idx.shape)]
    xp = namespace_of(idx)
    _, where = _targets(self, dim, index)
    self_chosen = values == out
    src_chosen = part == xp.take_along_axis(out, idx, d)
    count = self_chosen.astype(out.dtype)
    xp.add.at(count, where, src_chosen.astype(out.dtype))  # (in the target's dtype, for CuPy)
    return self_chosen, src_chosen, (1.0 / xp.maximum(count, 1)).astype(out.dtype)
