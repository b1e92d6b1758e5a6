"""numpy's errors in a forward, raised as PyTorch raises them.

A forward computes with numpy (``_generated/array_ops.py``); when numpy refuses the
arguments, the user should see PyTorch's exception type and a message naming the op
and the shapes, not a numpy ``ValueError`` or ``AxisError``.

>>> minigrad.zeros(2, 3) + minigrad.zeros(4)
Traceback (most recent call last):
RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1
"""
import re

import numpy as np

from minigrad.kernels.core import index_key
from minigrad import _array

_BROADCAST = re.compile(r"operands could not be broadcast together with (?:remapped )?shapes "
                        r"(?:\[original->remapped\]: )?\(([\d,]*)\)\s*(?:->\([\d,]*\)\s*)?\(([\d,]*)\)")
_CONCAT = re.compile(r"along dimension (\d+), the array at index 0 has size (\d+) and the array at "
                     r"index (\d+) has size (\d+)")
_AXIS = re.compile(r"axis (-?\d+) is out of bounds for array of dimension (\d+)")
_INDEX_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")
_NDIM = re.compile(r"array at index 0 has (\d+) dimension\(s\) and the array at index (\d+) has "
                   r"(\d+) dimension")
_VALUE_SHAPE = re.compile(r"value array of shape \(([\d,]*)\) could not be broadcast to "
                          r"indexing result of shape \(([\d,]*)\)")
_MASK_COUNT = re.compile(r"cannot assign (\d+) input values to the (\d+) output values")
_MASK_SHAPE = re.compile(r"along axis (\d+); size of axis is (\d+) but size of corresponding boolean "
                         r"axis is (\d+)")
_INDEX_BROADCAST = re.compile(r"indexing arrays could not be broadcast together with shapes ((?:\([\d,]*\) ?)+)")
_RESHAPES = ("reshape", "view", "reshape_as", "view_as")
_GATHERS = ("gather", "scatter", "scatter_add", "scatter_reduce", "take_along_dim")


