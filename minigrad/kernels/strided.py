"""numpy building blocks for the strided views (unfold, as_strided) and their gradients,
the *_scatter ops that write into such a view of a copy, renorm (per-slice scaling) and
the flat-index ops put and diagflat.

A view here is an array over the same memory (numpy's strides), as in PyTorch; the
gradients are described by "storage indices": for every element of a geometry
(sizes, strides, storage offset, all in elements), its index in the storage.
"""
import numpy as np

from minigrad._array import data_pointer, namespace_of
from minigrad.kernels.core import scalar_type_name
from minigrad.kernels.linalg import vector_norm_array
from minigrad.kernels.shape import _wrap_dim, diagonal_array, select_key


class _Strided:
    """An ``__array_interface__`` over existing memory (numpy's own as_strided starts at
    the array's first element; ours may start anywhere in its storage)."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self.base = owner  # keeps the memory alive as long as the view


def strided_view(x, size, stride, shift):
    """A view of ``x``'s memory with ``size`` and ``stride`` (in elements), its first
    element ``shift`` elements after ``x``'s first (negative: before it).  The caller
    has checked that it stays inside the storage."""
    xp = namespace_of(x)
    size, item = tuple(int(s) for s in size), x.itemsize
    strides = tuple(int(s) * item for s in stride)
    if xp is not np:  # CuPy: as_strided over the (contiguous) allocation, from the start
        owner = storage_owner(x)
        start = (data_pointer(x) - data_pointer(owner)) // item + shift
        return xp.lib.stride_tricks.as_strided(owner.reshape(-1)[start:], size, strides)
    interface = dict(x.__array_interface__, shape=size, strides=strides,
                     data=(data_pointer(x) + shift * item, not x.flags.writeable))
    interface.pop("mask", None)
    out = np.asarray(_Strided(interface, x))
    if not x.flags.writeable:
        out.flags.writeable = False
    return out


def storage_owner(array):
    """The array that owns ``array``'s memory (the ``base`` chain; numpy's as_strided and
    ours put an interface object between a view and its base)."""
    while True:
        base = array.base
        while base is not None and not hasattr(base, "strides"):
            base = getattr(base, "base", None)
        if base is None:
            return array
        array = base


def unfold_array(x, dimension, size, step):
    """``Tensor.unfold``: windows of ``size`` along ``dimension`` every ``step`` elements,
    as a view: ``dimension`` counts the windows and a last dim of ``size`` is added."""
    dim = _wrap_dim(dimension, x.ndim)
    length = x.shape[dim] if x.ndim else 1  # a 0-d tensor: one window of its element
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size "
                           f"is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if x.ndim == 0:
        return strided_view(x, (size,), (1,), 0)
    item = x.itemsize
    shape, strides = list(x.shape), [s // item for s in x.strides]
    shape[dim] = (length - size) // step + 1
    window_stride = strides[dim]
    strides[dim] *= step
    return strided_view(x, shape + [size], strides + [window_stride], 0)


def unfold_backward_array(grad, input_sizes, dimension, size, step):
    """The gradient of ``unfold``: each window's gradient added back where it came from
    (overlapping windows add up)."""
    xp = namespace_of(grad)
    out = xp.zeros(tuple(input_sizes), dtype=grad.dtype)
    if len(input_sizes) == 0:
        return out + grad.sum()
    dim = _wrap_dim(dimension, len(input_sizes))
    windows = grad.shape[dim]
    moved = xp.moveaxis(grad, (dim, grad.ndim - 1), (0, 1))       # (windows, size, ...)
    target = xp.moveaxis(out, dim, 0)                              # a view of out
    starts = xp.arange(windows) * step
    for offset in range(size):  # a loop of `size` (small) vectorized adds
        index = starts + offset
        if step >= size:  # windows do not overlap: no index repeats
            target[index] += moved[:, offset]
        else:
            xp.add.at(target, index, moved[:, offset])
    return out


def storage_indices(size, stride, offset):
    """For each element of the geometry, its index in the storage (int64, of ``size``)."""
    index = np.full(tuple(size), int(offset), dtype=np.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        index = index + (np.arange(n, dtype=np.int64) * int(s)).reshape(shape)
    return index


def as_strided_remap_array(x, from_size, from_stride, from_offset, to_size, to_stride,
                           to_offset, average_first):
    """Values moved from one geometry of a storage to another: ``x`` (laid out as the
    "from" geometry) is added into a zero storage, and the "to" geometry read out of it.
    Storage places seen several times by the geometry that has to be averaged ("from" if
    ``average_first``, else "to") hold the mean.  The two uses are adjoint to each other:
    as_strided's forward derivative (from the input's geometry to the output's, averaging
    first) and its gradient (from the output's to the input's, averaging last), as
    PyTorch's as_strided_backward."""
    xp = namespace_of(x)
    src = storage_indices(from_size, from_stride, from_offset)
    dst = storage_indices(to_size, to_stride, to_offset)
    low = min(int(src.min(initial=0)), int(dst.min(initial=0)))
    length = max(int(src.max(initial=0)), int(dst.max(initial=0))) - low + 1
    src, dst = src - low, dst - low
    counted = src if average_first else dst
    count = np.bincount(counted.ravel(), minlength=length)
    if average_first:
        x = x / xp.asarray(np.maximum(count[src], 1), dtype=x.dtype)
    storage = xp.zeros(length, dtype=x.dtype)
    xp.add.at(storage, xp.asarray(src.ravel()), x.reshape(-1))
    out = storage[xp.asarray(dst)]
    if not average_first:
        out = out / xp.asarray(np.maximum(count[dst], 1), dtype=x.dtype)
    return out


