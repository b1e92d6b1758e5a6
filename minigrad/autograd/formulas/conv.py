"""Formula helpers for the conv ops (see formulas/__init__.py for the rules).

Every gradient here is itself an op with a formula (conv_transpose, conv,
convolution_backward_weight, avg_pool_backward, pad_backward, gather_backward,
matmul), so the backward of a conv net can be differentiated again.
"""
import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import array_of, ops_for, values_of
from minigrad.kernels.conv import (adaptive_pool_matrix, conv_same_pads, conv_tuple,
                                   embedding_padding_idx, max_pool_indices_array, pool_stride)
from minigrad.kernels.core import on_device_of


def _raw(x):
    """The values of a (non-differentiable) Tensor such as indices, read in Python
    (``values_of``: a graph break under minigrad.compile)."""
    data = values_of(x)
    return namespace_of(data).asarray(data)


def _conv_op(F, nd):
    return (F.conv1d, F.conv2d, F.conv3d)[nd - 1]


def _conv_transpose_op(F, nd):
    return (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]


def _crop_spatial(F, x, sizes):
    """``x`` cut down to ``sizes`` in its trailing dims (no op when it already fits)."""
    nd = len(sizes)
    if tuple(x.shape[-nd:]) == tuple(sizes):
        return x
    return F.getitem(x, (Ellipsis,) + tuple(slice(0, n) for n in sizes))


# ------------------------------------------------------------------ convolution
def conv_grad_input(grad, input_shape, weight, stride, padding, dilation, groups):
    """conv's input gradient: the transposed conv of ``grad``; output_padding restores the size."""
    F = ops_for(grad)
    nd = weight.ndim - 2
    kernel = weight.shape[2:]
    stride, dilation = conv_tuple(stride, nd, "stride"), conv_tuple(dilation, nd, "dilation")
    padding = conv_tuple(padding, nd, "padding")
    extra = tuple(L - ((o - 1) * s - 2 * p + d * (k - 1) + 1) for L, o, s, p, d, k in
                  zip(input_shape[-nd:], grad.shape[-nd:], stride, padding, dilation, kernel))
    return _conv_transpose_op(F, nd)(grad, weight, None, stride, padding, extra, groups, dilation)


def conv_grad_bias(grad, weight_ndim):
    """The bias gradient: ``grad`` summed over everything but the channel dim."""
    nd = weight_ndim - 2
    channel = grad.ndim - nd - 1
    return ops_for(grad).sum(grad, [d for d in range(grad.ndim) if d != channel])


def conv_string_pads(weight_shape, padding, dilation):
    """PyTorch's pad tuple (last dim first) that padding='same'/'valid' applies to the input."""
    pads = conv_same_pads(weight_shape[2:], dilation, padding)
    return tuple(v for left, right in reversed(pads) for v in (left, right))


def conv_pad_input(input, weight_shape, padding, dilation):
    """The input as a padding='same'/'valid' conv sees it (explicitly zero-padded)."""
    pad = conv_string_pads(weight_shape, padding, dilation)
    if not any(pad):
        return input
    return ops_for(input).pad(input, pad, "constant", None)


def conv_string_grad_input(grad, input_shape, weight, stride, padding, dilation, groups):
    """Input gradient of a conv with padding='same'/'valid': unpadded conv, then crop."""
    F = ops_for(grad)
    nd = weight.ndim - 2
    pads = conv_same_pads(weight.shape[2:], dilation, padding, stride)
    padded = tuple(input_shape[:-nd]) + tuple(
        L + left + right for L, (left, right) in zip(input_shape[-nd:], pads))
    g = conv_grad_input(grad, padded, weight, stride, 0, dilation, groups)
    if all(p == (0, 0) for p in pads):
        return g
    return F.getitem(g, (Ellipsis,) + tuple(
        slice(left, left + L) for L, (left, _) in zip(input_shape[-nd:], pads)))


def conv_transpose_grad_input(grad, input_shape, weight, stride, padding, dilation, groups):
    """conv_transpose's input gradient: the plain conv of ``grad`` with the same weight."""
    F = ops_for(grad)
    nd = weight.ndim - 2
    g = _conv_op(F, nd)(grad, weight, None, stride, padding, dilation, groups)
    return _crop_spatial(F, g, input_shape[-nd:])


