"""numpy building blocks for the shape ops' `forward:` expressions.

Ops that are views in PyTorch return numpy views here (writable when the input is);
ops that copy in PyTorch (flip, roll, diag, ...) return fresh arrays, so that writing
into their result never changes the input behind autograd's back.
"""
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import axes, cpp_type_name, open_grid, result_type, scalar_type_name


def _int_tuple(value):
    """An int or a sequence of ints as a tuple of ints."""
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    try:
        items = tuple(value)
    except TypeError:
        items = (value,)
    bad = [v for v in items if not isinstance(v, (int, np.integer)) or isinstance(v, bool)]
    if bad:
        raise TypeError(f"expected a sequence of ints (a shape or dims), but got {value!r}")
    return tuple(int(v) for v in items)


def _wrap_dim(dim, ndim):
    """``dim`` in [-ndim, ndim) as a non-negative dim (0-d tensors accept 0 and -1)."""
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-size}, {size - 1}], but got {dim})")
    return dim % size


def view_array(x, size):
    """``Tensor.view``: a reshape that must not copy (numpy >= 2.1 can tell)."""
    if isinstance(size, (type, np.dtype)):
        raise TypeError("view(dtype) (reinterpreting the bytes) is not supported; use "
                        ".to(dtype) to convert the values, or .view(*shape) to reshape")
    try:
        return _reshape_view(x, _int_tuple(size))
    except ValueError as exc:
        if "copy" not in str(exc):
            from minigrad.autograd.numpy_errors import reshape_message  # PyTorch's words
            raise RuntimeError(reshape_message(x.size, _int_tuple(size))) from None
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None


def _reshape_view(x, shape):
    """``x`` reshaped without a copy, or ValueError naming the copy (numpy's own message)."""
    xp = namespace_of(x)
    if xp is np:
        return np.reshape(x, shape, copy=False)
    out = x.reshape(shape)  # CuPy's reshape has no copy=: it copies when it must
    if out.size and not xp.may_share_memory(out, x):
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return out


def flatten_array(x, start_dim, end_dim):
    if x.ndim == 0:
        return x.reshape(1)
    start, end = _wrap_dim(start_dim, x.ndim), _wrap_dim(end_dim, x.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    return x.reshape(x.shape[:start] + (-1 if x.size else int(np.prod(x.shape[start:end + 1])),)
                     + x.shape[end + 1:])


def unflatten_array(x, dim, sizes):
    dim = _wrap_dim(dim, x.ndim)
    sizes = _int_tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    return x.reshape(x.shape[:dim] + sizes + x.shape[dim + 1:])


def t_array(x):
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D; "
                           "use transpose(dim0, dim1) or .mT for batches of matrices")
    return x.transpose()


def movedim_array(x, source, destination):
    source, destination = _int_tuple(source), _int_tuple(destination)
    if x.ndim == 0:  # dims 0 and -1 name the one "dim" of a 0-d tensor: nothing moves
        for d in source + destination:
            _wrap_dim(d, 0)
        return x.view()
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(destination)} dims)")
    return namespace_of(x).moveaxis(x, source, destination)


def transpose_array(x, dim0, dim1):
    """``torch.transpose``; on a 0-d tensor dims 0 and -1 are allowed and nothing moves."""
    if x.ndim == 0:
        _wrap_dim(dim0, 0)
        _wrap_dim(dim1, 0)
        return x.view()
    return x.swapaxes(dim0, dim1)


def flip_array(x, dims):
    """``torch.flip`` (a copy, as torch); a 0-d tensor flips to itself."""
    if x.ndim == 0:
        for d in _int_tuple(dims):
            _wrap_dim(d, 0)
        return x.copy()
    seen = set()
    for d in _int_tuple(dims):
        d = _wrap_dim(d, x.ndim)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return namespace_of(x).flip(x, axes(dims)).copy()


def permute_array(x, dims):
    dims = _int_tuple(dims)
    if len(dims) != x.ndim:
        raise RuntimeError(f"permute: number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{x.ndim} is not equal to len(dims) = {len(dims)}")
    return x.transpose(dims)


