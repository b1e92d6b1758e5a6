"""Ops whose Python signature is richer than their derivatives.yaml schema, and
composites of generated ops (their gradients come from those ops' entries).

torch implements these two in Python too (torch/functional.py): ``einsum`` takes its
operands as varargs or as one list, ``tensordot`` takes ``dims`` as an int or as a
pair of dim lists.  Both normalize their arguments and call the generated op,
which records the node and whose gradients derivatives.yaml declares.
"""
import numbers

import numpy as np

from minigrad import _memory_format
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad.autograd.promotion import promote_types
from minigrad.autograd.numpy_errors import translate
from minigrad._value_reads import reads_values
from minigrad.kernels.core import scalar_type_name

__all__ = ["clone", "einsum", "tensordot", "masked_select", "take", "index_put", "cat", "concat",
           "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"]


def einsum(equation, *operands):
    """Sums the products of the operands' elements along the dims ``equation`` names.

    >>> a, b = minigrad.randn(3, 4), minigrad.randn(4, 2)
    >>> minigrad.einsum("ij,jk->ik", a, b).shape      # or einsum("ij,jk->ik", [a, b])
    (3, 2)
    """
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _F.einsum(equation, list(operands))


def _sublist_equation(args):
    """torch's sublist format, ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (each operand then
    its dims as ints in [0, 52) or ``...``; an optional output list last), as an equation
    string and the operands."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")

    def letters(sublist):
        return "".join(_subscript(n) for n in sublist)
    equation = ",".join(letters(sublist) for sublist in args[1::2])
    if len(args) % 2:  # an output sublist
        return equation + "->" + letters(args[-1]), args[:-1:2]
    return equation, args[::2]


def _subscript(n):
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def tensordot(a, b, dims=2, out=None):
    """Contracts ``a`` and ``b`` over ``dims``: an int (the last ``dims`` dims of ``a`` with
    the first ``dims`` of ``b``) or a pair of dim lists ``([dims of a], [dims of b])``.

    >>> a, b = minigrad.randn(3, 4, 5), minigrad.randn(4, 5, 2)
    >>> minigrad.tensordot(a, b, dims=([1, 2], [0, 1])).shape
    (3, 2)
    """
    if out is not None:
        raise TypeError("tensordot(): out= is not supported; use the returned tensor")
    if hasattr(dims, "tolist"):
        dims = dims.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        dims_a, dims_b = ([d] if isinstance(d, numbers.Integral) else list(d) for d in dims)
    else:
        raise RuntimeError("tensordot expects dims to be an int or a pair of dim lists, like "
                           f"dims=([1, 0], [0, 1]); got {dims!r}")
    return _F.tensordot(a, b, dims_a, dims_b)


def masked_select(input, mask):
    """The elements of ``input`` where the boolean ``mask`` is true, as a 1-D tensor
    (``input`` and ``mask`` broadcast together first).

    >>> x = minigrad.tensor([[1.0, -2.0], [3.0, -4.0]])
    >>> minigrad.masked_select(x, x > 0)
    tensor([1., 3.])
    """
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    try:
        np.broadcast_shapes(input.shape, mask.shape)  # numpy's rule is torch's
    except ValueError as exc:
        raise translate(exc, "masked_select", mask._data, input._data) from None  # torch names the mask first
    return _F._masked_select(input, mask)


def take(input, index):
    """The elements of ``input`` read as 1-D at ``index`` (negative counts from the end),
    in ``index``'s shape.

    >>> minigrad.take(minigrad.tensor([[1.0, 2.0], [3.0, 4.0]]), minigrad.tensor([0, 3]))
    tensor([1., 4.])
    """
    n = input.numel()
    reads_values("take checks its indices against the number of elements")
    values = index._data
    if values.size and (values.max() >= n or values.min() < -n):
        bad = int(values.max()) if values.max() >= n else int(values.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    return _F.reshape(input, (-1,))[index]


def clone(input, *, memory_format=None):
    """A copy of ``input`` that is differentiable (CloneBackward0); ``memory_format`` is
    taken as PyTorch takes it (minigrad's tensors are all in C order)."""
    _memory_format.check("clone", memory_format)
    return _F.clone(input)


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``input[indices]`` (a tuple of index tensors, one
    per leading dim); with ``accumulate``, added there instead, repeated indices adding up.
    Out of place and differentiable (``x.index_put_`` writes into ``x``).

    >>> minigrad.zeros(3).index_put((minigrad.tensor([0, 0]),), minigrad.tensor(1.0), True)
    tensor([2., 0., 0.])
    """
    for position, (name, value, kinds) in enumerate((("indices", indices, (tuple, list)),
                                                     ("values", values, (Tensor,))), 1):
        if not isinstance(value, kinds):
            wanted = "tuple of Tensors" if name == "indices" else "Tensor"
            raise TypeError(f"index_put(): argument '{name}' (position {position}) must be "
                            f"{wanted}, not {type(value).__name__}")
    check_index_tensors(indices, argument=1)
    index = tuple(indices)
    values = index_put_source(input, index, values, accumulate)
    if not accumulate:
        return _F._index_put(input, index, values)
    target = input[index]   # (its shape: values broadcast to it, as in a write)
    spread = _F.expand(values, target.shape)
    return input + _F.getitem_backward(spread, input.shape, index)


def check_index_tensors(indices, argument):
    """PyTorch's refusal of an index that is not a Tensor (None, an int) in index_put's
    tuple; ``argument`` is the tuple's position in the call (0 for the method's)."""
    for position, part in enumerate(indices):
        if not isinstance(part, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument {argument}, "
                            f"but got {type(part).__name__}")


def index_put_source(input, key, values, accumulate=False):
    """``values`` for writing into ``input`` at ``key``: of ``input``'s dtype, as PyTorch
    requires, but for its masked_fill shortcut (one boolean mask, one value on the CPU,
    no accumulate), which converts the value."""
    if values.dtype == input.dtype:
        return values
    parts = key if isinstance(key, tuple) else (key,)
    indexing = [p for p in parts if not (p is None or p is Ellipsis or type(p) is slice)]
    if (not accumulate and len(indexing) == 1 and _is_mask(indexing[0])
            and values.numel() == 1 and values.device.type == "cpu"):
        return values.to(input.dtype)
    raise RuntimeError("Index put requires the source and destination dtypes match, got "
                       f"{scalar_type_name(input._data.dtype)} for the destination and "
                       f"{scalar_type_name(values._data.dtype)} for the source.")


def _is_mask(part):
    data = getattr(part, "_data", part)
    if isinstance(data, list):
        data = np.asarray(data)
    return getattr(data, "dtype", None) == np.bool_


# ----------------------------------------------------------- joining tensors
def _promoted(tensors):
    """The tensors in their common dtype, by PyTorch's promotion (a float32 and an int64
    tensor join as float32, where numpy's concatenate would give float64)."""
    tensors = list(tensors)
    if len({t._data.dtype for t in tensors if isinstance(t, Tensor)}) > 1:
        tensors = list(promote_types(*tensors))
    return tensors


def _joining(name):
    def join(tensors, *args, **kwargs):
        if isinstance(tensors, Tensor):  # (numpy would iterate it: PyTorch refuses)
            raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of "
                            "Tensors, not Tensor")
        return getattr(_F, name)(_promoted(tensors), *args, **kwargs)  # (looked up per call)
    join.__name__ = join.__qualname__ = name
    join.__doc__ = getattr(_F, name).__doc__
    return join


cat = concat = _joining("cat")
stack, hstack, vstack, dstack = (_joining(n) for n in ("stack", "hstack", "vstack", "dstack"))
column_stack, row_stack = _joining("column_stack"), _joining("row_stack")


def concatenate(tensors, axis=0):
    """``cat`` with numpy's argument name."""
    return cat(tensors, axis)


