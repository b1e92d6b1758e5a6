"""More of torch.nn.functional's pooling family, as compositions of differentiable ops.

adaptive_max_pool1d/2d/3d gather each output's window (padded to the widest one by
repeating its last position, which leaves the max alone) and take ``max`` over it;
lp_pool is avg_pool of powers (torch's own formula); local_response_norm is torch's
composition of pad and avg_pool; unfold (im2col) gathers the kernel taps of the padded
input, fold (col2im) scatter-adds them back; max_unpool scatters into zeros.  So every
gradient, first and second order, comes from derivatives.yaml.

The index tables depend only on shapes: they go to the ops as plain arrays (constants
under ``minigrad.compile``).  The checks follow torch's order and messages; a check on
values (max_unpool's indices) calls ``reads_values`` first.

>>> out, idx = F.adaptive_max_pool2d(x, (2, 3), return_indices=True)   # doctest: +SKIP
>>> F.fold(F.unfold(x, 3, padding=1), x.shape[-2:], 3, padding=1)      # doctest: +SKIP
"""
import math
import numbers

import numpy as np

from minigrad._array import namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad._value_reads import reads_values
from minigrad.kernels.core import not_implemented_for, on_device_of, scalar_type_name


def _as_tensor(x):
    return x if isinstance(x, Tensor) else _wrap(namespace_of(x).asarray(x))


def _ntuple(value, n):
    """torch's _single/_pair/_triple: an int repeated, a sequence kept as it is."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _refuse(input, kinds, kernel):
    """PyTorch has no ``kernel`` for these dtype kinds ('b' bool, 'iu' integers)."""
    dtype = input._data.dtype
    if dtype.kind in kinds:
        raise not_implemented_for(kernel, dtype)


def _constant(like, array):
    """A shape-derived index table on ``like``'s device (passed to ops as a plain array)."""
    return on_device_of(like._data, array)


# ------------------------------------------------------------------ max_pool3d
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling over (N, C, D, H, W) or (C, D, H, W) input, as torch's."""
    if return_indices:
        return _F.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                          ceil_mode)
    return _F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


# ------------------------------------------------------------------ adaptive max pooling
def _adaptive_windows(size, out):
    """(out, width) input positions of each adaptive window along one dim: row i covers
    [floor(i*L/o), ceil((i+1)*L/o)), padded to the widest row with its last position."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    width = int((end - start).max()) if out else 1
    return np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)


def _window_positions(spatial, out):
    """(*out, prod(widths)) flat input positions of every output's window, row-major."""
    nd = len(spatial)
    pos = np.zeros((1,) * (2 * nd), dtype=np.int64)
    for j, (size, o) in enumerate(zip(spatial, out)):
        idx = _adaptive_windows(size, o)
        shape = [1] * (2 * nd)
        shape[j], shape[nd + j] = idx.shape
        pos = pos * size + idx.reshape(shape)
    return pos.reshape(tuple(out) + (-1,))


def _adaptive_max_pool(input, output_size, nd):
    """(values, indices) of torch's adaptive_max_pool{nd}d on (N, C, *spatial) or
    (C, *spatial) input, ``nd`` spatial dims."""
    input = _as_tensor(input)
    shape, name = list(input.shape), f"adaptive_max_pool{nd}d"
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for i in range(1, input.ndim):
        if shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {shape} with "
                               f"dimension {i} being empty")
    if len(output_size) != nd:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    out = tuple(int(o) for o in output_size)
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{shape[:-nd] + list(out)}")
    _refuse(input, "biu", name if nd == 2 else name + "_cpu")   # (torch's kernel names)
    lead, spatial = tuple(shape[:-nd]), tuple(shape[-nd:])
    positions = _window_positions(spatial, out)                   # (*out, K)
    flat = _F.reshape(input, lead + (math.prod(spatial),))
    windows = _F.index_select(flat, -1, _constant(input, positions.reshape(-1)))
    values, arg = _F.max_dim(_F.reshape(windows, lead + positions.shape), -1)
    table = np.broadcast_to(positions, lead + positions.shape)
    indices = _F.gather(_constant(input, table), -1, _F.unsqueeze(arg, -1))
    return values, _F.squeeze(indices, -1)


