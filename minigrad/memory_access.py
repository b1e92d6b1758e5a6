"""``x.data_ptr()``, ``x.untyped_storage()`` and ``x.storage()``: the addresses scripts read
to tell whether two tensors share memory.  A tensor's storage is the allocation its array
looks into (strided.py); a view's data_ptr is the storage's address plus its offset times
the item size, as in torch.  The storage objects are minimal: size, data_ptr, nbytes.
"""
from minigrad._array import data_pointer
from minigrad._tensor import Tensor
from minigrad.strided import _storage   # (the storage's bounds, as as_strided checks them)

__all__ = ["data_ptr", "untyped_storage", "storage"]


class UntypedStorage:
    """The bytes under a tensor: ``size()`` and ``nbytes()`` count bytes."""

    def __init__(self, address, nbytes, itemsize):
        self._address, self._nbytes, self._itemsize = address, nbytes, itemsize

    def data_ptr(self):
        return self._address

    def nbytes(self):
        return self._nbytes

    def size(self):
        return self._nbytes

    def __len__(self):
        return self.size()


class TypedStorage(UntypedStorage):
    """The storage seen as elements of the tensor's dtype: ``size()`` counts elements."""

    def size(self):
        return self._nbytes // self._itemsize


def data_ptr(self):
    """The address of the tensor's first element (an int)."""
    return data_pointer(self._data)


def _storage_of(self, kind):
    itemsize = self._data.itemsize
    start, size = _storage(self)
    return kind(start, size * itemsize, itemsize)


def untyped_storage(self):
    """The tensor's storage, in bytes."""
    return _storage_of(self, UntypedStorage)


def storage(self):
    """The tensor's storage, in elements of its dtype."""
    return _storage_of(self, TypedStorage)


for _name in __all__:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
