"""Core formula helpers: shapes, broadcasting, reductions, matmul (rules in __init__)."""
import math

import numpy as np
from numpy import ndarray as _ndarray  # (a global: the fast paths' test of a class)
from minigrad._array import namespace_of
from minigrad import _tensor  # a module: read at call time (import cycle)

_NUMPY_VALUES = frozenset({np.ndarray, np.float64, np.float32, np.float16})


def values_of(x):
    """``x``'s array where ``x`` is a Tensor (else ``x`` itself), read in Python to build a
    mask or to choose a branch.  Under ``minigrad.compile`` that read is a graph break: the
    create_graph backward it traces in its turn then runs eagerly, on each call's values,
    where generated code would keep the traced call's mask or branch.  (For a Tensor's
    dtype, shape or device, read the Tensor: no break.)"""
    if isinstance(x, Tensor):
        reads_values("a derivative formula reads values (a mask or a branch)")
        return x._data
    return x


def array_of(x):
    """``x``'s array where ``x`` is a Tensor (else ``x``), for its dtype, shape or array
    library only: no values are read (``values_of`` reads them)."""
    return x._data if isinstance(x, Tensor) else x


def ops_for(value):
    """The op vocabulary matching ``value``: differentiable Tensor ops, or numpy ones."""
    return TENSORS if isinstance(value, Tensor) else ARRAYS


# ------------------------------------------------------------------ shapes only
def normalize_dims(dim, ndim):
    """``dim`` (int, sequence or None = all) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    return tuple(sorted(d % ndim if ndim else 0 for d in dims))


def reduced_shape(shape, dim):
    """``shape`` with the reduced dims kept as 1 (the keepdim=True result shape)."""
    if dim is None:
        return (1,) * len(shape)
    dims = normalize_dims(dim, len(shape))
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def reduced_numel(shape, dim):
    """How many elements each output of a reduction over ``dim`` averaged."""
    if dim is None:  # (a loss's mean, each step: all of them)
        return math.prod(shape)
    if not shape:  # a 0-d tensor reduced over dim 0 or -1: its one element
        return 1
    return math.prod(shape[d] for d in normalize_dims(dim, len(shape)))


def inverse_permutation(dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return tuple(inverse)


def maybe_multiply(x, alpha):
    return x if alpha == 1 else x * alpha


# ------------------------------------------------------------------ computing
def sum_to(x, shape):
    """Undo broadcasting: sum ``x`` down to ``shape`` (no op at all when it already fits)."""
    if x.shape == shape or x.shape == tuple(shape):  # saved shapes are tuples already
        return x
    return ops_for(x).sum_to_size(x, shape)


def zeros_like(x):
    """A zero gradient shaped like ``x`` (constant: it records no graph)."""
    if x.__class__ is _ndarray and x.flags.c_contiguous:
        # np.zeros_like's array for it (C order, as its order="K" keeps), in one call of
        # the four its Python wrapper makes (gather's backward, each step)
        return np.zeros(x.shape, x.dtype)
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    if isinstance(x, Tensor):
        return _wrap(namespace_of(x._data).zeros_like(x._data))
    return namespace_of(x).zeros_like(x)


def clamp_mask(x, min, max):
    """1 where ``clamp`` passes the gradient through (bounds inclusive, as PyTorch)."""
    mask = True
    if min is not None:
        mask = (x >= min) & mask if max is None else (x >= min) & (x <= max)
    elif max is not None:
        mask = x <= max
    return mask


def unreduce(grad, shape, dim):
    """Broadcast a reduction's gradient back over the reduced dims (keepdim or not)."""
    if not isinstance(grad, Tensor):
        # (a loss's gradient is often a numpy scalar: a ufunc's result on a 0-d array)
        xp = np if grad.__class__ in _NUMPY_VALUES else namespace_of(grad)
        out = xp.empty(shape, dtype=grad.dtype)  # values, not a view
        # a full reduction's gradient (0-d, or all dims kept) broadcasts as it is
        out[...] = grad if dim is None else grad.reshape(reduced_shape(shape, dim))
        return out
    return TENSORS.expand(TENSORS.reshape(grad, reduced_shape(shape, dim)), shape)


def keep_dim(x, ndim, dim, keepdim):
    """A reduction result over one ``dim`` with that dim kept (size 1)."""
    if keepdim or ndim == 0:  # a 0-d input's reduction has its shape already
        return x
    return ops_for(x).unsqueeze(x, dim % ndim)


def spread_to_extrema(grad, x, result, dim):
    """amax/amin backward: split the gradient evenly among tied extrema (as PyTorch)."""
    F = ops_for(grad)
    shape = x.shape
    mask = x == unreduce(result, shape, dim)
    ones = F._to_copy(mask, grad.dtype)  # in grad's dtype: bool * 1.0 would be float64
    count = F.sum(ones, dim, True) if dim is not None else F.sum(ones)
    return unreduce(grad, shape, dim) * mask / unreduce(count, shape, dim)


