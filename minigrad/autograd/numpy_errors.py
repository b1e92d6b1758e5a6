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

_BROADCAST = re.compile(r"operands could not be broadcast together with (?:remapped )?shapes "
                        r"(?:\[original->remapped\]: )?\(([\d,]*)\)\s*(?:->\([\d,]*\)\s*)?\(([\d,]*)\)")
_CONCAT = re.compile(r"along dimension (\d+), the array at index 0 has size (\d+) and the array at "
                     r"index (\d+) has size (\d+)")
_AXIS = re.compile(r"axis (-?\d+) is out of bounds for array of dimension (\d+)")


def translate(exc, op, *args, **options):
    """The exception PyTorch raises where numpy raised ``exc`` in ``op``'s forward
    (``exc`` itself when its cause is not recognised); ``args`` are the forward's arguments."""
    message = str(exc)
    if op in ("matmul", "mm", "bmm", "mv", "dot") and len(args) >= 2:
        return RuntimeError(_matmul_message(np.shape(args[0]), np.shape(args[1])))
    if op == "_copy_from" and len(args) == 2:  # x.copy_(src)
        return RuntimeError(_copy_message(np.shape(args[0]), np.shape(args[1])))
    if op == "_index_put" and len(args) == 3 and (  # x[index] = values
            "broadcast" in message or "boolean array indexing assignment" in message):
        return RuntimeError(_index_put_message(args[0], args[1], np.shape(args[2])))
    if op in ("reshape", "view") and len(args) == 2 and "cannot reshape array" in message:
        return RuntimeError(f"shape '{list(args[1])}' is invalid for input of size "
                            f"{np.size(args[0])}")
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
        return IndexError(f"{op}(): Dimension out of range (expected to be in range of "
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


def _copy_message(shape, src):
    """``copy_``: ``src`` must broadcast to ``shape`` without growing it."""
    try:
        both = np.broadcast_shapes(shape, src)
    except ValueError:
        return _broadcast_message(shape, src)
    return f"output with shape {list(shape)} doesn't match the broadcast shape {list(both)}"


def _index_put_message(array, index, values):
    result = np.empty(np.shape(array), dtype=bool)[index_key(index)].shape
    return (f"shape mismatch: value tensor of shape {list(values)} cannot be broadcast to "
            f"indexing result of shape {list(result)}")


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


def _matmul_message(a, b):
    if not a or not b:
        return (f"both arguments to matmul need to be at least 1D, but they are {len(a)}D "
                f"and {len(b)}D")
    if len(a) == 1 and len(b) == 1:
        return (f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
                f"same number of elements, but got {a[0]} and {b[0]} elements respectively")
    if len(b) == 1:
        return f"size mismatch, got input ({a[-2]}), mat ({a[-2]}x{a[-1]}), vec ({b[0]})"
    if a[-1] != b[-2]:
        rows = int(np.prod(a[:-1])) if len(b) == 2 else a[-2]
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a[-1]} and {b[-2]}x{b[-1]})"
    return _broadcast_message(a[:-2], b[:-2])
