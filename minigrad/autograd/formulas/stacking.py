"""Backward helpers for the stacking, splitting and difference ops (kernels/stacking.py)."""
import numpy as np

from minigrad._array import namespace_of, to_host
from minigrad.autograd.formulas.core import ops_for, split_like, values_of
from minigrad.autograd.formulas.shape import new_zeros
from minigrad.kernels.core import on_device_of
from minigrad.kernels.stacking import directional_split_dim, tensor_split_keys

__all__ = ["stack_family_backward", "split_dim", "tensor_split_backward", "diff_backward",
           "diff_lengths", "trapezoid_grad_y",
           "trapezoid_grad_x", "repeat_interleave_backward"]


def _promoted(shape, kind):
    """The shape ``kind`` stacks a tensor of ``shape`` as (numpy's atleast_nd rules)."""
    shape = tuple(shape)
    if kind == "column_stack":
        return shape if len(shape) >= 2 else (int(np.prod(shape)), 1)
    least = {"hstack": 1, "vstack": 2, "dstack": 3}[kind]
    if len(shape) >= least:
        return shape
    if least == 1:
        return (1,)
    if least == 2:
        return (1,) + shape if shape else (1, 1)
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


def stack_family_backward(grad, shapes, kind):
    """``hstack``/``vstack``/``dstack``/``column_stack`` backward: each input's piece of
    ``grad``, reshaped back from the shape it was stacked as."""
    F = ops_for(grad)
    promoted = [_promoted(s, kind) for s in shapes]
    dim = {"vstack": 0, "dstack": 2, "column_stack": 1}.get(kind)
    if kind == "hstack":
        dim = 0 if len(promoted[0]) == 1 else 1
    return [F.reshape(piece, tuple(shape))
            for piece, shape in zip(split_like(grad, dim, promoted), shapes)]


def split_dim(kind, ndim):
    """The dim ``hsplit``/``vsplit``/``dsplit`` cut along."""
    return directional_split_dim(kind, ndim)


def tensor_split_backward(grads, shape, indices_or_sections, dim):
    """Each piece's gradient added back at its slice (pieces may overlap or be empty)."""
    F = ops_for(grads[0])
    keys = tensor_split_keys(tuple(shape), indices_or_sections, dim)
    total = None
    for grad, key in zip(grads, keys):
        part = F.getitem_backward(grad, tuple(shape), key)
        total = part if total is None else F.add(total, part)
    return total


def _difference_adjoint(grad, dim):
    """The adjoint of one forward difference: x_j gets g_{j-1} - g_j (zero outside)."""
    F = ops_for(grad)
    zero = F.mul(F.narrow(grad, dim, 0, 1), 0.0) if grad.shape[dim] else None
    if zero is None:
        shape = list(grad.shape)
        shape[dim] = 1
        return new_zeros(grad, shape)
    return F.sub(F.cat([zero, grad], dim), F.cat([grad, zero], dim))


def diff_backward(grad, n, dim, lengths, which):
    """``diff`` backward for one of its inputs: ``which`` is 0 (prepend), 1 (self) or 2
    (append); ``lengths`` are the three lengths along ``dim`` (0 when absent)."""
    dim = dim % grad.ndim
    for _ in range(n):
        grad = _difference_adjoint(grad, dim)
    start = sum(lengths[:which])
    return ops_for(grad).narrow(grad, dim, start, lengths[which])


def _weights_shape(ndim, dim):
    shape = [1] * ndim
    shape[dim] = -1
    return shape


def trapezoid_grad_y(grad, y_shape, x, dx, dim):
    """d(trapezoid)/dy: each sample weighs half the spacing on either side of it."""
    F = ops_for(grad)
    ndim = len(y_shape)
    dim = dim % ndim
    g = F.unsqueeze(grad, dim)
    n = y_shape[dim]
    if n == 0:
        return new_zeros(grad, y_shape)
    if x is None:
        xp = namespace_of(getattr(grad, "_data", grad))
        weights = xp.full(n, float(dx) if n > 1 else 0.0, dtype=grad.dtype)
        weights[[0, -1]] /= 2
        return F.mul(F.expand(g, tuple(y_shape)), weights.reshape(_weights_shape(ndim, dim)))
    spacing = F.diff(x, 1, -1 if x.ndim == 1 else dim, None, None)
    if x.ndim == 1:
        spacing = F.reshape(spacing, _weights_shape(ndim, dim))
    zero = F.mul(F.narrow(spacing, dim, 0, 1), 0.0)
    halves = F.mul(F.add(F.cat([zero, spacing], dim), F.cat([spacing, zero], dim)), 0.5)
    return F.mul(F.expand(g, tuple(y_shape)), F.expand(halves, tuple(y_shape))) if n > 1 \
        else new_zeros(grad, y_shape)


def trapezoid_grad_x(grad, y, x_shape, dim):
    """d(trapezoid)/dx_j = (y_{j-1} - y_{j+1}) / 2 inside, -(y_0 + y_1)/2 and
    (y_{n-2} + y_{n-1})/2 at the ends; summed over y's other dims when x is 1-D."""
    F = ops_for(grad)
    dim = dim % y.ndim
    n = y.shape[dim]
    if n < 2:
        return new_zeros(grad, x_shape)
    pair_means = F.mul(F.add(F.narrow(y, dim, 0, n - 1), F.narrow(y, dim, 1, n - 1)), 0.5)
    g = F.mul(F.unsqueeze(grad, dim), pair_means)          # d/d(spacing_i)
    zero = F.mul(F.narrow(g, dim, 0, 1), 0.0)
    per_x = F.sub(F.cat([zero, g], dim), F.cat([g, zero], dim))  # spacing_i = x_{i+1} - x_i
    if len(x_shape) == 1:
        others = tuple(d for d in range(y.ndim) if d != dim)
        return F.reshape(F.sum(per_x, others), tuple(x_shape)) if others else per_x
    return per_x


def repeat_interleave_backward(grad, self_shape, repeats, dim):
    """Sum the copies of each element back onto it."""
    F = ops_for(grad)
    # the index is built on the host (its length depends on the repeats), then moved to
    # grad's device
    repeats = values_of(repeats)
    if namespace_of(repeats) is not np:
        repeats = to_host(repeats)
    repeats = np.asarray(repeats)
    like = getattr(grad, "_data", grad)
    if dim is None:
        flat_len = int(np.prod(self_shape))
        index = np.repeat(np.arange(flat_len), np.broadcast_to(repeats, (flat_len,)))
        index = on_device_of(like, index)
        summed = F.index_add(new_zeros(grad, (flat_len,)), 0, index, grad)
        return F.reshape(summed, tuple(self_shape))
    dim = dim % len(self_shape)
    size = self_shape[dim]
    index = np.repeat(np.arange(size), np.broadcast_to(repeats, (size,)))
    index = on_device_of(like, index)
    return F.index_add(new_zeros(grad, self_shape), dim, index, grad)


def diff_lengths(self_shape, prepend, append, dim):
    """Lengths along ``dim`` of (prepend, self, append) as ``diff`` concatenates them."""
    dim = dim % len(self_shape)
    return (0 if prepend is None else prepend.shape[dim], self_shape[dim],
            0 if append is None else append.shape[dim])
