"""Core numpy building blocks for forward expressions (see kernels/__init__.py)."""
import functools
import math
import warnings

import numpy as np
import scipy.special

from minigrad._array import is_array, namespace_of, special_of
from minigrad.kernels.quiet import quietly


# Values that are surely on the host: skipped by a set lookup, the common case kept cheap.
_HOST_TYPES = frozenset({np.ndarray, float, int, bool, complex, type(None), np.float64,
                         np.float32, np.int64, np.bool_})


def xp_of(*values):
    """The array library of ``values``: the first non-numpy one (a device array), else numpy.

    A kernel's inputs may mix arrays with Python scalars, a scalar first (``1 / x``);
    a kernel whose first input is always an array asks ``namespace_of(x)`` directly."""
    for value in values:
        if type(value) not in _HOST_TYPES:
            xp = namespace_of(value)
            if xp is not np:
                return xp
    return np


def special_of_any(*values):
    """The special-functions module of ``values`` (scipy.special unless one is a device array)."""
    for value in values:
        if namespace_of(value) is not np:
            return special_of(value)
    return scipy.special


def stable_argsort(x, axis):
    """``np.argsort(x, axis, kind="stable")`` in ``x``'s library (CuPy's argsort is always
    stable and takes no ``kind``)."""
    xp = namespace_of(x)
    if xp is np:
        return np.argsort(x, axis=axis, kind="stable")
    return xp.argsort(x, axis=axis)


def on_device_of(like, host):
    """``host`` (a small numpy array computed on the host: indices, divisors, averaging
    matrices) in the array library of ``like``; itself on the CPU."""
    xp = namespace_of(like)
    return host if xp is np else xp.asarray(host)


def accumulate(ufunc_name, x, axis):
    """``np.<ufunc_name>.accumulate(x, axis)`` in ``x``'s library.  CuPy accumulates with
    ``add`` only (cumsum, cumprod stand in for add and multiply); other ufuncs take a
    parallel prefix scan: log2(n) steps of the ufunc, exact for maximum and minimum."""
    xp = namespace_of(x)
    if xp is np:
        return getattr(np, ufunc_name).accumulate(x, axis=axis)
    if ufunc_name in ("add", "multiply"):
        return (xp.cumsum if ufunc_name == "add" else xp.cumprod)(x, axis=axis)
    ufunc = getattr(xp, ufunc_name)
    out = xp.moveaxis(x, axis, -1).copy()
    step = 1
    while step < out.shape[-1]:
        out[..., step:] = ufunc(out[..., step:], out[..., :-step])
        step *= 2
    return xp.ascontiguousarray(xp.moveaxis(out, -1, axis))


def result_type(*values):
    """``np.result_type`` of arrays of any library (numpy's own would pull a device array
    to the host): arrays count by their dtype, Python scalars stay weak as in numpy 2."""
    return np.result_type(*[v if isinstance(v, type) else getattr(v, "dtype", v)
                            for v in values])


def axes(dim):
    """PyTorch's ``dim`` (int, sequence or None) as numpy's ``axis``."""
    if dim is None or isinstance(dim, (int, np.integer)):
        return dim
    dim = tuple(dim)
    return dim if dim else None


def axes_of(x, dim):
    """``axes(dim)`` for reducing ``x``.  PyTorch lets a 0-d tensor take dim 0 or -1, as
    numpy's ufunc reductions do; CuPy's refuse any axis there, so that becomes None."""
    axis = axes(dim)
    if x.ndim == 0 and axis is not None and all(
            d in (0, -1) for d in (axis if isinstance(axis, tuple) else (axis,))):
        return None
    return axis


def sum_array(x, dim, keepdim, dtype=None):
    """``torch.sum``: like np.sum, but calls the ufunc directly (np.sum's wrapper costs more
    than summing a small array); integers and bools sum to int64 as in torch."""
    if dtype is None and x.dtype.kind in "biu":
        dtype = np.int64
    if x.__class__ is np.ndarray and dim.__class__ is int:  # (log_softmax's backward)
        return np.add.reduce(x, axis=dim, keepdims=keepdim, dtype=dtype)
    return namespace_of(x).add.reduce(x, axis=axes_of(x, dim), keepdims=keepdim, dtype=dtype)