def split_like(grad, dim, shapes):
    """``cat`` backward: the pieces of ``grad`` along ``dim``, one per input shape."""
    F = ops_for(grad)
    ndim = len(shapes[0])
    dim = dim % ndim
    pieces, start = [], 0
    for shape in shapes:
        stop = start + shape[dim]
        pieces.append(F.getitem(grad, (slice(None),) * dim + (slice(start, stop),)))
        start = stop
    return pieces


def unstack(grad, dim):
    """``stack`` backward: ``grad`` taken apart along ``dim``."""
    F = ops_for(grad)
    dim = dim % grad.ndim
    return [F.getitem(grad, (slice(None),) * dim + (i,)) for i in range(grad.shape[dim])]


def is_outer_product(a_shape, b_shape):
    """Whether ``a @ b`` (2-D or batched) contracts a dimension of length 1: each result is
    one product, which the broadcast multiplication ``a * b`` computes alike, while
    numpy's matmul, without BLAS for it, takes 3x the instructions (64x64).  The
    gradients of a matrix-vector product are such outer products."""
    return len(a_shape) >= 2 and len(b_shape) >= 2 and a_shape[-1] == 1 and b_shape[-2] == 1


def _matmul(F, a, b):
    """``a @ b``, for arrays as a multiplication where it is an outer product.  (Tensors
    keep matmul: its own gradients are matrix-vector products again, where a
    multiplication's would be reductions.)"""
    if F is ARRAYS and is_outer_product(a.shape, b.shape):
        return F.mul(a, b)
    return F.matmul(a, b)


def matmul_grad_self(grad, self_shape, other):
    """d(self @ other)/d(self), for 1-D, 2-D and batched, broadcasting operands."""
    if grad.__class__ is _ndarray and other.__class__ is _ndarray and grad.ndim == 2 \
            and other.ndim == 2 and grad.shape[1] != 1:
        # the common case, numpy matrices (not an outer product: grad's 1 is other's 1),
        # as the lines below compute it, without their calls (each costs a tenth as much
        # as a small matrix's matmul)
        return grad @ other.T
    if _plain_matrices(grad, other) and not is_outer_product(grad.shape, other.shape[::-1]):
        return namespace_of(grad).matmul(grad, other.T)   # (below in one call)
    F = ops_for(grad)
    if len(self_shape) == 1 and other.ndim == 1:          # dot product
        return grad * other
    other2 = F.unsqueeze(other, -1) if other.ndim == 1 else other
    grad2 = F.unsqueeze(grad, -1) if other.ndim == 1 else grad
    if len(self_shape) == 1:
        grad2 = F.unsqueeze(grad2, -2)
    g = _matmul(F, grad2, F.transpose(other2, -1, -2))
    if len(self_shape) == 1:
        return F.sum_to(F.squeeze(g, -2), self_shape)
    return F.sum_to(g, self_shape)


def matmul_grad_other(grad, self, other_shape):
    """d(self @ other)/d(other), the mirror of ``matmul_grad_self``."""
    if grad.__class__ is _ndarray and self.__class__ is _ndarray and grad.ndim == 2 \
            and self.ndim == 2 and grad.shape[0] != 1:
        return self.T @ grad   # (numpy matrices: as matmul_grad_self)
    if _plain_matrices(grad, self) and not is_outer_product(self.shape[::-1], grad.shape):
        return namespace_of(grad).matmul(self.T, grad)
    F = ops_for(grad)
    if self.ndim == 1 and len(other_shape) == 1:
        return grad * self
    self2 = F.unsqueeze(self, -2) if self.ndim == 1 else self
    grad2 = F.unsqueeze(grad, -2) if self.ndim == 1 else grad
    if len(other_shape) == 1:
        grad2 = F.unsqueeze(grad2, -1)
    g = _matmul(F, F.transpose(self2, -1, -2), grad2)
    if len(other_shape) == 1:
        return F.sum_to(F.squeeze(g, -1), other_shape)
    return F.sum_to(g, other_shape)


def _plain_matrices(grad, operand):
    """Two 2-D arrays (not Tensors): the matmul gradients are one matmul with a transposed
    operand (``.T`` is what transpose(-1, -2) gives; sum_to has nothing to sum)."""
    return (not isinstance(grad, Tensor) and not isinstance(operand, Tensor)
            and grad.ndim == 2 and operand.ndim == 2)


# Imported last: the namespaces resolve ops lazily, and Tensor imports the generated code.
from minigrad.autograd.namespace import ARRAYS, TENSORS  # noqa: E402
from minigrad._tensor import Tensor  # noqa: E402
from minigrad._value_reads import reads_values  # noqa: E402
