"""``Tensor.resize_``, ``Tensor.resize_as_`` and ``torch.resize_as_``: a tensor takes a new
shape in place, reading its storage from its first element in row-major order (the
old values where the storage is big enough; grown storage is zero-filled here, where
PyTorch leaves it uninitialized).  As PyTorch, refused for a tensor that requires grad."""
import math
import numbers

from minigrad._array import namespace_of
from minigrad._tensor import Tensor
from minigrad.autograd import grad_mode
from minigrad.strided import _storage, as_strided, storage_offset

__all__ = ["resize_as_"]


def resize_(self, *size, memory_format=None):
    """``self`` with shape ``size`` (ints or one sequence), in place."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], numbers.Integral) \
        else size
    shape = tuple(int(n) for n in shape)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")   # (PyTorch's words)
    if shape == tuple(self.shape):
        return self   # (PyTorch keeps the strides then, a non-contiguous tensor too)
    count = math.prod(shape)
    offset = storage_offset(self)
    available = _storage(self)[1] - offset
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    with grad_mode.no_grad():
        if count <= available:
            self._data = as_strided(self, shape, strides, offset)._data
        else:
            old = as_strided(self, (available,), (1,), offset)._data
            xp = namespace_of(old)
            grown = xp.zeros(count, dtype=old.dtype)
            grown[:available] = old
            self._data = grown.reshape(shape)
    self._version_counter[0] += 1
    return self


def resize_as_(input, the_template, *, memory_format=None):
    """``input.resize_(the_template.shape)``."""
    return resize_(input, tuple(the_template.shape), memory_format=memory_format)


def bind_methods():
    Tensor.resize_ = resize_
    Tensor.resize_as_ = resize_as_