def sum_to(x, shape):
    """Sum array ``x`` down to ``shape``: undo numpy broadcasting (the op ``sum_to_size``;
    the formula helper ``sum_to`` in autograd/formulas/core.py calls it)."""
    have = x.shape
    if have == shape:  # (saved shapes are tuples already: the common case, first)
        return x
    if shape.__class__ is not tuple:
        shape = tuple(shape)
        if have == shape:
            return x
    lead = len(have) - len(shape)
    if have[lead:] == shape:
        # (a bias's gradient) the sum has ``shape`` itself: a new array, not a view of one,
        # which a leaf keeps as its .grad without copying it.  numpy's own ufunc: the
        # reduction ndarray.sum calls, without its Python wrapper
        if x.__class__ is np.ndarray:
            return np.add.reduce(x, axis=0 if lead == 1 else tuple(range(lead)))
        return x.sum(axis=tuple(range(lead)))
    kept = tuple(i + lead for i, n in enumerate(shape) if n == 1 and have[i + lead] != 1)
    return x.sum(axis=tuple(range(lead)) + kept, keepdims=True).reshape(shape)


def expand_array(x, size):
    """``Tensor.expand``: -1 keeps a dimension; new dimensions go in front."""
    size = tuple(size)
    lead = len(size) - x.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(size)}) must be greater or equal "
            f"to the number of dimensions in the tensor ({x.ndim})")
    for i in reversed(range(len(size))):   # PyTorch's order: from the last dim
        n = size[i]
        if i < lead:
            if n == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
        elif n != -1 and n != x.shape[i - lead] and x.shape[i - lead] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size "
                f"({x.shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                f"{list(size)}.  Tensor sizes: {list(x.shape)}")
    target = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(size))
    if math.prod(target) == x.size:
        return x.reshape(target)  # nothing repeats: a plain, writable view (as torch)
    out = namespace_of(x).broadcast_to(x, target)
    if type(out) is np.ndarray and x.flags.writeable:
        # writable like torch's expand (fill_ and x[mask] = v may write into it);
        # autograd/inplace.py refuses the writes torch refuses (internal overlap)
        out.flags.writeable = True
    return out


def broadcast_copy(self, src):
    """``copy_``: ``src`` broadcast to ``self``'s shape and dtype, as a new array."""
    xp = namespace_of(self)
    if not is_array(src):  # a Python number: CuPy broadcasts only its own arrays
        src = xp.asarray(src)
    return xp.array(xp.broadcast_to(src, self.shape), dtype=self.dtype)


def squeeze_array(x, dim):
    if dim is None:
        return x.squeeze()
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    size = max(x.ndim, 1)  # a 0-d tensor accepts dim 0 and -1
    for d in dims:
        if not -size <= d < size:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-size}, {size - 1}], but got {d})")
    if x.ndim == 0:
        return x.view()
    dims = tuple(d for d in dims if x.shape[d] == 1)  # torch ignores dims of size != 1
    return x.squeeze(axis=dims) if dims else x.view()


def sigmoid_array(x):
    # exp of a negative number only: no overflow for large |x|
    xp = namespace_of(x)
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


def vector_norm_input(x, dtype):
    """vector_norm's input in ``dtype``, which may widen it but not narrow it (PyTorch's rule)."""
    if dtype is None or np.dtype(dtype) == x.dtype:
        return x
    if x.dtype.kind in "biu":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name(x.dtype)}")
    if np.promote_types(x.dtype, dtype) != np.dtype(dtype):
        raise RuntimeError(f"linalg.vector_norm: the dtype of the input "
                           f"({scalar_type_name(x.dtype)}) should be convertible without "
                           f"narrowing to the specified dtype ({scalar_type_name(dtype)})")
    return x.astype(dtype)


def softmax_input(x, dtype, kernel):
    """softmax's input in ``dtype`` (PyTorch converts first, so an integer tensor with
    ``dtype=float32`` is taken); an integral one left is refused, naming ``kernel``."""
    if dtype is not None:
        x = x.astype(dtype, copy=False)
    if x.dtype.kind in "biu":
        raise not_implemented_for(kernel, x.dtype)
    return x


def softmax_array(x, dim):
    return _over_dim(_softmax, x, dim)


def log_softmax_array(x, dim):
    return _over_dim(_log_softmax, x, dim)


def _over_dim(fn, x, dim):
    """``fn(x, dim)`` as torch runs it: a 0-d tensor counts as one element along dim 0
    or -1, an empty tensor gives an empty result, and rows of -inf give NaN silently."""
    size = max(x.ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-size}, {size - 1}], but got {dim})")
    if x.size == 0:
        return namespace_of(x).empty_like(x)
    if x.ndim == 0:
        return fn(x.reshape(1), 0).reshape(())
    if x.dtype == np.float16:   # PyTorch computes half precision in float, then rounds
        return quietly(fn, x.astype(np.float32), dim).astype(np.float16)
    return quietly(fn, x, dim)


