"""Formula helpers for the strided views and the *_scatter ops (rules in __init__)."""
from minigrad._array import namespace_of
from minigrad.kernels.strided import slice_key, storage_indices

__all__ = ["slice_index", "outside_strided"]


def slice_index(shape, dim, start, end, step):
    """The key ``slice_scatter`` writes through (for getitem on its gradient)."""
    return slice_key(shape, dim, start, end, step)


def outside_strided(shape, layout, size, stride, offset, like):
    """A constant bool array of ``shape``: False at the elements of a tensor laid out with
    strides ``layout`` that the as_strided geometry ``(size, stride, offset)`` covers
    (a condition for ``where``), on the device of ``like`` (the gradient it masks)."""
    like = getattr(like, "_data", like)
    xp = namespace_of(like)
    covered = xp.zeros(int(storage_indices(shape, layout, 0).max(initial=-1)) + 1, dtype=bool)
    written = storage_indices(size, stride, offset).ravel()
    covered[xp.asarray(written[written < covered.size])] = True
    return ~covered[xp.asarray(storage_indices(shape, layout, 0))]
