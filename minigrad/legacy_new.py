"""``Tensor.new`` (PyTorch's legacy constructor: a tensor of ``self``'s dtype and device
from sizes, data or another tensor) and ``Tensor.new_empty_strided``."""
import numbers

from minigrad._size import Size
from minigrad._tensor import Tensor
from minigrad.creation import empty, empty_strided, tensor

_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n"
               " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")


def new(self, *args, device=None, **kwargs):
    """``x.new()`` empty; ``x.new(2, 3)`` or ``x.new(Size)`` uninitialized of that size;
    ``x.new([1, 2])`` from data; ``x.new(other)`` ``other`` itself (same dtype required).
    Always ``self``'s dtype; no ``dtype=`` or ``requires_grad=``."""
    if kwargs:
        got = [type(a).__name__ for a in args]
        got += [f"{key}={type(value).__name__}" for key, value in kwargs.items()]
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(got)}), but expected one of:\n{_SIGNATURES}")
    device = self.device if device is None else device
    if not args:
        return empty(0, dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype != self.dtype:
            raise TypeError(f"expected {self.dtype} (got {args[0].dtype})")
        return args[0].detach()   # an alias of it
    if all(isinstance(a, numbers.Integral) for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        size = args[0] if isinstance(args[0], Size) else args
        if any(n < 0 for n in size):
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(size)}: {list(size)}")
        return empty(tuple(size), dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], numbers.Number):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    return tensor(args[0], dtype=self.dtype, device=device)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialized tensor of ``size`` and ``stride``, ``self``'s dtype and device
    unless given."""
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device,
                         requires_grad=requires_grad)


def bind_methods():
    Tensor.new = new
    Tensor.new_empty_strided = new_empty_strided