def _softmax(x, dim):
    # (the arrays' own max and sum, as _log_softmax)
    e = namespace_of(x).exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(x, dim):
    if x.__class__ is np.ndarray:
        # numpy's ufuncs: the reductions ndarray.max and .sum call (below), without their
        # Python wrappers
        shifted = x - np.maximum.reduce(x, axis=dim, keepdims=True)
        return shifted - np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))
    xp = namespace_of(x)  # (the arrays' own max and sum)
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))


def logsumexp_array(x, dim, keepdim):
    xp = namespace_of(x)
    dim = axes(dim)
    if x.size == 0:  # log(0) = -inf, silently as torch
        return quietly(xp.log, xp.sum(xp.exp(x), axis=dim, keepdims=keepdim))
    peak = xp.amax(x, axis=dim, keepdims=True)
    peak = xp.where(xp.isfinite(peak), peak, 0)
    out = xp.log(xp.sum(xp.exp(x - peak), axis=dim, keepdims=True)) + peak
    return out if keepdim else xp.squeeze(out, axis=dim)


def max_with_indices(x, dim, keepdim):
    return _extremum_with_indices("max", x, dim, keepdim)


def min_with_indices(x, dim, keepdim):
    return _extremum_with_indices("min", x, dim, keepdim)


def _extremum_with_indices(op, x, dim, keepdim):
    """(values, indices) of ``max``/``min`` over one dim, as torch.max(x, dim) returns."""
    xp = namespace_of(x)
    size = max(x.ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-size}, {size - 1}], but got {dim})")
    if x.ndim == 0:  # torch: a 0-d tensor is its own max over dim 0, at index 0
        return x.copy(), xp.zeros((), dtype=np.int64)
    if x.shape[dim] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {dim % x.ndim} to have non-zero size.")
    arg_extremum = xp.argmax if op == "max" else xp.argmin
    indices = arg_extremum(x, axis=dim, keepdims=True)
    values = xp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=dim), xp.squeeze(indices, axis=dim)
    return values, indices


def scatter_add_into_zeros(src, dim, index, shape):
    """zeros(shape) with ``src`` added at ``index`` along ``dim`` (repeats add up)."""
    xp = namespace_of(src)
    out = xp.zeros(shape, dtype=src.dtype)
    if not shape:  # a 0-d tensor is its own only element (torch treats it as 1-d here)
        return out + src
    dim = dim % len(shape)
    coords = list(open_grid(xp, index.shape))
    coords[dim] = index
    xp.add.at(out, tuple(coords), src)
    return out


@functools.lru_cache(maxsize=64)
def open_grid(xp, shape):
    """``np.indices(shape, sparse=True)``: one arange per dim, shaped to broadcast
    (CuPy's ``indices`` has no ``sparse``).  Kept per shape (gather and its backward ask
    for the same grid every training step), read-only where the library allows."""
    ndim = len(shape)
    grid = tuple(xp.arange(n).reshape((1,) * i + (n,) + (1,) * (ndim - i - 1))
                 for i, n in enumerate(shape))
    for axis in grid:
        if type(axis) is np.ndarray:
            axis.flags.writeable = False
    return grid


_SCALAR_TYPE = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
                "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte"}


def scalar_type_name(dtype):
    """PyTorch's name of a dtype in error messages: Long, Float, Bool ..."""
    name = np.dtype(dtype).name
    return "Bool" if name == "bool" else _SCALAR_TYPE.get(name, name)


def not_implemented_for(kernel, dtype):
    """PyTorch's error where it has no ``kernel`` for ``dtype`` (to raise):
    NotImplementedError ``"hypot_cpu" not implemented for 'Long'``."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dtype)}\'')


# PyTorch's matmul kernels name dtypes by their C++ type
_CPP_TYPE = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
             "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
             "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}


def cpp_type_name(dtype):
    """PyTorch's C++ name of a dtype in some messages: float, double, long int ..."""
    name = np.dtype(dtype).name
    return _CPP_TYPE.get(name, name)


