"""Top-level functions torch has over tensors that minigrad's ops did not give:
``detach``, ``fill``, ``rsub``, ``split_with_sizes``, the ``unsafe_`` splits,
``unravel_index``, ``nonzero_static`` and ``typename`` (the last two also Tensor methods
where torch has them)."""
import numbers

from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad.searching import where
from minigrad.creation import tensor, zeros_like

__all__ = ["detach", "fill", "nonzero_static", "rsub", "split_with_sizes", "typename",
           "unravel_index", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]


def detach(input):
    """``input.detach()``."""
    return input.detach()


def fill(input, value):
    """A tensor like ``input`` filled with ``value`` (a number or a 0-d tensor, which gets
    the gradient); ``input`` gets a zero gradient, as torch's FillBackward."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        value = value.to(input.dtype)
    else:
        value = tensor(value, dtype=input.dtype, device=input.device)
    return where(zeros_like(input, dtype=bool), input, value)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    from minigrad import sub   # (the generated ops are bound after this module's import)
    return sub(other, input, alpha=alpha)


def split_with_sizes(input, split_sizes, dim=0):
    """``input.split_with_sizes(split_sizes, dim)``."""
    return input.split_with_sizes(split_sizes, dim)


def unsafe_split(input, split_size, dim=0):
    """``split``'s pieces, sharing ``input``'s memory but not tracked as its views (torch's
    "unsafe": a write into a piece changes ``input`` and bumps neither's version, and
    autograd does not see the alias)."""
    return _untracked(input.split(split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes``'s pieces, untracked as ``unsafe_split``'s."""
    return _untracked(split_with_sizes(input, split_sizes, dim))


def unsafe_chunk(input, chunks, dim=0):
    """``chunk``'s pieces, untracked as ``unsafe_split``'s."""
    return _untracked(input.chunk(chunks, dim))


def _untracked(pieces):
    # the same arrays and gradient edges; new Tensors without a view base or a shared
    # version counter
    return tuple(_wrap(piece._data, piece.grad_fn, piece._output_nr) for piece in pieces)


def unravel_index(indices, shape):
    """The coordinates, one tensor per dim of ``shape``, of flat ``indices`` into a tensor
    of that shape (out-of-range and negative indices wrap, as torch's)."""
    if not isinstance(indices, Tensor):
        indices = tensor(indices)
    if indices._data.dtype.kind not in "iu" or indices.dtype.is_complex:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    shape = tuple(int(size) for size in shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    xp = namespace_of(indices._data)
    flat = indices._data.astype(xp.int64)
    coordinates, stride = [], 1
    for size in reversed(shape):
        coordinates.append((flat // stride) % size if size else flat * 0)
        stride *= size
    return tuple(_wrap(c) for c in reversed(coordinates))


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero(input)`` as a (size, dim) tensor: cut at ``size`` rows, padded with
    ``fill_value`` rows."""
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()[:size]
    xp = namespace_of(found._data)
    padded = xp.full((size, input.dim()), fill_value, dtype=xp.int64)
    padded[:len(found._data)] = found._data
    return _wrap(padded)


def typename(obj):
    """torch's type name of ``obj``: ``'minigrad.FloatTensor'`` for a tensor, else the
    class's module and qualified name (no module for builtins)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def bind_methods():
    """Tensor methods torch has: ``x.nonzero_static(size=)``, ``x.unsafe_split(...)`` ..."""
    Tensor.nonzero_static = nonzero_static
    Tensor.unsafe_split = unsafe_split
    Tensor.unsafe_chunk = unsafe_chunk
    Tensor.unsafe_split_with_sizes = unsafe_split_with_sizes
