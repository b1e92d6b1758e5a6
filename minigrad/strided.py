"""``as_strided``, ``as_strided_scatter`` and ``Tensor.storage_offset``: views described
by sizes, strides and an offset into the storage, as PyTorch's.

A tensor's storage is the memory its numpy array looks into: the allocation that
owns it (numpy's ``base`` chain).  The view itself is the generated ``_as_strided``
(derivatives.yaml), given the offset relative to the input's first element, which
this module resolves and checks against the storage's bounds as PyTorch does.

>>> x = minigrad.arange(6.)
>>> x.as_strided((2, 2), (1, 2), 1)          # doctest: +SKIP
tensor([[1., 3.],
        [2., 4.]])
"""
import numbers

from minigrad._array import data_pointer
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad.kernels.strided import storage_owner

__all__ = ["as_strided", "as_strided_scatter"]


def _extent(array):
    """The lowest byte address of ``array``'s elements and the bytes they span."""
    low = high = data_pointer(array)
    for n, stride in zip(array.shape, array.strides):
        if n == 0:
            return low, 0
        low, high = (low + (n - 1) * stride, high) if stride < 0 else (low, high + (n - 1) * stride)
    return low, high - low + array.itemsize


def _storage(tensor):
    """(The storage's first byte address, its size in elements) for ``tensor``."""
    low, nbytes = _extent(storage_owner(tensor._data))
    return low, nbytes // tensor._data.itemsize


def storage_offset(self):
    """The index of the tensor's first element in its storage."""
    return (data_pointer(self._data) - _storage(self)[0]) // self._data.itemsize


def _strides(array):
    return [s // array.itemsize for s in array.strides]


def _check_ints(name, position, values):
    """PyTorch's two messages for a non-int in a size or stride (the first element or a
    later one)."""
    for i, v in enumerate(values):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            kind = type(v).__name__
            if i == 0:
                raise TypeError(f"as_strided(): argument '{name}' (position {position}) must be "
                                f"tuple of ints, but found element of type {kind} at pos 0")
            raise TypeError(f"as_strided(): argument '{name}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got {kind}\"")


def _geometry(input, size, stride, offset):
    """The checked (size, stride, offset) of ``input.as_strided(size, stride, offset)``."""
    size = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    stride = (stride,) if isinstance(stride, numbers.Integral) else tuple(stride)
    _check_ints("size", 1, size)
    _check_ints("stride", 2, stride)
    if offset is None:
        offset = storage_offset(input)
    elif not isinstance(offset, numbers.Integral) or isinstance(offset, bool):
        raise TypeError("as_strided(): argument 'storage_offset' (position 3) must be int, not "
                        f"{type(offset).__name__}")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    return [int(n) for n in size], [int(s) for s in stride], int(offset)


def _check_bounds(size, stride, offset, storage_size, itemsize):
    if 0 in size:
        return
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if needed > storage_size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
            f"bounds for storage of size {storage_size * itemsize}")


def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given sizes and strides, starting at
    ``storage_offset`` (default: ``input``'s own).  Its gradient adds up where the view's
    elements share memory, as PyTorch's as_strided_backward."""
    size, stride, offset = _geometry(input, size, stride, storage_offset)
    start, storage_size = _storage(input)
    _check_bounds(size, stride, offset, storage_size, input._data.itemsize)
    shift = offset - (data_pointer(input._data) - start) // input._data.itemsize
    return _F._as_strided(input, size, stride, shift, _strides(input._data))


def _dense_layout(array):
    """The strides (in elements) of ``input``'s clone, PyTorch's preserve_format: dense, in
    the order of ``input``'s strides (the same strides when ``input`` is dense); contiguous
    for an expanded input (a zero stride) or a negative stride."""
    dims = range(array.ndim)
    if any(s <= 0 and n > 1 for s, n in zip(array.strides, array.shape)):
        dims = list(dims)  # contiguous
    else:
        dims = sorted(dims, key=lambda d: -array.strides[d])  # outermost first (stable)
    layout, step = [0] * array.ndim, 1
    for d in reversed(dims):
        layout[d] = step
        step *= array.shape[d]
    return layout


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into its ``as_strided(size, stride,
    storage_offset)`` view (the offset counts in the copy, whose own offset is 0)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"as_strided_scatter(): argument 'src' (position 2) must be Tensor, not "
                        f"{type(src).__name__}")
    size, stride, offset = _geometry(input, size, stride, 0 if storage_offset is None
                                     else storage_offset)
    _check_bounds(size, stride, offset, input._data.size, input._data.itemsize)
    return _F._as_strided_scatter(input, src, size, stride, offset, _dense_layout(input._data))


for _fn in (as_strided, as_strided_scatter, storage_offset):
    setattr(Tensor, _fn.__name__, _fn)