def where_array(condition, x, other):
    """``torch.where``: the condition must be boolean (a float mask is a bug PyTorch refuses)."""
    if condition.__class__ is np.ndarray and x.__class__ is float \
            and other.__class__ is np.ndarray and condition.dtype.kind == "b":
        # where(mask, 0.0, grad) of numpy arrays, relu's backward: what the lines below
        # do for it, with fewer calls (they cost as much as a small array's where)
        if other.size >= _MASKED_MIN and _is_plus_zero(x) and _maskable(condition, other):
            return _zero_where(condition, other, True)
        return np.where(condition, x, other)
    kind = getattr(condition, "dtype", None)
    if kind is None:  # a Python bool
        kind = np.asarray(condition).dtype
    if kind != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_SCALAR_TYPE.get(kind.name, kind.name)}")
    if _is_plus_zero(x) and _maskable(condition, other):
        return _zero_where(condition, other, True)
    if _is_plus_zero(other) and _maskable(condition, x):
        return _zero_where(condition, x, False)
    return xp_of(condition, x, other).where(condition, x, other)


# where(mask, 0, grad), the backward of relu, clamp, masked_fill..., as a bitwise and.
# numpy's where branches on every element: on a mask that is true for about half of the
# elements at random (relu's) it mispredicts and takes ~4 ns an element, against ~0.6 ns
# for the passes below over bytes and words (2026-11-27, this machine; equal from ~1,000
# elements).  The and is exact: the values' bits where kept, all zero bits (+0.0, as
# where's) elsewhere.
_MASKED_MIN = 1024
_SAME_WIDTH_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _is_plus_zero(value):
    """A Python 0 or 0.0 (not -0.0, and not a numpy scalar: that one's dtype would count)."""
    kind = type(value)
    return (kind is float or kind is int) and value == 0 and math.copysign(1.0, value) > 0


def _maskable(condition, values):
    """Float ``values`` of the condition's shape and array library: the result is ``values``'
    dtype (a Python zero does not promote), computed by ``_zero_where``."""
    return (type(values) is type(condition) and getattr(values, "size", 0) >= _MASKED_MIN
            and values.shape == condition.shape and values.dtype.kind == "f")


def _zero_where(condition, values, zero_where_true):
    """``where(condition, 0, values)`` (or ``where(condition, values, 0)``) as ``values``'
    bits and-ed with a mask of all ones (keep) or all zeros (zero)."""
    xp = namespace_of(values)
    ints = _SAME_WIDTH_INT[values.dtype.itemsize]
    flags = condition.view(np.int8)   # 1 where true, 0 where false
    # true -> 0 and false -> -1 (every bit set), or the other way round, in bytes, then
    # widened with the sign (astype's cast is ~2x as fast as a ufunc's dtype=int64)
    mask = (flags - 1 if zero_where_true else -flags).astype(ints)
    return xp.bitwise_and(values.view(ints), mask, out=mask).view(values.dtype)


def getitem_array(x, index):
    """``x[index]``: a view for a basic key; for an advanced key a fresh C-ordered copy.

    numpy lays some advanced-indexing results out transposed; PyTorch's are contiguous,
    so ``x[:, [0, 0, 1]].view(6)`` must work."""
    out = x[index_key(index, x)]
    if not out.flags.c_contiguous:
        xp = namespace_of(x)
        if not xp.may_share_memory(out, x):
            out = xp.ascontiguousarray(out)
    return out


def index_key(index, like=None):
    """A Python indexing key with Tensors replaced by their arrays (lists of indices become
    arrays of the library of ``like``, the indexed array).

    A basic key gets a trailing ``...`` so that ``x[0]`` of a vector is a 0-d view
    into ``x`` (as in PyTorch), not a numpy scalar copy.
    """
    kind = type(index)
    if kind is int or kind is slice:          # the common cases, kept quick
        return (index, Ellipsis)
    if kind is tuple:
        has_ellipsis = False
        for part in index:
            if part is Ellipsis:
                has_ellipsis = True
            elif not (type(part) is int or type(part) is slice or part is None):
                return tuple(_index_part(i, like) for i in index)   # advanced: a copy anyway
        return index if has_ellipsis else index + (Ellipsis,)
    part = _index_part(index, like)
    if isinstance(part, np.integer) or part is None:
        return (part, Ellipsis)
    return part


def with_torch_ellipses(index, ndim):
    """``index`` itself, or for a key with several ``...``, torch_ellipses of it."""
    if type(index) is tuple and sum(part is Ellipsis for part in index) > 1:
        return torch_ellipses(index, ndim)
    return index