# ------------------------------------------------------------------ *_scatter
def slice_key(shape, dim, start, end, step):
    """The key of ``x[start:end:step]`` along ``dim`` (PyTorch's slice: positive steps
    only; out-of-range bounds are clamped, as Python's)."""
    if not shape:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return (slice(None),) * dim + (slice(start, end, step),)


def _scatter_into_copy(x, src, key_or_view):
    """A copy of ``x`` with ``src`` written where ``key_or_view(copy)`` looks."""
    out = namespace_of(x).array(x, copy=True)
    return _write_src(out, src, key_or_view(out))


def slice_scatter_array(x, src, dim, start, end, step):
    key = slice_key(x.shape, dim, start, end, step)
    return _scatter_into_copy(x, src, lambda out: out[key])


def select_scatter_array(x, src, dim, index):
    key = select_key(x.shape, dim, index)
    return _scatter_into_copy(x, src, lambda out: out[key])


def diagonal_scatter_array(x, src, offset, dim1, dim2):
    return _scatter_into_copy(x, src, lambda out: diagonal_array(out, offset, dim1, dim2))


def as_strided_scatter_array(x, src, size, stride, storage_offset, layout):
    """``x`` copied into a fresh storage laid out with strides ``layout`` (PyTorch's clone
    keeps a dense layout), then ``src`` written into its as_strided view."""
    xp = namespace_of(x)
    storage = xp.empty(x.size, dtype=x.dtype)
    out = strided_view(storage, x.shape, layout, 0)
    out[...] = x
    return _write_src(out, src, strided_view(storage, size, stride, storage_offset))


def _write_src(out, src, view):
    """``out`` after writing ``src`` into ``view`` (a view of ``out``'s memory)."""
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")
    view[...] = src
    return out


# ------------------------------------------------------------------ renorm
def renorm_array(x, p, dim, maxnorm):
    """``torch.renorm``: each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm``
    scaled down to norm ``maxnorm`` (PyTorch's factor maxnorm / (norm + 1e-7))."""
    if x.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    dim = _wrap_dim(dim, x.ndim)
    others = tuple(d for d in range(x.ndim) if d != dim)
    norm = vector_norm_array(x, p, others, True)
    xp = namespace_of(x)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(x.dtype)
    return x * factor


# ------------------------------------------------------------------ flat indices
def put_array(x, index, source, accumulate):
    """``torch.put``: ``source``'s elements written (or added, with ``accumulate``) at the
    flat indices ``index`` of a copy of ``x`` (negative indices count from the end)."""
    if index.dtype != np.int64:
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(index.dtype)}")
    if x.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {scalar_type_name(x.dtype)} and source.dtype = "
                           f"{scalar_type_name(source.dtype)}")
    if index.size != source.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.size}, index.numel() = "
                         f"{index.size}")
    xp = namespace_of(x)
    out = xp.array(x, copy=True, order="C")
    flat, index = out.reshape(-1), index.reshape(-1)
    if index.size:
        bad = index[(index >= flat.size) | (index < -flat.size)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of "
                             f"{flat.size} elements.")
    if accumulate:
        xp.add.at(flat, index, source.reshape(-1))
    else:
        flat[index] = source.reshape(-1)
    return out


def diagflat_array(x, offset):
    """``torch.diagflat``: a square matrix with ``x``'s elements (flattened) on the
    ``offset`` diagonal."""
    xp = namespace_of(x)
    return xp.array(xp.diagflat(x, offset), copy=True)
