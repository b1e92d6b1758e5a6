"""Formula helpers for the shape ops (see formulas/__init__.py for the rules)."""
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import ops_for, values_of  # noqa: F401
from minigrad.kernels.core import index_key
from minigrad import _tensor  # a module: read at call time (import cycle)


# ------------------------------------------------------------------ shapes only
def narrow_index(shape, dim, start, length):
    """The slicing key ``narrow(dim, start, length)`` reads (for getitem_backward)."""
    from minigrad.kernels.shape import narrow_key
    return narrow_key(shape, dim, start, length)


def select_index(shape, dim, index):
    """The indexing key ``select(dim, index)`` reads (for getitem_backward)."""
    from minigrad.kernels.shape import select_key
    return select_key(shape, dim, index)


def negated(shifts):
    """``roll`` backward rolls back: every shift negated (int or sequence)."""
    if isinstance(shifts, (int, np.integer)):
        return -int(shifts)
    return tuple(-int(s) for s in shifts)


# ------------------------------------------------------------------ computing
def new_zeros(x, shape):
    """Constant zeros of ``shape`` with ``x``'s dtype (a Tensor when ``x`` is one)."""
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    is_tensor = isinstance(x, Tensor)
    zeros = namespace_of(x._data if is_tensor else x).zeros(tuple(shape), dtype=x.dtype)
    return _wrap(zeros) if is_tensor else zeros


def outside_index(shape, index, like=None):
    """A constant bool array of ``shape``, False at the elements ``x[index]`` selects
    (a condition for ``where``: it records nothing, on arrays or Tensors alike), on the
    device of ``like`` (the gradient it masks)."""
    like = getattr(like, "_data", like)
    keep = namespace_of(like).ones(shape, dtype=bool)
    keep[index_key(index, like)] = False
    return keep


def masked_select_backward(grad, x, mask):
    """``masked_select`` backward (PyTorch's): ``grad`` placed where the broadcast mask is
    true, in zeros of the broadcast shape (``sum_to`` then folds it to ``x``'s)."""
    m = values_of(mask)
    shape = np.broadcast_shapes(tuple(x.shape), tuple(m.shape))
    return ops_for(grad).getitem_backward(grad, shape, namespace_of(m).broadcast_to(m, shape))


def embed_in_zeros(x, shape):
    """``x`` in the leading corner of zeros of ``shape`` (scatter's ``src`` may be larger
    than ``index``; only the corner it read gets a gradient)."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    if not shape:   # a 0-d src, read as its one element (or not at all: an empty index)
        return ops_for(x).sum(x)
    key = tuple(slice(0, n) for n in x.shape)
    return ops_for(x).getitem_backward(x, shape, key)


def repeat_backward(grad, repeats, shape):
    """``repeat``/``tile`` backward: sum the copies of each element.

    ``grad`` is viewed as (r0, s0, r1, s1, ...) and summed over the r axes; ``repeats``
    shorter than ``shape`` (tile) count as 1 for the leading dims.
    """
    F = ops_for(grad)
    repeats = (repeats,) if isinstance(repeats, (int, np.integer)) else tuple(repeats)
    shape = tuple(shape)
    repeats = (1,) * (len(shape) - len(repeats)) + repeats
    padded = (1,) * (len(repeats) - len(shape)) + shape
    if math.prod(repeats) == 1:
        return F.reshape(grad, shape)
    interleaved = tuple(n for pair in zip(repeats, padded) for n in pair)
    summed = F.sum(F.reshape(grad, interleaved), tuple(range(0, 2 * len(padded), 2)))
    return F.reshape(summed, shape)


def diag_backward(grad, shape, diagonal):
    """``diag`` backward: a 1-D input read back off the matrix; a 2-D one gets its
    diagonal back in a zero matrix."""
    F = ops_for(grad)
    if len(shape) == 1:
        return F.diagonal(grad, diagonal, 0, 1)
    return F.diagonal_backward(grad, shape, diagonal, 0, 1)