def _split_sizes(length, split_size_or_sections, op, dim=0):
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step <= 0 and length:
            raise RuntimeError(f"{op} expects split_size be non-negative, but got split_size={step}")
        if length == 0:
            return [0]
        return [min(step, length - start) for start in range(0, length, step)]
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != length or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} "
                           f"(input tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return sizes


def _pieces(x, dim, sizes):
    dim = _wrap_dim(dim, x.ndim)
    out, start = [], 0
    for size in sizes:
        out.append(x[(slice(None),) * dim + (slice(start, start + size),)])
        start += size
    return out


def split_array(x, split_size_or_sections, dim):
    """``torch.split``: an int is the size of each piece (the last may be smaller)."""
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim_ = _wrap_dim(dim, x.ndim)
    return _pieces(x, dim_, _split_sizes(x.shape[dim_], split_size_or_sections, "split", dim_))


def chunk_array(x, chunks, dim):
    """``torch.chunk``: pieces of ceil(n / chunks) elements; may return fewer than ``chunks``."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if x.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim_ = _wrap_dim(dim, x.ndim)
    length = x.shape[dim_]
    step = -(-length // chunks) if length else 0
    return _pieces(x, dim_, _split_sizes(length, step, "chunk") if step else [0] * chunks)


def unbind_array(x, dim):
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _wrap_dim(dim, x.ndim)
    # the trailing ``...`` keeps a 0-d piece a view, not a numpy scalar copy
    return [x[(slice(None),) * dim + (i, Ellipsis)] for i in range(x.shape[dim])]


def narrow_key(shape, dim, start, length):
    """The slicing key of ``narrow(dim, start, length)`` (``start`` may count from the end)."""
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    size = shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start % size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return (slice(None),) * dim + (slice(start, start + length),)


def select_key(shape, dim, index):
    """The indexing key of ``select(dim, index)`` (``index`` may count from the end)."""
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(shape)} at dimension {dim}")
    return (slice(None),) * dim + (index % size, Ellipsis)  # `...`: a 0-d result stays a view


def repeat_array(x, repeats):
    repeats = _int_tuple(repeats)
    if len(repeats) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    if any(r < 0 for r in repeats):
        padded = (1,) * (len(repeats) - x.ndim) + x.shape
        sizes = [n * r for n, r in zip(padded, repeats)]
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(n for n in sizes if n < 0)}: {sizes}")
    return namespace_of(x).tile(x, repeats)


def roll_array(x, shifts, dims):
    shifts = _int_tuple(shifts)
    if dims is None or (not isinstance(dims, (int, np.integer)) and len(dims) == 0):
        if len(shifts) != 1:
            raise RuntimeError("roll: dims must be given when shifts has more than one value")
        return namespace_of(x).roll(x, shifts[0])
    dims = _int_tuple(dims)
    if len(dims) != len(shifts):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    return namespace_of(x).roll(x, shifts, dims)


def diag_array(x, diagonal):
    if x.ndim not in (1, 2):
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{x.ndim}D")
    xp = namespace_of(x)
    return xp.array(xp.diag(x, diagonal), copy=True)


def diagonal_array(x, offset, dim1, dim2):
    """A writable view of a diagonal (numpy's own is read-only); it goes last, as in torch."""
    dim1, dim2 = _wrap_dim(dim1, x.ndim), _wrap_dim(dim2, x.ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    xp = namespace_of(x)
    if xp is not np:  # CuPy's diagonal is a writable view already
        return xp.diagonal(x, offset, dim1, dim2)
    start = [0] * x.ndim
    if offset >= 0:
        start[dim2] = min(offset, x.shape[dim2])
    else:
        start[dim1] = min(-offset, x.shape[dim1])
    corner = x[tuple(slice(s, None) for s in start)]
    n = max(min(corner.shape[dim1], corner.shape[dim2]), 0)
    keep = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    shape = tuple(corner.shape[d] for d in keep) + (n,)
    strides = tuple(corner.strides[d] for d in keep) + (corner.strides[dim1] + corner.strides[dim2],)
    return np.lib.stride_tricks.as_strided(corner, shape, strides)


def diagonal_into_zeros(x, shape, offset, dim1, dim2):
    """zeros(shape) with ``x`` written on the diagonal ``(offset, dim1, dim2)``."""
    xp = namespace_of(x)
    out = xp.zeros(shape, dtype=x.dtype)
    if xp is np:
        diagonal_array(out, offset, dim1, dim2)[...] = x
        return out
    # by index, not through a diagonal view (a backend's diagonal may be read-only)
    dim1, dim2 = _wrap_dim(dim1, len(shape)), _wrap_dim(dim2, len(shape))
    first, second = (0, offset) if offset >= 0 else (-offset, 0)
    steps = xp.arange(x.shape[-1])
    xp.moveaxis(out, (dim1, dim2), (-2, -1))[..., steps + first, steps + second] = x
    return out


def diag_embed_array(x, offset, dim1, dim2):
    n = x.shape[-1] + abs(offset)
    ndim = x.ndim + 1
    dim1, dim2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    batch = list(x.shape[:-1])
    shape = []
    for d in range(ndim):
        shape.append(n if d in (dim1, dim2) else batch.pop(0))
    return diagonal_into_zeros(x, tuple(shape), offset, dim1, dim2)


def _along(index_shape, dim, index):
    """A fancy-indexing key: ``index`` along ``dim``, the position itself elsewhere."""
    xp = np if index.__class__ is np.ndarray else namespace_of(index)
    coords = list(open_grid(xp, index_shape))
    coords[dim] = index
    return tuple(coords)


def _check_index(index, op):
    if index.dtype.kind not in "iu":
        raise RuntimeError(f"{op}(): Expected dtype int64 for index, got {index.dtype}")


def gather_array(x, dim, index):
    """``torch.gather``: ``index`` may be smaller than ``x`` in every dim (no broadcasting)."""
    if index.dtype.kind not in "iu":  # (the test of _check_index, a call less per step)
        _check_index(index, "gather")
    ndim = x.ndim
    if index.ndim != ndim and not (ndim == 0 and index.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if ndim == 0:
        _wrap_dim(dim, 0)
        return namespace_of(x).broadcast_to(x, index.shape).copy()
    if not 0 <= dim < ndim:  # (the common dims need no wrapping)
        dim = _wrap_dim(dim, ndim)
    return x[_along(index.shape, dim, index)]


def _one_element(op, x, dim, index, src):
    """A 0-d ``x`` scattered into as PyTorch does: as one element along dim 0 (``dim`` 0 or
    -1, ``index`` 0-d or of one element); the result 0-d again."""
    _wrap_dim(dim, 0)
    src = src.reshape(-1) if hasattr(src, "reshape") else src   # (scatter takes a number too)
    kernel = scatter_array if op == "scatter" else scatter_add_array
    return kernel(x.reshape(1), 0, index.reshape(-1), src).reshape(())


def _check_src_dtype(x, src):
    """PyTorch's scatter kernels do not promote: ``src`` must have ``x``'s dtype."""
    if getattr(src, "dtype", x.dtype) != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def scatter_array(x, dim, index, src):
    """``torch.scatter``: a copy of ``x`` with ``src`` (tensor or number) written at ``index``."""
    _check_index(index, "scatter")
    _check_src_dtype(x, src)
    if x.ndim == 0:
        return _one_element("scatter", x, dim, index, src)
    out = x.copy()
    dim = _wrap_dim(dim, x.ndim)
    if getattr(src, "ndim", 0):
        src = src[tuple(slice(0, n) for n in index.shape)]
    out[_along(index.shape, dim, index)] = src
    return out


def scatter_add_array(x, dim, index, src):
    if index.dtype.kind not in "iu":  # (as gather_array)
        _check_index(index, "scatter_add")
    _check_src_dtype(x, src)
    if x.ndim == 0:
        return _one_element("scatter_add", x, dim, index, src)
    same = x.dtype == src.dtype   # (the common case, a gradient: result_type not needed)
    out = x.copy(order="K") if same else x.astype(result_type(x, src))
    if not 0 <= dim < x.ndim:
        dim = _wrap_dim(dim, x.ndim)
    shape = index.shape
    if src.shape != shape:
        src = src[tuple(slice(0, n) for n in shape)]
    xp = np if x.__class__ is np.ndarray else namespace_of(x)
    xp.add.at(out, _along(shape, dim, index), src)
    return out if same else out.astype(x.dtype, copy=False)


#: each reduction's ufunc, by name (the array library's own: numpy's or CuPy's)
_SCATTER_REDUCE = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum",
                   "amin": "minimum"}


def scatter_reduce_array(x, dim, index, src, reduce, include_self):
    """``torch.scatter_reduce``: each element of ``src`` reduced into ``x`` at ``index``
    along ``dim`` (with ``x``'s own value unless ``include_self`` is False); 'mean' divides
    by the count (floored for integers, as torch)."""
    reduce = scatter_reduction(reduce)
    _check_index(index, "scatter_reduce")
    _check_src_dtype(x, src)
    if x.ndim == 0:
        _wrap_dim(dim, 0)
        return scatter_reduce_array(x.reshape(1), 0, index.reshape(-1), src.reshape(-1), reduce,
                                    include_self).reshape(())
    dim = _wrap_dim(dim, x.ndim)
    src = src[tuple(slice(0, n) for n in index.shape)]
    where = _along(index.shape, dim, index)
    xp = namespace_of(x)
    out = x.copy()
    if not include_self:   # scattered-to positions start from the reduction's identity
        out[where] = _identity(reduce, x.dtype)
    values = src.astype(x.dtype, copy=False)
    ufunc = getattr(xp, _SCATTER_REDUCE[reduce])
    if xp is np or reduce in ("sum", "mean"):
        ufunc.at(out, where, values)
    else:  # CuPy has no multiply.at; its maximum.at, minimum.at round float64 to float32
        _at_in_rounds(xp, ufunc, out, where, values)
    if reduce != "mean":
        return out
    counts = xp.zeros(x.shape, dtype=np.int64)
    xp.add.at(counts, where, 1)
    counts = counts + 1 if include_self else xp.maximum(counts, 1)
    if x.dtype.kind in "iub":
        return xp.floor_divide(out, counts).astype(x.dtype)
    return (out / counts).astype(x.dtype)


def _at_in_rounds(xp, ufunc, out, where, values):
    """``ufunc.at(out, where, values)`` without ``ufunc.at``: the values are sorted by
    target, and each round applies one value to every target, so no round writes a target
    twice.  As many rounds as the most values one target gets."""
    keys = sum(w * math.prod(out.shape[d + 1:]) for d, w in enumerate(where))  # flat targets
    keys = xp.broadcast_to(keys, values.shape).ravel()
    order = xp.argsort(keys)
    keys, values = keys[order], values.ravel()[order]
    rank = xp.arange(keys.size) - xp.searchsorted(keys, keys)  # place among its target's
    flat = out.reshape(-1)  # a view: out is a fresh copy, contiguous
    for r in range(int(rank.max()) + 1 if keys.size else 0):
        this_round = rank == r
        targets = keys[this_round]
        flat[targets] = ufunc(flat[targets], values[this_round])


def scatter_reduction(reduce):
    """``reduce`` checked, with torch's aliases: 'max' is 'amax', 'min' 'amin'."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    return reduce


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def index_select_array(x, dim, index):
    _check_index(index, "index_select")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = _wrap_dim(dim, x.ndim)
    index = index.reshape(-1)
    if index.size and int(index.min()) < 0:  # numpy would count from the end; PyTorch refuses
        raise IndexError(f"index {int(index.min())} is out of bounds for axis {dim} with size "
                         f"{x.shape[dim] if x.ndim else 1}")  # worded as PyTorch's by numpy_errors
    return namespace_of(x).take(x, index, axis=dim)


def index_add_array(x, dim, index, source, alpha):
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {scalar_type_name(index.dtype)} and size: "
                         f"{list(index.shape)}")
    _check_index(index, "index_add")
    if getattr(source, "dtype", x.dtype) != x.dtype:
        raise RuntimeError(f"index_add_(): self ({scalar_type_name(x.dtype)}) and source "
                           f"({scalar_type_name(source.dtype)}) must have the same scalar type")
    dim = _wrap_dim(dim, x.ndim)
    _check_index_add_shapes(x.shape, dim, index.size, np.shape(source))
    if x.ndim == 0:   # a 0-d self and source: one element
        return index_add_array(x.reshape(1), 0, index, source.reshape(1), alpha).reshape(())
    xp = namespace_of(x)
    out = x.astype(result_type(x, source))
    source = xp.asarray(source) if alpha == 1 else xp.multiply(alpha, source)
    key = (slice(None),) * dim + (index.reshape(-1),)
    xp.add.at(out, key, source if x.ndim == 0 or source.ndim else source.reshape((1,)))
    return out.astype(x.dtype, copy=False)


def _check_index_add_shapes(shape, dim, count, source_shape):
    """PyTorch's checks of index_add's source against self and the index."""
    if dim != 0 and dim >= len(source_shape):
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source "
                           f"tensor with dim {len(source_shape)}")
    along = source_shape[dim] if source_shape else 1
    if count != along:
        raise RuntimeError(f"index_add_(): Number of indices ({count}) should be equal to "
                           f"source.size(dim): ({along}), for dim: {dim}")
    if len(shape) != len(source_shape) or any(
            a != b for d, (a, b) in enumerate(zip(shape, source_shape)) if d != dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(shape)} source.shape = "
                           f"{list(source_shape)}")


def masked_select_array(x, mask):
    """``masked_select``: the elements of ``x`` where ``mask`` is true (both broadcast
    together first), as a new 1-D array."""
    shape = np.broadcast_shapes(x.shape, mask.shape)
    xp = namespace_of(x)
    return xp.broadcast_to(x, shape)[xp.broadcast_to(mask, shape)]


def masked_fill_array(x, mask, value):
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_type_name(mask.dtype)}")
    if getattr(value, "ndim", 0) != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    return namespace_of(x).where(mask, value, x).astype(x.dtype, copy=False)


def take_along_dim_array(x, indices, dim):
    _check_index(indices, "take_along_dim")
    xp = namespace_of(x)
    if dim is None:
        return xp.take(x.reshape(-1), indices.reshape(-1))
    dim = _wrap_dim(dim, x.ndim)
    if x.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {x.ndim} dimensions for input, and "
                           f"{indices.ndim} dimensions for indices")
    shape = np.broadcast_shapes(x.shape[:dim] + (1,) + x.shape[dim + 1:],
                                indices.shape[:dim] + (1,) + indices.shape[dim + 1:])
    x = xp.broadcast_to(x, shape[:dim] + (x.shape[dim],) + shape[dim + 1:])
    indices = xp.broadcast_to(indices, shape[:dim] + (indices.shape[dim],) + shape[dim + 1:])
    return xp.take_along_axis(x, indices, axis=dim)


def take_along_dim_backward_array(grad, dim, indices, shape):
    """``take_along_dim`` backward: ``grad`` added at ``indices`` into zeros of ``shape``.

    The forward broadcast the input against ``indices`` in the other dims, so the sum
    is formed at the broadcast shape and then summed down to ``shape``.
    """
    from minigrad.kernels.core import scatter_add_into_zeros, sum_to
    shape = tuple(shape)
    xp = namespace_of(grad)
    if dim is None:
        out = xp.zeros(int(np.prod(shape)), dtype=grad.dtype)
        xp.add.at(out, indices.reshape(-1), grad.reshape(-1))
        return out.reshape(shape)
    dim = dim % len(shape)
    wide = list(grad.shape)
    wide[dim] = shape[dim]
    indices = xp.broadcast_to(indices, grad.shape)
    return sum_to(scatter_add_into_zeros(grad, dim, indices, tuple(wide)), shape)