def translate(exc, op, *args, **options):
    """The exception PyTorch raises where numpy raised ``exc`` in ``op``'s forward
    (``exc`` itself when its cause is not recognised); ``args`` are the forward's arguments."""
    devices = _devices(args)
    if len(devices) > 1:  # CuPy refuses numpy operands (TypeError), or another GPU's arrays
        return RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                            f"two devices, {devices[0]} and {devices[1]}!")
    if op == "gather" and np.ndim(args[2]) == np.ndim(args[0]):  # numpy: IndexError or ValueError
        mismatch = _gather_size_mismatch(np.shape(args[0]), args[1], np.shape(args[2]))
        if mismatch:
            return RuntimeError(mismatch)
    message = str(exc)
    if isinstance(exc, IndexError) and not isinstance(exc, ValueError):  # AxisError is both
        return _index_error(exc, op, args)
    if "cannot reshape array of size" in message and op in _RESHAPES:
        return RuntimeError(reshape_message(np.size(args[0]), np.shape(args[1]) if op.endswith("_as")
                                             else args[1]))
    if op == "unflatten" and "cannot reshape" in message:
        dim, sizes = args[1] % max(np.ndim(args[0]), 1), list(args[2])
        return RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim "
                            f"{args[1]} ({np.shape(args[0])[dim]}) in the input tensor")
    if op == "sum_to_size" and "cannot reshape" in message:
        return RuntimeError(f"size {{{list(args[1])}}} is not expandable to size "
                            f"{{{list(np.shape(args[0]))}}}.")
    if "repeated axis in transpose" in message:
        return RuntimeError(f"{op}(): duplicate dims are not allowed.")
    if "duplicate value in 'axis'" in message:
        return RuntimeError(f"dim {_first_repeated(args[1], np.ndim(args[0]))} appears multiple "
                            "times in the list of dims")
    if op == "stack" and "all input arrays must have the same shape" in message:
        shapes = [list(np.shape(a)) for a in args[0]]
        k = next(i for i, s in enumerate(shapes) if s != shapes[0])
        return RuntimeError(f"stack expects each tensor to be equal size, but got {shapes[0]} at "
                            f"entry 0 and {shapes[k]} at entry {k}")
    if "Integers to negative integer powers are not allowed" in message:
        return RuntimeError(message)  # numpy's words and torch's, but torch's type
    if "need at least one array to stack" in message:
        return RuntimeError("stack expects a non-empty TensorList")
    if "need at least one array to concatenate" in message:
        return ValueError(f"torch.{op}(): expected a non-empty list of Tensors")
    match = _NDIM.search(message)
    if match:
        want, _, got = match.groups()
        return RuntimeError(f"Tensors must have same number of dimensions: got {want} and {got}")
    match = _VALUE_SHAPE.search(message)
    if match:
        value, result = (list(_shape(g)) for g in match.groups())
        return RuntimeError(f"shape mismatch: value tensor of shape {value} cannot be broadcast to "
                            f"indexing result of shape {result}")
    match = _MASK_COUNT.search(message)
    if match:  # x[mask] = v, v of the wrong length: PyTorch names the shapes
        value = list(np.shape(args[2])) if len(args) > 2 else [int(match.group(1))]
        return RuntimeError(f"shape mismatch: value tensor of shape {value} cannot be broadcast to "
                            f"indexing result of shape [{match.group(2)}]")
    if "objects cannot be broadcast to a single shape" in message and len(args) >= 2:
        return RuntimeError(_broadcast_message(np.shape(args[0]), np.shape(args[1])))
    if op == "_copy_from" and len(args) >= 2:
        return RuntimeError(_copy_message(np.shape(args[0]), np.shape(args[1])))
    if op in ("matmul", "mm", "bmm", "mv", "dot") and len(args) >= 2:
        return RuntimeError(_matmul_message(np.shape(args[0]), np.shape(args[1])))
    if op == "_index_put" and len(args) == 3 and (  # x[index] = values
            "broadcast" in message or "boolean array indexing assignment" in message):
        return RuntimeError(_index_put_message(args[0], args[1], np.shape(args[2])))
    match = _BROADCAST.search(message)
    if match:
        a, b = (_shape(g) for g in match.groups())
        return RuntimeError(_broadcast_message(a, b))
    if "zero-dimensional arrays cannot be concatenated" in message:
        return RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    match = _CONCAT.search(message)
    if match:
        _, want, index, got = (int(g) for g in match.groups())
        dim = options.get("dim", args[1] if len(args) > 1 else 0)
        return RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                            f"{want} but got size {got} for tensor number {index} in the list.")
    match = _AXIS.search(message)
    if match:
        dim, ndim = int(match.group(1)), int(match.group(2))
        size = max(ndim, 1)
        return IndexError(f"Dimension out of range (expected to be in range of "
                          f"[{-size}, {size - 1}], but got {dim})")
    return exc


def setitem_shape_error(target, value, type_name):
    """The error PyTorch's ``x[basic key] = value`` raises when ``value`` (leading 1s
    stripped) does not expand to the shape ``target`` of ``x[key]``; None when it does."""
    shape = tuple(value)
    while shape and shape[0] == 1:
        shape = shape[1:]
    target = tuple(target)
    lead = len(target) - len(shape)
    if lead < 0:
        return RuntimeError(
            f"expand({type_name}{{{list(shape)}}}, size={list(target)}): the number of sizes "
            f"provided ({len(target)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({len(shape)})")
    for i, n in enumerate(shape):
        if n != target[lead + i] and n != 1:
            return RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                f"size ({n}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(shape)}")
    return None


def _index_put_message(array, index, values):
    result = np.empty(np.shape(array), dtype=bool)[index_key(index)].shape
    return (f"shape mismatch: value tensor of shape {list(values)} cannot be broadcast to "
            f"indexing result of shape {list(result)}")


def _index_error(exc, op, args):
    """numpy's IndexError in ``op``, in PyTorch's words (and type: gather/scatter raise
    RuntimeError); ``exc`` itself when it is not numpy's."""
    message = str(exc)
    match = _INDEX_BOUNDS.search(message)
    if match and op == "index_select":  # PyTorch's kernels word it differently by dim
        index, dim, size = match.groups()
        if dim == "0":
            return IndexError("index out of range in self")
        return RuntimeError(f"INDICES element is out of DATA bounds, id={index} axis_dim={size}")
    if match:
        index, dim, size = match.groups()
        text = f"index {index} is out of bounds for dimension {dim} with size {size}"
        return RuntimeError(text) if op in _GATHERS else IndexError(text)
    if "too many indices for array" in message:
        return IndexError(f"too many indices for tensor of dimension {np.ndim(args[0])}")
    if "an index can only have a single ellipsis" in message:
        return IndexError("an index can only have a single ellipsis ('...')")
    match = _MASK_SHAPE.search(message)
    if match:
        dim, size, got = (int(g) for g in match.groups())
        shape = list(np.shape(args[0]))
        return IndexError(f"The shape of the mask [{got}] at index {dim} does not match the shape "
                          f"of the indexed tensor {shape} at index {dim}")
    if "arrays used as indices must be of integer (or boolean) type" in message:
        return IndexError("tensors used as indices must be long, int, byte or bool tensors")
    match = _INDEX_BROADCAST.search(message)
    if match:
        shapes = ", ".join(str(list(_shape(s))) for s in re.findall(r"\(([\d,]*)\)", match.group(1)))
        return IndexError(f"shape mismatch: indexing tensors could not be broadcast together with "
                          f"shapes {shapes}")
    return exc