def conv_weight_grad_grad_output(grad, input, output_grad_shape, stride, padding, dilation,
                                 groups):
    """convolution_backward_weight is linear in grad_output; its adjoint is conv(input, grad)."""
    F = ops_for(grad)
    nd = grad.ndim - 2
    g = _conv_op(F, nd)(input, grad, None, stride, padding, dilation, groups)
    return _crop_spatial(F, g, output_grad_shape[-nd:])


# ------------------------------------------------------------------ pooling
def max_pool_grad_input(grad, indices, input_shape, nd):
    """Scatter-add ``grad`` to the argmax positions (flat per plane); repeats add up."""
    F = ops_for(grad)
    input_shape = tuple(input_shape)
    lead = input_shape[:-nd]
    plane = int(np.prod(input_shape[-nd:]))
    flat = F.reshape(grad, lead + (-1,))
    index = _raw(indices).reshape(lead + (-1,))
    return F.reshape(F.gather_backward(flat, -1, index, lead + (plane,)), input_shape)


def max_pool_indices(input, kernel_size, stride, padding, dilation, ceil_mode, nd):
    """The argmax positions of max_pool (piecewise constant: no gradient flows through them)."""
    return max_pool_indices_array(_raw(input), kernel_size, stride, padding, dilation,
                                  ceil_mode, nd)


def _pool_args(kernel_size, stride, padding, nd):
    kernel = conv_tuple(kernel_size, nd, "kernel_size")
    return kernel, pool_stride(stride, kernel, nd), conv_tuple(padding, nd, "padding")


def avg_pool_grad_input(grad, input_shape, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override, nd):
    kernel, stride, padding = _pool_args(kernel_size, stride, padding, nd)
    return ops_for(grad).avg_pool_backward(grad, tuple(input_shape), kernel, stride, padding,
                                           ceil_mode, count_include_pad, divisor_override)


def avg_pool_nd(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """avg_pool1d, 2d or 3d by the number of kernel dims (the adjoint of avg_pool_backward)."""
    F = ops_for(x)
    if len(kernel_size) == 1:
        return F.avg_pool1d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)
    pool = F.avg_pool2d if len(kernel_size) == 2 else F.avg_pool3d
    return pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool_grad_input(grad, input_shape, nd):
    """Adaptive pooling is one averaging matrix per spatial dim; its gradient, the transposes."""
    F = ops_for(grad)
    g = grad
    for j in range(nd):
        size, out = input_shape[len(input_shape) - nd + j], grad.shape[grad.ndim - nd + j]
        A = on_device_of(array_of(grad), adaptive_pool_matrix(size, out, grad.dtype))
        if j == nd - 1:
            g = F.matmul(g, A)                                     # (..., out) @ (out, L)
        else:
            g = F.transpose(F.matmul(F.transpose(g, j - nd, -1), A), j - nd, -1)
    return g


# ------------------------------------------------------------------ padding, embedding
def pad_grad_input(grad, input_shape, pad, mode):
    """constant pad: crop (pad by the negated amounts); other modes: add the copies back."""
    F = ops_for(grad)
    if mode == "constant":
        return F.pad(grad, tuple(-p for p in pad), "constant", None)
    return F.pad_backward(grad, tuple(input_shape), pad, mode)


def repad(grad, pad, mode):
    """pad_backward's adjoint: the pad itself."""
    return ops_for(grad).pad(grad, pad, mode, None)


def embedding_grad_weight(grad, input, weight_shape, padding_idx, scale_grad_by_freq):
    """Scatter-add the rows of ``grad`` to the rows they came from; padding_idx gets none."""
    F = ops_for(grad)
    num, dim = weight_shape
    idx = _raw(input).reshape(-1)
    rows = F.reshape(grad, (idx.size, dim))
    xp = namespace_of(idx)
    scale = xp.ones(idx.size)
    if scale_grad_by_freq:
        scale = scale / xp.bincount(idx, minlength=num)[idx]
    padding_idx = embedding_padding_idx(padding_idx, num)
    if padding_idx is not None:
        scale = scale * (idx != padding_idx)
    if not (scale == 1).all():
        rows = rows * scale[:, None].astype(grad.dtype)
    index = xp.ascontiguousarray(xp.broadcast_to(idx[:, None], (idx.size, dim)))
    return F.gather_backward(rows, 0, index, (num, dim))