def torch_key(index, ndim):
    """``index`` as PyTorch reads it: several ``...`` as torch_ellipses, and a 0-d integer
    tensor as the integer it holds (PyTorch selects there, so ``x[i]`` is a view as for
    an int, where numpy would copy; PyTorch reads the value too)."""
    if type(index) is tuple:
        if any(getattr(part, "_data", None) is not None for part in index):
            index = tuple(_torch_part(part) for part in index)
        return with_torch_ellipses(index, ndim)
    return _torch_part(index)


def _torch_part(part):
    """A key part as PyTorch reads it: a 0-d integer tensor is its int, a uint8 tensor a
    mask (deprecated in PyTorch, which warns), other small integer dtypes refused."""
    data = getattr(part, "_data", None)
    if data is None:
        return part
    dtype = data.dtype
    if dtype.kind not in "iu" or data.ndim and dtype.kind == "i" and dtype.itemsize >= 4:
        return part   # (the common index tensors: int64 and int32, as they are)
    if dtype == np.uint8:
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                      "torch.bool instead.", UserWarning, stacklevel=4)
        return data.astype(np.bool_)
    if data.dtype not in (np.int64, np.int32):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return int(data) if data.ndim == 0 else part


def torch_ellipses(index, ndim):
    """A key with several ``...`` read as PyTorch reads it (numpy allows one): each
    ``...`` stands for the dims that the key's other parts do not index, and what
    would run past the last dim is dropped."""
    specified = 0
    for part in index:
        if part is None or part is Ellipsis or isinstance(part, bool):
            continue
        data = getattr(part, "_data", part)
        bool_mask = getattr(data, "dtype", None) == np.bool_  # numpy or device array
        specified += data.ndim if bool_mask else 1
    fill = (slice(None),) * max(ndim - specified, 0)
    parts = []
    for part in index:
        parts.extend(fill if part is Ellipsis else (part,))
    while (sum(p is not None for p in parts) > ndim and isinstance(parts[-1], slice)
           and parts[-1] == slice(None)):
        parts.pop()
    return tuple(parts)


def split_selects(index):
    """``(select_key, rest)`` for a key that mixes integers with advanced indices, else None
    (``index`` as torch_key gives it).

    PyTorch selects at each integer first and indexes what is left
    with the rest of the key; numpy counts the integers among the advanced indices, which
    moves the result's dims (``x[1, :, [0, 1]]`` of a 2x3x4 is 3x2 in PyTorch, 2x3 in
    numpy).  ``x[select_key][rest]`` is PyTorch's reading; ``select_key`` is basic (a view).
    """
    if type(index) is not tuple:
        return None
    has_int = has_advanced = False
    for part in index:
        if _is_int_part(part):
            has_int = True
        elif not (part is None or part is Ellipsis or type(part) is slice or type(part) is bool):
            has_advanced = True
    if not (has_int and has_advanced):
        return None
    select_key, rest = [], []
    for part in index:
        if _is_int_part(part):
            select_key.append(part)
            continue
        rest.append(part)
        if part is Ellipsis:
            select_key.append(part)
        elif not (part is None or type(part) is bool):   # these add a dim, index none
            select_key.extend((slice(None),) * _dims_indexed(part))
    return tuple(select_key), tuple(rest)


def _is_int_part(part):
    return isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_))


def _dims_indexed(part):
    """How many of the indexed array's dims a key part reads: a mask's ndim, else one."""
    data = getattr(part, "_data", part)
    if isinstance(data, (list, tuple)):
        data = np.asarray(data)
    return data.ndim if getattr(data, "dtype", None) == np.bool_ else 1


def _index_part(part, like):
    data = getattr(part, "_data", None)
    if data is not None:
        return data
    if isinstance(part, list):  # of ints, or of Tensors: indices in the indexed array's library
        return namespace_of(like).asarray([_index_part(p, like) for p in part])
    return part


def index_put_array(x, index, values):
    """``x`` with ``x[index] = values`` applied, out of place (``x[index] = v`` as an op)."""
    out = x.copy()
    try:
        out[index_key(index, x)] = values
    except TypeError as exc:  # numpy's boolean-mask assignment refuses a 2-d value this way
        raise ValueError(f"value array could not be broadcast: {exc}") from None
    return out


def index_into_zeros(grad, shape, key):
    """The gradient of ``x[key]``: zeros of x's shape with ``grad`` added at ``key``."""
    xp = namespace_of(grad)
    out = xp.zeros(shape, dtype=grad.dtype)
    xp.add.at(out, key, grad)  # add, not assign: an advanced key may repeat an element
    return out