def _gather_size_mismatch(self_shape, dim, index_shape):
    """PyTorch's refusal of an index larger than ``self`` outside ``dim`` (None if it fits)."""
    dim = dim % max(len(self_shape), 1)
    for d, (n, m) in enumerate(zip(index_shape, self_shape)):
        if d != dim and n > m:
            return (f"Size does not match at dimension {d} expected index {list(index_shape)} to "
                    f"be no larger than self {list(self_shape)} apart from dimension {dim}")
    return None


def reshape_message(size, shape):
    """PyTorch's refusal of ``reshape``/``view`` of ``size`` elements to ``shape``."""
    shape = [int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,))]
    for i, s in enumerate(shape):
        if s < -1:
            return f"invalid shape dimension {s} at index {i} of shape {shape}"
    if shape.count(-1) > 1:
        return "only one dimension can be inferred"
    return f"shape '{shape}' is invalid for input of size {size}"


def _copy_message(dest, src):
    """``dest.copy_(src)`` where ``src`` does not broadcast to ``dest``'s shape."""
    if _broadcastable(dest, src):  # they broadcast, but to a shape larger than ``dest``
        full = np.broadcast_shapes(dest, src)
        return f"output with shape {list(dest)} doesn't match the broadcast shape {list(full)}"
    return _broadcast_message(dest, src)


def _broadcastable(a, b):
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b)))


def _first_repeated(dims, ndim):
    seen = set()
    for d in dims:
        d = d % max(ndim, 1)
        if d in seen:
            return d
        seen.add(d)
    return dims[0]


def _devices(args):
    """The distinct devices of the arrays among ``args`` (lists searched), in order."""
    found = []
    for a in args:
        if isinstance(a, (list, tuple)):
            devices = _devices(a)
        elif _array.is_array(a):
            index = _array.device_index_of(a)
            devices = ["cpu" if index is None else f"cuda:{index}"]
        else:
            continue
        found.extend(d for d in devices if d not in found)
    return found


def _shape(text):
    return tuple(int(s) for s in text.split(",") if s)


def _broadcast_message(a, b):
    for k in range(1, min(len(a), len(b)) + 1):
        x, y = a[-k], b[-k]
        if x != y and x != 1 and y != 1:
            dim = max(len(a), len(b)) - k
            return (f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                    f"non-singleton dimension {dim}")
    return f"shapes {list(a)} and {list(b)} cannot be broadcast together"


def _broadcastable(a, b):
    return all(m == n or 1 in (m, n) for m, n in zip(a[::-1], b[::-1]))


def _matmul_message(a, b):
    if not a or not b:
        return (f"both arguments to matmul need to be at least 1D, but they are {len(a)}D "
                f"and {len(b)}D")
    if len(a) == 1 and len(b) == 1:
        return (f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
                f"same number of elements, but got {a[0]} and {b[0]} elements respectively")
    if len(b) == 1:  # (PyTorch folds a batch of matrices into one matrix of rows)
        rows = int(np.prod(a[:-1]))
        return f"size mismatch, got input ({rows}), mat ({rows}x{a[-1]}), vec ({b[0]})"
    if len(b) == 2 and a[-1] != b[-2]:
        rows = int(np.prod(a[:-1]))
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a[-1]} and {b[-2]}x{b[-1]})"
    if a[-1] != b[-2] and _broadcastable(a[:-2], b[:-2]):  # PyTorch's bmm over the batch
        batch = int(np.prod(np.broadcast_shapes(a[:-2], b[:-2])))
        return (f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{batch}, {a[-1]}] but got: [{batch}, {b[-2]}].")
    return _broadcast_message(a[:-2], b[:-2])
