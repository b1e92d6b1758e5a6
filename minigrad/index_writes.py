"""``index_fill``, ``index_copy`` and ``masked_scatter`` (and their in-place methods):
writes at indices along a dim or at a mask's true elements, as index_put of a key, so
their gradients (first and second order) are index_put's: zero where written for
``self``, the written elements for the value or source."""
import numpy as np

from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad._value_reads import reads_values
from minigrad.autograd.inplace import apply_inplace
from minigrad.kernels.core import scalar_type_name
from minigrad.kernels.shape import _wrap_dim


def index_fill(input, dim, index, value):
    """``input`` with every slice at ``index`` along ``dim`` set to ``value`` (a number or
    a 0-d tensor; negative indices count from the end)."""
    if index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    dim = _wrap_dim(dim, max(input.dim(), 1))
    _check_bounds(input, dim, index, "", negative_ok=True)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        value = value.to(input.dtype)
    else:
        value = input.new_tensor(value)
    return _F._index_put(input, _key(input, dim, index), value)


def index_copy(input, dim, index, source):
    """``input`` with ``source``'s slices along ``dim`` written at ``index`` (a later
    repeat of an index wins)."""
    if index._data.dtype != np.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{scalar_type_name(index._data.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {scalar_type_name(input._data.dtype)} and (source) "
                           f"{scalar_type_name(source._data.dtype)}")
    if source.dim() != input.dim() and source.dim() != 0 and input.dim() != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.dim()}), "
                         f"destination dimensionality ({input.dim()})")
    dim = _wrap_dim(dim, max(input.dim(), 1))
    count = index.numel()
    if source.dim() and count != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    _check_bounds(input, dim, index, "index_copy_(): ", negative_ok=False)
    if input.dim() == 0:
        return _F._index_put(input, (), source.reshape(()))
    return _F._index_put(input, _key(input, dim, index.reshape(-1)), source)


def masked_scatter(input, mask, source):
    """``input`` with its elements where ``mask`` (broadcast) is true replaced, in order,
    by ``source``'s first elements."""
    if not isinstance(source, Tensor):
        raise TypeError("masked_scatter(): argument 'source' (position 2) must be Tensor, not "
                        f"{type(source).__name__}")
    if source.dtype != input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{scalar_type_name(input._data.dtype)} and "
                           f"{scalar_type_name(source._data.dtype)}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {scalar_type_name(mask._data.dtype)}")
    shape = _broadcast_shape(mask, input)
    mask = mask.expand(shape)
    reads_values("masked_scatter counts the mask's true elements")
    count = int(mask._data.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _F._index_put(input.expand(shape), (mask,), source.reshape(-1)[:count])


def masked_scatter_(self, mask, source):
    """In-place ``masked_scatter``: ``mask`` broadcasts to ``self``'s shape."""
    if isinstance(mask, Tensor) and mask._data.dtype == np.bool_:
        mask = mask.expand(self.shape)   # (PyTorch's error where it does not fit)
    return apply_inplace(self, masked_scatter, mask, source)


def index_fill_(self, dim, index, value):
    return apply_inplace(self, index_fill, dim, index, value)


def index_copy_(self, dim, index, source):
    return apply_inplace(self, index_copy, dim, index, source)


def _key(input, dim, index):
    return (slice(None),) * dim + (index,) if input.dim() else (index,)


def _check_bounds(input, dim, index, prefix, negative_ok):
    size = input.shape[dim] if input.dim() else 1
    if not index.numel():
        return
    reads_values("index_fill and index_copy check their indices")
    data = index._data
    low, high = int(data.min()), int(data.max())
    bad = high if high >= size else low if low < (-size if negative_ok else 0) else None
    if bad is not None:
        raise IndexError(f"{prefix}index {bad} is out of bounds for dimension {dim} with size "
                         f"{size}")


def _broadcast_shape(a, b):
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        for i in range(1, min(a.dim(), b.dim()) + 1):
            if a.shape[-i] != b.shape[-i] and 1 not in (a.shape[-i], b.shape[-i]):
                raise RuntimeError(f"The size of tensor a ({a.shape[-i]}) must match the size "
                                   f"of tensor b ({b.shape[-i]}) at non-singleton dimension "
                                   f"{max(a.dim(), b.dim()) - i}") from None
        raise


for _fn in (index_fill, index_fill_, index_copy, index_copy_, masked_scatter, masked_scatter_):
    setattr(Tensor, _fn.__name__, _fn)
