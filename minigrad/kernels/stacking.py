"""numpy forwards of the stacking, splitting and difference ops numpy users reach for:
``hstack``/``vstack``/``dstack``/``column_stack``, ``atleast_nd``, ``tensor_split`` and
``hsplit``/``vsplit``/``dsplit``, ``diff``, ``trapezoid``, ``repeat_interleave``,
``rot90``, ``flipud``/``fliplr``. Errors are PyTorch's."""
import numpy as np

from minigrad._array import namespace_of, to_host
from minigrad.kernels.core import not_implemented_for, scalar_type_name, xp_of
from minigrad.kernels.shape import _wrap_dim

__all__ = ["stack_family_array", "atleast_array", "tensor_split_keys", "tensor_split_array", "directional_split_array",
           "directional_split_dim", "diff_array", "trapezoid_array", "repeat_interleave_array", "repeat_interleave_indices",
           "rot90_array", "flip_lr_ud_array"]

def stack_family_array(tensors, kind):
    if not tensors:
        raise RuntimeError(f"{kind} expects a non-empty TensorList")
    return getattr(xp_of(*tensors), kind)(tensors)  # kind: hstack, vstack, dstack, column_stack


def _split_points(value):
    """tensor_split's sections or cut points; a tensor of them is read on the host (a 0-d
    one is a number of sections), with PyTorch's checks."""
    data = getattr(value, "_data", value)
    if not hasattr(data, "dtype"):
        return value
    if data.dtype != np.int64:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {scalar_type_name(data.dtype)}")
    if data.ndim > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                           "zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{data.ndim} dims")
    data = to_host(data) if namespace_of(data) is not np else data
    return int(data) if data.ndim == 0 else [int(i) for i in data]


def atleast_array(x, ndim):
    return getattr(namespace_of(x), f"atleast_{ndim}d")(x)


def tensor_split_keys(shape, indices_or_sections, dim):
    """The slicing key of each piece of ``torch.tensor_split``: an int is a number of
    near-equal sections, a list the cut points (pieces may be empty)."""
    if not shape:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = _wrap_dim(dim, len(shape))
    length = shape[dim]
    indices_or_sections = _split_points(indices_or_sections)
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(length, sections)
        sizes = [small + 1] * extra + [small] * (sections - extra)
        cuts = list(np.cumsum(sizes)[:-1])
    else:
        cuts = [min(max(int(i) + (length if i < 0 else 0), 0), length) for i in indices_or_sections]
    bounds = [0] + cuts + [length]
    return [(slice(None),) * dim + (slice(start, max(start, stop)),)
            for start, stop in zip(bounds, bounds[1:])]


def tensor_split_array(x, indices_or_sections, dim):
    return [x[key] for key in tensor_split_keys(x.shape, indices_or_sections, dim)]


def directional_split_dim(kind, ndim):
    """The dim ``hsplit``/``vsplit``/``dsplit`` cut along (hsplit: 0 for 1-D tensors)."""
    if kind == "hsplit":
        return 1 if ndim >= 2 else 0
    return {"vsplit": 0, "dsplit": 2}[kind]


def directional_split_array(x, indices_or_sections, kind):
    least = {"hsplit": 1, "vsplit": 2, "dsplit": 3}[kind]
    if x.ndim < least:
        raise RuntimeError(f"torch.{kind} requires a tensor with at least {least} dimension, but "
                           f"got a tensor with {x.ndim} dimensions!")
    dim = directional_split_dim(kind, x.ndim)
    if isinstance(indices_or_sections, (int, np.integer)) and (
            indices_or_sections == 0 or x.shape[dim] % indices_or_sections):
        raise RuntimeError(f"torch.{kind} attempted to split along dimension {dim}, but the size "
                           f"of the dimension {x.shape[dim]} is not divisible by the split_size "
                           f"{indices_or_sections}!")
    return tensor_split_array(x, indices_or_sections, dim)


def diff_array(x, n, dim, prepend, append):
    """``torch.diff``: the n-th forward difference along ``dim``, after prepending/appending."""
    if x.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, x.ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    xp = namespace_of(x)
    full = xp.concatenate(parts, axis=dim) if len(parts) > 1 else x
    return xp.diff(full, n=n, axis=dim)


def trapezoid_array(y, x, dx, dim):
    dim = _wrap_dim(dim, y.ndim)
    xp = namespace_of(y)
    trapezoid = getattr(xp, "trapezoid", None) or xp.trapz  # CuPy 13 calls it trapz
    if x is None:
        return trapezoid(y, dx=dx, axis=dim)
    return trapezoid(y, x=x, axis=dim)


def repeat_interleave_array(x, repeats, dim):
    if isinstance(repeats, (int, np.integer)):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
    else:
        repeats = _host_repeats(repeats, "repeats must be 0-dim or 1-dim tensor")
        length = x.shape[_wrap_dim(dim, x.ndim)] if dim is not None else x.size
        if repeats.ndim == 1 and repeats.size not in (length, 1):
            shown = "0" if dim is None else _wrap_dim(dim, x.ndim)
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.size} and input.size({shown}) = "
                               f"{length}")
    xp = namespace_of(x)
    if xp is not np and not isinstance(repeats, (int, np.integer)):
        repeats = repeats.tolist()   # CuPy's repeat takes an int or a list of ints
    if dim is None:
        return xp.repeat(x.reshape(-1), repeats)
    return xp.repeat(x, repeats, axis=_wrap_dim(dim, x.ndim))


def repeat_interleave_indices(repeats):
    """``torch.repeat_interleave(repeats)``: each index i, ``repeats[i]`` times."""
    host = _host_repeats(repeats, "repeat_interleave only accept 1D vector as repeat",
                         one_dim=True)
    xp = namespace_of(repeats)
    counts = host if xp is np else host.tolist()
    return xp.repeat(xp.arange(host.size, dtype=repeats.dtype), counts)


def _host_repeats(repeats, ndim_error, one_dim=False):
    """The repeats on the host (the result's shape depends on them), with PyTorch's checks."""
    if namespace_of(repeats) is not np:
        repeats = to_host(repeats)
    repeats = np.asarray(repeats)
    if repeats.dtype.kind not in "iu":
        raise not_implemented_for("repeat_interleave_cpu", repeats.dtype)
    if repeats.ndim > 1 or (one_dim and repeats.ndim != 1):
        raise RuntimeError(ndim_error)
    if (repeats < 0).any():
        raise RuntimeError("repeats can not be negative")
    return repeats


def rot90_array(x, k, dims):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x.ndim}")
    a, b = (_wrap_dim(d, x.ndim) for d in dims)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and "
                           f"dim1 = {b}")
    return namespace_of(x).rot90(x, k, axes=(a, b)).copy()


def flip_lr_ud_array(x, kind):
    least = 2 if kind == "fliplr" else 1
    if x.ndim < least:
        raise RuntimeError(f"Input must be >= {least}-d.")
    return namespace_of(x).flip(x, 1 if kind == "fliplr" else 0).copy()