def _adaptive_output_size(input, output_size, nd):
    """``output_size`` as ``nd`` ints: an int repeated, None keeping that input size."""
    if isinstance(output_size, numbers.Integral):
        return [output_size] * nd
    if len(input.shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return [d if o is None else o
            for o, d in zip(output_size, input.shape[-len(output_size):])]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over the adaptive windows that split (H, W) into ``output_size`` (None keeps that
    input size); ``return_indices`` also gives each max's flat position in its plane."""
    values, indices = _adaptive_max_pool(input, _adaptive_output_size(input, output_size, 2), 2)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over the adaptive windows that split (D, H, W) into ``output_size`` (None keeps
    that input size); ``return_indices`` also gives each max's flat position in its volume."""
    values, indices = _adaptive_max_pool(input, _adaptive_output_size(input, output_size, 3), 3)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """(values, indices) of adaptive_max_pool1d, whatever ``return_indices`` says (torch's)."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """(values, indices) of adaptive_max_pool2d, whatever ``return_indices`` says (torch's)."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """(values, indices) of adaptive_max_pool3d, whatever ``return_indices`` says (torch's)."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over the adaptive windows that split L into ``output_size``; torch runs it as
    the 2-d op on an (…, 1, L) view, and so does this."""
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_max_pool1d() argument 'output_size' should contain one "
                               f"int (got {len(output_size)})")
        output_size = output_size[0]
    if not isinstance(output_size, numbers.Integral):
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be "
                        f"tuple of ints, not {type(output_size).__name__}")
    input = _as_tensor(input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           "for argument #1 'self' (while checking arguments for "
                           "adaptive_max_pool1d)")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError("adaptive_max_pool1d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {i} being empty")
    values, indices = _adaptive_max_pool(_F.unsqueeze(input, -2), [1, output_size], 2)
    values, indices = _F.squeeze(values, -2), _F.squeeze(indices, -2)
    return (values, indices) if return_indices else values


# ------------------------------------------------------------------ power-average pooling
def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    """torch's lp_pool: (sum of x^p over each window)^(1/p), via avg_pool times the window
    size; sign(out) * relu(|out|) makes the gradient 0 where the sum is 0."""
    max_pool = (_F.max_pool1d, _F.max_pool2d, _F.max_pool3d)[nd - 1]
    input = _as_tensor(input)
    if norm_type == math.inf:
        return max_pool(_F.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool(-_F.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    avg_pool = (_F.avg_pool1d, _F.avg_pool2d, _F.avg_pool3d)[nd - 1]
    out = avg_pool(_F.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    window = math.prod(_ntuple(kernel_size, nd))
    return _F.pow(_F.sign(out) * _F.relu(_F.abs(out)) * window, 1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-d power-average pooling: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# ------------------------------------------------------------------ local response norm
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of squares over ``size`` neighbouring channels)^beta,
    torch's composition: the channel dim is padded and average-pooled."""
    input = _as_tensor(input)
    dim = input.ndim
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = _F.pad(_F.unsqueeze(div, 1), (0, 0, size // 2, (size - 1) // 2))
        div = _F.squeeze(_F.avg_pool2d(div, (size, 1), 1), 1)
    else:
        sizes = tuple(input.shape)
        div = _F.reshape(div, (sizes[0], 1, sizes[1], sizes[2], -1))
        div = _F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = _F.reshape(_F.squeeze(_F.avg_pool3d(div, (size, 1, 1), 1), 1), sizes)
    return input / _F.pow(div * alpha + k, beta)


# ------------------------------------------------------------------ unfold / fold
def _im2col_args(kernel_size, dilation, padding, stride, order):
    """The four pairs, each checked to have 2 entries and to be in range, in ``order``
    (im2col and col2im check them in different orders)."""
    args = {"kernel_size": kernel_size, "dilation": dilation, "padding": padding,
            "stride": stride}
    pairs = {}
    for name in ("kernel_size", "dilation", "padding", "stride"):
        value = _ntuple(args[name], 2)
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
        pairs[name] = tuple(int(v) for v in value)
    rules = {"kernel_size": ("kernel size should be greater than zero", "kernel", 1),
             "dilation": ("dilation should be greater than zero", "dilation", 1),
             "padding": ("padding should be non-negative", "pad", 0),
             "stride": ("stride should be greater than zero", "stride", 1)}
    for name in order:
        text, label, low = rules[name]
        h, w = pairs[name]
        if h < low or w < low:
            raise RuntimeError(f"{text}, but got {label}_height: {h} {label}_width: {w}")
    return pairs["kernel_size"], pairs["dilation"], pairs["padding"], pairs["stride"]


def _blocks(size, kernel, dilation, padding, stride):
    """Number of sliding blocks along each dim (floor division, as torch's div_rtn)."""
    return tuple((n + 2 * p - (d * (k - 1) + 1)) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))


def _tap_positions(padded_width, kernel, dilation, stride, blocks):
    """(kH*kW, L) flat positions in the padded plane that each kernel tap meets in each block."""
    taps_h = np.arange(kernel[0]) * dilation[0]
    taps_w = np.arange(kernel[1]) * dilation[1]
    rows = taps_h[:, None, None, None] + (np.arange(blocks[0]) * stride[0])[None, None, :, None]
    cols = taps_w[None, :, None, None] + (np.arange(blocks[1]) * stride[1])[None, None, None, :]
    return (rows * padded_width + cols).reshape(kernel[0] * kernel[1], -1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kH * kW, L), every kernel tap of every sliding block
    (L blocks) as a column; (C, H, W) input gives (C * kH * kW, L)."""
    input = _as_tensor(input)
    kernel, dilation, padding, stride = _im2col_args(
        kernel_size, dilation, padding, stride, ("kernel_size", "dilation", "padding", "stride"))
    shape = list(input.shape)
    ndim = len(shape)
    for d in (1, 2):  # torch reads sizes 1 and 2 before it checks the dims
        if d >= ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
    valid = shape[1] != 0 and shape[2] != 0
    if not ((ndim == 3 and shape[0] and valid) or (ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {shape}")
    spatial = tuple(shape[-2:])
    blocks = _blocks(spatial, kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {spatial}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the "
                           f"array of sliding blocks as {blocks}, but its components must be "
                           "at least one.")
    _refuse(input, "iu", "im2col_out_cpu")
    if any(padding):
        input = _F.pad(input, (padding[1], padding[1], padding[0], padding[0]))
    lead = tuple(shape[:-3])
    flat = _F.reshape(input, lead + (shape[-3], math.prod(input.shape[-2:])))
    positions = _tap_positions(spatial[1] + 2 * padding[1], kernel, dilation, stride, blocks)
    cols = _F.index_select(flat, -1, _constant(flat, positions.reshape(-1)))
    return _F.reshape(cols, lead + (shape[-3] * positions.shape[0], positions.shape[1]))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of unfold: (N, C * kH * kW, L) columns summed back onto an
    (N, C, *output_size) image (overlapping taps add up); (C * kH * kW, L) gives (C, H, W)."""
    input = _as_tensor(input)
    out = _ntuple(output_size, 2)
    if len(out) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(out)}")
    out = tuple(int(v) for v in out)
    kernel, dilation, padding, stride = _im2col_args(
        kernel_size, dilation, padding, stride, ("kernel_size", "stride", "dilation", "padding"))
    shape = list(input.shape)
    ndim = len(shape)
    if not ((ndim == 2 and shape[0] != 0 and shape[1] != 0)
            or (ndim == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: {shape}")
    planes, length = shape[-2], shape[-1]
    taps = kernel[0] * kernel[1]
    if planes % taps:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size={kernel}.")
    blocks = _blocks(out, kernel, dilation, padding, stride)
    given = (f"Given output_size={out}, kernel_size={kernel}, dilation={dilation}, "
             f"padding={padding}, stride={stride}, ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(f"{given}expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as {blocks}, "
                           "which is too small (non-positive)")
    if min(out) < 1:
        raise RuntimeError("Expected output spatial size to be positive, but got: "
                           f"output_size={out}.")
    _refuse(input, "iu", "col2im_out_cpu")
    lead, channels = tuple(shape[:-2]), planes // taps
    padded = tuple(n + 2 * p for n, p in zip(out, padding))
    positions = _tap_positions(padded[1], kernel, dilation, stride, blocks).reshape(-1)
    cols = _F.reshape(input, lead + (channels, taps * length))
    zeros = _constant(input, np.zeros(lead + (channels, padded[0] * padded[1]),
                                      dtype=input._data.dtype))
    image = _F.index_add(zeros, len(lead) + 1, _constant(input, positions), cols)
    image = _F.reshape(image, lead + (channels,) + padded)
    if any(padding):
        image = _F.pad(image, (-padding[1], -padding[1], -padding[0], -padding[0]))
    return image


# ------------------------------------------------------------------ max_unpool
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's _unpool_output_size: the default size, or a given one checked against it."""
    nd = len(kernel_size)
    default = [(input.shape[-nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        result = default
    else:
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f"{low} and {high})")
        result = output_size
    for d in range(nd):
        if result[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={result[d]}")
    return result


def _check_unpool_input(input, indices, nd):
    """torch's checks of max_unpool{nd}d's input and indices, in its order."""
    if indices.dtype != np.int64:
        got = "" if nd == 3 else f" but got: {scalar_type_name(indices.dtype)}"
        raise RuntimeError(f"elements in indices should be type int64{got}")
    shape = list(input.shape)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d "
                           f"Tensor, but got a tensor with {input.ndim} dimensions.")
    if list(indices.shape) != shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({shape}) but got indices tensor with shape: {list(indices.shape)}")
    for i in range(1, input.ndim):
        if shape[i] <= 0:
            raise RuntimeError(f"max_unpooling{nd}d_forward_out_cpu(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but got {shape} with "
                               f"dimension {i} being empty.")
    _refuse(input, "biu", f"max_unpool{nd}d")


def _max_unpool(input, indices, output_size):
    """torch's max_unpool kernels: each value written at its flat index in a zero
    plane (2-d) or volume (3-d) of ``output_size``."""
    input, indices = _as_tensor(input), _as_tensor(indices)
    nd = len(output_size)
    _check_unpool_input(input, indices, nd)
    sizes = [int(v) for v in output_size]
    lead = tuple(input.shape[:-nd])
    volume = math.prod(sizes)
    if volume == 0:   # torch writes nothing, and so checks no index
        return _F.reshape(input, lead + (-1,))[..., :0].reshape(lead + tuple(sizes))
    reads_values("max_unpool checks that its indices lie within the output")
    flat_indices = indices._data.reshape(-1)
    bad = (flat_indices < 0) | (flat_indices >= volume)
    if bad.any():
        # torch's kernel goes on past a bad index and reports the last one it wrote down (in
        # one thread: the last in order)
        last = flat_indices[bad.size - 1 - int(namespace_of(bad).argmax(bad[::-1]))]
        raise RuntimeError(f"Found an invalid max index: {int(last)} (output volumes are of "
                           f"size {'x'.join(str(v) for v in sizes)})")
    zeros = _constant(input, np.zeros(lead + (volume,), dtype=input._data.dtype))
    out = _F.scatter_src(zeros, -1, _F.reshape(indices, lead + (-1,)),
                         _F.reshape(input, lead + (-1,)))
    return _F.reshape(out, lead + tuple(sizes))


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of max_pool2d: each value goes back to its (flat, per plane)
    index of ``max_pool2d(..., return_indices=True)``; everything else is 0."""
    kernel_size = _ntuple(kernel_size, 2)
    stride = kernel_size if stride is None else _ntuple(stride, 2)
    padding = _ntuple(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of max_pool1d; torch runs it as max_unpool2d on an (…, L, 1) view,
    and so does this (its messages name the 2-d shapes)."""
    kernel_size = _ntuple(kernel_size, 1)
    stride = kernel_size if stride is None else _ntuple(stride, 1)
    padding = _ntuple(padding, 1)
    size = list(_unpool_output_size(input, kernel_size, stride, padding, output_size)) + [1]
    out = _max_unpool(_F.unsqueeze(_as_tensor(input), -1),
                        _F.unsqueeze(_as_tensor(indices), -1), size)
    return _F.squeeze(out, -1)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of max_pool3d: each value goes back to its (flat, per volume)
    index of ``max_pool3d(..., return_indices=True)``; everything else is 0."""
    kernel_size = _ntuple(kernel_size, 3)
    stride = kernel_size if stride is None else _ntuple(stride, 3)
    padding = _ntuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, size)


__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool3d", "fold", "local_response_norm",
           "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool3d", "max_unpool1d", "max_unpool2d",
           "unfold"]
