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

from minigrad import _array

_BROADCAST = re.compile(r"operands could not be broadcast together with (?:remapped )?shapes "
                        r"(?:\[original->remapped\]: )?\(([\d,]*)\)\s*(?:->\([\d,]*\)\s*)?\(([\d,]*)\)")
_CONCAT = re.compile(r"along dimension (\d+), the array at index 0 has size (\d+) and the array at "
                     r"index (\d+) has size (\d+)")
_AXIS = re.compile(r"axis (-?\d+) is out of bounds for array of dimension (\d+)")


def translate(exc, op, *args, **options):
    """The exception PyTorch raises where numpy raised ``exc`` in ``op``'s forward
    (``exc`` itself when its cause is not recognised); ``args`` are the forward's arguments."""
    devices = _devices(args)
    if len(devices) > 1:  # CuPy refuses numpy operands (TypeError), or another GPU's arrays
        return RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                            f"two devices, {devices[0]} and {devices[1]}!")
    message = str(exc)
    if op in ("matmul", "mm", "bmm", "mv", "dot") and len(args) >= 2:
        return RuntimeError(_matmul_message(np.shape(args[0]), np.shape(args[1])))
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
