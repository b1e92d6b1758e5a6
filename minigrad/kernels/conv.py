"""Array building blocks for the conv ops' `forward:` expressions.

Everything is vectorized: convolutions copy their windows once per kernel tap (im2col)
and contract them with one batched matmul; pooling reads windows through
``sliding_window_view`` (a strided view, no copy).  The only Python loops run over kernel
taps or over spatial dims, never over pixels.  Functions take PyTorch's arguments
(``stride`` may be an int or a tuple) plus ``nd``, the number of spatial dims (1 for
conv1d, 2 for conv2d).  Arrays come from their own namespace (``namespace_of``), so the
same code runs on numpy and CuPy.
"""
import itertools
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import cpp_type_name, not_implemented_for, scalar_type_name


# ------------------------------------------------------------------ argument handling
def conv_tuple(value, nd, name):
    """An int or a sequence of ints as a tuple of ``nd`` ints (PyTorch's ``_pair``)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * nd
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * nd
    if len(value) != nd:
        raise ValueError(f"{name} must be an int or a sequence of {nd} ints; got {value}")
    return value


def _batched(x, nd, op, what="input"):
    """``x`` with a batch dim (unbatched (C, *spatial) inputs get one) and whether it had one."""
    if x.ndim == nd + 2:
        return x, True
    if x.ndim == nd + 1:
        return x[None], False
    raise RuntimeError(f"{op}: expected a {nd + 1}D (unbatched) or {nd + 2}D (batched) {what}, "
                       f"but got {what} of shape {tuple(x.shape)}")


def _windows(xp, kernel, stride, dilation, out=None):
    """(N, C, *out, *kernel) windows of the padded ``xp``: a strided view, no copy."""
    nd = len(kernel)
    axes = tuple(range(xp.ndim - nd, xp.ndim))
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(e > n for e, n in zip(extent, xp.shape[-nd:])):
        raise RuntimeError(f"kernel size {tuple(extent)} (dilated) can't be greater than the "
                           f"padded input size {tuple(xp.shape[-nd:])}")
    v = _sliding_window_view(xp, extent, axes)
    lead = (slice(None),) * (xp.ndim - nd)
    v = v[lead + tuple(slice(None, None, s) for s in stride)
          + tuple(slice(None, None, d) for d in dilation)]
    if out is not None:
        v = v[lead + tuple(slice(0, o) for o in out)]
    return v


def _sliding_window_view(x, window_shape, axis):
    """numpy's ``sliding_window_view``: a strided view where the library has one (numpy,
    CuPy >= 13), else the same windows gathered into a copy."""
    xp = namespace_of(x)
    stride_tricks = getattr(getattr(xp, "lib", None), "stride_tricks", None)
    if hasattr(stride_tricks, "sliding_window_view"):
        return stride_tricks.sliding_window_view(x, window_shape, axis=axis)
    for a, w in zip(axis, window_shape):
        starts = xp.arange(x.shape[a] - w + 1)
        x = xp.take(x, starts[:, None] + xp.arange(w), axis=a)  # dim a -> (windows, w)
        x = xp.moveaxis(x, a + 1, -1)  # the window dim goes last, as the view's do
    return x


def _pad_spatial(x, pads, value=0.0):
    """Pad (or crop, for negative amounts) the trailing dims by ``pads`` = [(left, right), ...]."""
    nd = len(pads)
    widths = [(0, 0)] * (x.ndim - nd) + [(max(l, 0), max(r, 0)) for l, r in pads]
    if any(w != (0, 0) for w in widths):
        # a filled array and one slice assignment: a third of np.pad's time
        padded = namespace_of(x).full(tuple(n + l + r for n, (l, r) in zip(x.shape, widths)),
                                      value, dtype=x.dtype)
        padded[tuple(slice(l, l + n) for n, (l, _) in zip(x.shape, widths))] = x
        x = padded
    crop = tuple(slice(-min(l, 0), x.shape[x.ndim - nd + i] + min(r, 0))
                 for i, (l, r) in enumerate(pads))
    if any(l < 0 or r < 0 for l, r in pads):
        x = x[(slice(None),) * (x.ndim - nd) + crop]
    return x


def conv_same_pads(kernel, dilation, padding, stride=1):
    """[(left, right)] per spatial dim for ``padding`` = 'same' or 'valid' (extra goes right)."""
    if padding == "valid":
        return [(0, 0)] * len(kernel)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'; use 'valid', 'same' or "
                           "numbers")
    if any(s != 1 for s in conv_tuple(stride, len(kernel), "stride")):
        raise RuntimeError("padding='same' is not supported for strided convolutions: "
                           "use stride=1 or give the padding as numbers")
    totals = [d * (k - 1) for k, d in zip(kernel, conv_tuple(dilation, len(kernel), "dilation"))]
    return [(t // 2, t - t // 2) for t in totals]


# ------------------------------------------------------------------ convolution
# A conv is im2col + one batched matmul.  The columns are built with one strided slice
# copy per kernel tap (9 for 3x3), not by reshaping a sliding-window view: such a reshape
# copies with the kernel dims innermost (3 floats at a time), which was 6x slower.  The
# layout (N, C, *K, *O) makes the forward and the weight gradient plain matmuls with no
# transposes, and the input gradient (conv_transpose) is the matmul's transpose followed
# by col2im, one strided add per kernel tap.
def _taps(kernel):
    return itertools.product(*(range(k) for k in kernel))


def _tap_slices(tap, stride, dilation, out_sp):
    """The (padded) input positions that kernel tap ``tap`` meets at every output position."""
    return tuple(slice(k * d, k * d + s * (o - 1) + 1, s)
                 for k, s, d, o in zip(tap, stride, dilation, out_sp))


def _unfold(x, kernel, stride, dilation, out_sp):
    """im2col: the (N, C, *K, *O) windows of the padded ``x``, one slice copy per tap."""
    xp = namespace_of(x)
    cols = xp.empty(tuple(x.shape[:2]) + tuple(kernel) + tuple(out_sp), dtype=x.dtype)
    lead = (slice(None), slice(None))
    for tap in _taps(kernel):
        cols[lead + tap] = x[lead + _tap_slices(tap, stride, dilation, out_sp)]
    return cols


def _fold(cols, size, stride, dilation):
    """col2im, the adjoint of _unfold: add each tap's (N, C, *O) slab back onto ``size``."""
    xp = namespace_of(cols)
    nd = len(size)
    kernel, out_sp = cols.shape[2:2 + nd], cols.shape[2 + nd:]
    out = xp.zeros(tuple(cols.shape[:2]) + tuple(size), dtype=cols.dtype)
    lead = (slice(None), slice(None))
    for tap in _taps(kernel):
        out[lead + _tap_slices(tap, stride, dilation, out_sp)] += cols[lead + tap]
    return out


def _conv_out_size(padded, kernel, stride, dilation):
    """Output sizes of a conv over the padded spatial sizes; a kernel that does not fit raises."""
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(e > n for e, n in zip(extent, padded)):
        raise RuntimeError(f"kernel size {tuple(extent)} (dilated) can't be greater than the "
                           f"padded input size {tuple(padded)}")
    return tuple((n - e) // s + 1 for n, e, s in zip(padded, extent, stride))


def _grouped_matmul(cols, w, groups):
    """(N, C, *K, *O) columns times (Cout, C/g, *K) weights, group by group -> (N, Cout, *O)."""
    xp = namespace_of(cols)
    nd = w.ndim - 2
    n, out_sp = cols.shape[0], cols.shape[2 + nd:]
    wmat = w.reshape(groups, w.shape[0] // groups, -1)                # (G, Cout/G, Cg*K)
    cols = cols.reshape(n, groups, wmat.shape[2], math.prod(out_sp))   # (N, G, Cg*K, P)
    return xp.matmul(wmat, cols).reshape((n, w.shape[0]) + tuple(out_sp))


def _add_bias(out, b, nd):
    b = b.reshape((-1,) + (1,) * nd)
    if namespace_of(out).result_type(out, b) == out.dtype:
        out += b  # out is a fresh array: no second output-sized temporary
        return out
    return out + b


def _check_dtypes(x, w, b):
    """PyTorch's conv kernels take one dtype: a float64 batch into a float32 model is
    refused, not promoted (the bias is checked first)."""
    if b is not None and b.dtype != x.dtype:
        raise RuntimeError(f"Input type ({cpp_type_name(x.dtype)}) and bias type "
                           f"({cpp_type_name(b.dtype)}) should be the same")
    if w.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} but found "
                           f"{scalar_type_name(w.dtype)}")


def conv_forward_array(x, w, b, stride, padding, dilation, groups, nd):
    """conv1d / conv2d: cross-correlation of ``x`` (N, C, *L) with ``w`` (Cout, C/groups, *K)."""
    op = f"conv{nd}d"
    x, batched = _batched(x, nd, op)
    if w.ndim != nd + 2:
        raise RuntimeError(f"{op}: expected a {nd + 2}D weight (out_channels, in_channels/groups, "
                           f"*kernel), but got weight of shape {tuple(w.shape)}")
    if groups < 1 or w.shape[0] % groups or x.shape[1] != w.shape[1] * groups:
        raise RuntimeError(f"{op}: input of shape {tuple(x.shape)} and weight of shape "
                           f"{tuple(w.shape)} do not fit groups={groups}: expected input to have "
                           f"{w.shape[1] * groups} channels and out_channels divisible by groups")
    kernel = w.shape[2:]
    stride, dilation = conv_tuple(stride, nd, "stride"), conv_tuple(dilation, nd, "dilation")
    if isinstance(padding, str):
        pads = conv_same_pads(kernel, dilation, padding, stride)
    else:
        pads = [(p, p) for p in conv_tuple(padding, nd, "padding")]
    if any(s < 1 for s in stride) or any(d < 1 for d in dilation) or any(p < 0 for p, _ in pads):
        raise RuntimeError(f"{op}: stride and dilation must be positive and padding "
                           f"non-negative; got stride={stride}, dilation={dilation}")
    _check_dtypes(x, w, b)
    x = _pad_spatial(x, pads)
    out_sp = _conv_out_size(x.shape[2:], kernel, stride, dilation)
    out = _grouped_matmul(_unfold(x, kernel, stride, dilation, out_sp), w, groups)
    if b is not None:
        out = _add_bias(out, b, nd)
    return out if batched else out[0]


def conv_transpose_array(x, w, b, stride, padding, output_padding, groups, dilation, nd):
    """conv_transpose1d / 2d: the adjoint of conv in its input; ``w`` is (Cin, Cout/groups, *K).

    The transpose of conv's matmul gives the columns, col2im adds them up (_fold), and the
    padding is cropped off; output_padding adds rows on the right (zeros past the last tap).
    """
    op = f"conv_transpose{nd}d"
    x, batched = _batched(x, nd, op)
    if w.ndim != nd + 2:
        raise RuntimeError(f"{op}: expected a {nd + 2}D weight (in_channels, out_channels/groups, "
                           f"*kernel), but got weight of shape {tuple(w.shape)}")
    if groups < 1 or w.shape[0] % groups or x.shape[1] != w.shape[0]:
        raise RuntimeError(f"{op}: input of shape {tuple(x.shape)} and weight of shape "
                           f"{tuple(w.shape)} do not fit groups={groups}: expected input to have "
                           f"{w.shape[0]} channels, divisible by groups")
    xp = namespace_of(x)
    kernel = w.shape[2:]
    stride, dilation = conv_tuple(stride, nd, "stride"), conv_tuple(dilation, nd, "dilation")
    padding = conv_tuple(padding, nd, "padding")
    output_padding = conv_tuple(output_padding, nd, "output_padding")
    if any(s < 1 for s in stride) or any(d < 1 for d in dilation) or any(p < 0 for p in padding):
        raise RuntimeError(f"{op}: stride and dilation must be positive and padding "
                           f"non-negative; got stride={stride}, dilation={dilation}, "
                           f"padding={padding}")
    # PyTorch also wants output_padding < max(stride, dilation); minigrad allows any
    # non-negative amount, because conv's double backward needs larger ones
    if any(o < 0 for o in output_padding):
        raise RuntimeError(f"{op}: output_padding must be non-negative; got {output_padding}")
    _check_dtypes(x, w, None)  # (the bias is added after the kernel: any float dtype)
    in_sp = x.shape[2:]
    full = tuple((L - 1) * s + d * (k - 1) + 1 for L, s, d, k in zip(in_sp, stride, dilation, kernel))
    out_sp = tuple(f - 2 * p + o for f, p, o in zip(full, padding, output_padding))
    if any(o < 1 for o in out_sp):
        raise RuntimeError(f"{op}: given input size per channel {tuple(in_sp)}, the calculated "
                           f"output size per channel is {out_sp}: output size is too small "
                           "(use less padding)")
    n, cin_g = x.shape[0], w.shape[0] // groups
    wmat = w.reshape(groups, cin_g, -1).swapaxes(1, 2)                 # (G, Cout/G*K, Cin/G)
    cols = xp.matmul(wmat, x.reshape(n, groups, cin_g, math.prod(in_sp)))
    cols = cols.reshape((n, groups * w.shape[1]) + tuple(kernel) + tuple(in_sp))
    # fold onto the full extent (wider where output_padding reaches past it), then crop
    size = tuple(max(f, p + o) for f, p, o in zip(full, padding, out_sp))
    out = _fold(cols, size, stride, dilation)
    out = out[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(padding, out_sp))]
    if b is not None:
        out = out + b.reshape((-1,) + (1,) * nd)
    return out if batched else out[0]


def conv_backward_weight_array(go, x, weight_size, stride, padding, dilation, groups):
    """The weight gradient of conv: correlate the (padded) input with the output gradient."""
    xp = namespace_of(go)
    weight_size = tuple(weight_size)
    nd = len(weight_size) - 2
    go, batched = _batched(go, nd, "convolution_backward_weight", "grad_output")
    x, _ = _batched(x, nd, "convolution_backward_weight")
    kernel = weight_size[2:]
    stride, dilation = conv_tuple(stride, nd, "stride"), conv_tuple(dilation, nd, "dilation")
    padding = conv_tuple(padding, nd, "padding")
    out_sp = tuple(go.shape[2:])
    x = _pad_spatial(x, [(p, p) for p in padding])
    if any(o > w for o, w in zip(out_sp, _conv_out_size(x.shape[2:], kernel, stride, dilation))):
        raise RuntimeError(f"convolution_backward_weight: input of shape {tuple(x.shape)} gives "
                           f"fewer windows than grad_output of shape {tuple(go.shape)} needs")
    n, c = x.shape[:2]
    cols = _unfold(x, kernel, stride, dilation, out_sp)
    cols = cols.reshape(n, groups, (c // groups) * math.prod(kernel), math.prod(out_sp))
    g = go.reshape(n, groups, weight_size[0] // groups, math.prod(out_sp))
    # one (Cout/G, P) @ (P, Cg*K) product per sample and group, summed over the samples
    gw = xp.matmul(g, cols.swapaxes(-1, -2)).sum(axis=0)               # (G, Cout/G, Cg*K)
    return gw.reshape(weight_size).astype(xp.result_type(go, x), copy=False)


# ------------------------------------------------------------------ pooling
def pool_output_size(size, kernel, stride, pad, dilation, ceil_mode):
    """PyTorch's pooling_output_shape: windows may start in the left padding, never the right."""
    num = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (-(-num // stride) if ceil_mode else num // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def pool_stride(stride, kernel, nd):
    """Pooling's stride: None (or torch's empty default) means the kernel size."""
    if stride is None or (not isinstance(stride, (int, np.integer)) and len(stride) == 0):
        return kernel
    return conv_tuple(stride, nd, "stride")


def _pool_setup(shape, kernel_size, stride, padding, dilation, ceil_mode, nd, op, half_of):
    """Normalized arguments, output sizes and [(left, right)] pads of a pooling op."""
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(f"{op}: expected a {nd + 1}D or {nd + 2}D input, but got input of "
                           f"shape {tuple(shape)}")
    kernel = conv_tuple(kernel_size, nd, "kernel_size")
    stride = pool_stride(stride, kernel, nd)
    padding = conv_tuple(padding, nd, "padding")
    dilation = conv_tuple(dilation, nd, "dilation")
    if any(v < 1 for v in kernel + stride + dilation):
        raise RuntimeError(f"{op}: kernel_size, stride and dilation must be positive; got "
                           f"kernel_size={kernel}, stride={stride}, dilation={dilation}")
    for k, d, p in zip(kernel, dilation, padding):
        if p < 0 or p > (half_of(k, d)) // 2:
            raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but "
                               f"got pad={padding}, kernel_size={kernel} and dilation={dilation}")
    spatial = tuple(shape[-nd:])
    out = tuple(pool_output_size(L, k, s, p, d, ceil_mode)
                for L, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))
    if any(o < 1 for o in out):
        raise RuntimeError(f"{op}: given input size {tuple(spatial)}, the output size {out} is "
                           "too small: use a smaller kernel or more padding")
    pads = [(p, max((o - 1) * s + d * (k - 1) + 1 - L - p, 0))
            for L, k, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, out)]
    return kernel, stride, padding, dilation, out, pads


def max_pool_array(x, kernel_size, stride, padding, dilation, ceil_mode, nd):
    """max_pool1d/2d: (values, indices); indices are flat positions in each input plane."""
    op = f"max_pool{nd}d"
    kernel, stride, padding, dilation, out, pads = _pool_setup(
        x.shape, kernel_size, stride, padding, dilation, ceil_mode, nd, op,
        lambda k, d: d * (k - 1) + 1)
    xp = namespace_of(x)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _windows(_pad_spatial(x, pads, lowest), kernel, stride, dilation, out)
    win = win.reshape(win.shape[:x.ndim] + (-1,))
    arg = xp.argmax(win, axis=-1)
    values = xp.take_along_axis(win, arg[..., None], axis=-1)[..., 0]
    offsets = xp.unravel_index(arg, kernel)
    flat = xp.zeros(arg.shape, dtype=np.int64)
    for j in range(nd):  # position in input dim j: o*s - p + k*d; then row-major flatten
        shape = [1] * arg.ndim
        shape[arg.ndim - nd + j] = out[j]
        pos = xp.arange(out[j]).reshape(shape) * stride[j] - padding[j] + offsets[j] * dilation[j]
        flat = flat * x.shape[x.ndim - nd + j] + pos
    return values, flat


def max_pool_values_array(x, kernel_size, stride, padding, dilation, ceil_mode, nd):
    return max_pool_array(x, kernel_size, stride, padding, dilation, ceil_mode, nd)[0]


def max_pool_indices_array(x, kernel_size, stride, padding, dilation, ceil_mode, nd):
    return max_pool_array(x, kernel_size, stride, padding, dilation, ceil_mode, nd)[1]


def _avg_divisor(xp, L, k, s, p, o, count_include_pad):
    """Per-dim window sizes PyTorch divides by (padding counted, ceil-mode overhang not)."""
    start = xp.arange(o) * s - p
    end = xp.minimum(start + k, L + p)
    if count_include_pad:
        return end - start
    return xp.minimum(end, L) - xp.maximum(start, 0)


def avg_pool_divisor(xp, input_size, kernel, stride, padding, out, count_include_pad,
                     divisor_override, dtype):
    """The (*out) divisors of avg_pool, as an array of namespace ``xp``."""
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("avg_pool: divisor must be not zero")
        return xp.asarray(divisor_override, dtype=dtype)
    div = xp.ones((), dtype=dtype)
    for j in range(len(kernel)):
        d = _avg_divisor(xp, input_size[j], kernel[j], stride[j], padding[j], out[j],
                         count_include_pad)
        div = div[..., None] * d.astype(dtype)  # outer product, one dim at a time
    return div


def avg_pool_array(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                   divisor_override, nd):
    op = f"avg_pool{nd}d"
    kernel, stride, padding, _, out, pads = _pool_setup(
        x.shape, kernel_size, stride, padding, 1, ceil_mode, nd, op, lambda k, d: k)
    win = _windows(_pad_spatial(x, pads), kernel, stride, (1,) * nd, out)
    total = win.sum(axis=tuple(range(x.ndim, x.ndim + nd)))
    div = avg_pool_divisor(namespace_of(x), x.shape[-nd:], kernel, stride, padding, out, count_include_pad,
                           divisor_override, x.dtype)
    return (total / div).astype(x.dtype, copy=False)


def avg_pool_backward_array(grad, input_size, kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override):
    """Spread each output gradient evenly over its window (the adjoint of avg_pool)."""
    input_size = tuple(input_size)
    nd = len(kernel_size)  # the formula helpers pass one entry per spatial dim
    kernel, stride, padding, _, out, pads = _pool_setup(
        input_size, kernel_size, stride, padding, 1, ceil_mode, nd, "avg_pool_backward",
        lambda k, d: k)
    xp = namespace_of(grad)
    div = avg_pool_divisor(xp, input_size[-nd:], kernel, stride, padding, out, count_include_pad,
                           divisor_override, grad.dtype)
    g = grad / div
    lead = grad.shape[:grad.ndim - nd]
    full = xp.zeros(lead + tuple(L + l + r for L, (l, r) in zip(input_size[-nd:], pads)),
                    dtype=grad.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):  # kernel offsets, not pixels
        key = tuple(slice(k, k + (o - 1) * s + 1, s) for k, o, s in zip(offset, out, stride))
        full[(Ellipsis,) + key] += g
    crop = tuple(slice(l, l + L) for L, (l, _) in zip(input_size[-nd:], pads))
    return full[(Ellipsis,) + crop].reshape(input_size)


def adaptive_pool_matrix(size, out, dtype, xp=np):
    """(out, size) averaging matrix: row i averages [floor(i*L/o), ceil((i+1)*L/o))."""
    i = xp.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    cols = xp.arange(size)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def adaptive_output_size(input_size, output_size, nd):
    """``output_size`` (int, tuple, None entries keep the input size) as a tuple of nd ints."""
    if output_size is None or isinstance(output_size, (int, np.integer)):
        output_size = (output_size,) * nd
    output_size = tuple(output_size)
    if len(output_size) == 1:
        output_size = output_size * nd
    if len(output_size) != nd:
        raise ValueError(f"adaptive_avg_pool{nd}d: output_size must be an int or {nd} ints; "
                         f"got {output_size}")
    out = tuple(L if o is None else int(o) for L, o in zip(input_size[-nd:], output_size))
    if any(o < 1 for o in out):
        raise RuntimeError(f"adaptive_avg_pool{nd}d: output_size must be positive; got {out}")
    return out


def _refuse_integral_adaptive(dtype, out, nd):
    """torch has no integer adaptive_avg_pool: an output of all ones goes through mean(),
    others to the pooling kernel (the 1-d op is the 2-d one), each with its own message."""
    if dtype.kind not in "biu":
        return
    name = scalar_type_name(dtype)
    if all(o == 1 for o in out):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {name}")
    kernel = "adaptive_avg_pool3d_cpu" if nd == 3 else "adaptive_avg_pool2d"
    raise not_implemented_for(kernel, dtype)


def adaptive_avg_pool_array(x, output_size, nd):
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"adaptive_avg_pool{nd}d: expected a {nd + 1}D or {nd + 2}D input, "
                           f"but got input of shape {tuple(x.shape)}")
    if any(L == 0 for L in x.shape[-nd:]):
        raise RuntimeError(f"adaptive_avg_pool{nd}d: input of shape {tuple(x.shape)} has an "
                           "empty spatial dim")
    xp = namespace_of(x)
    out = adaptive_output_size(x.shape, output_size, nd)
    _refuse_integral_adaptive(x.dtype, out, nd)
    y = x
    for j in range(nd):  # one (out, L) matmul per spatial dim
        axis = x.ndim - nd + j
        A = adaptive_pool_matrix(x.shape[axis], out[j], x.dtype, xp)
        y = xp.moveaxis(xp.matmul(xp.moveaxis(y, axis, -1), A.T), -1, axis)
    return xp.ascontiguousarray(y)


# ------------------------------------------------------------------ padding
def pad_pairs(pad, ndim):
    """PyTorch's pad tuple (last dim first) as {axis: (left, right)}."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{ndim}")
    return {ndim - 1 - j: (pad[2 * j], pad[2 * j + 1]) for j in range(len(pad) // 2)}


_PAD_COMBINATIONS = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad_index(size, left, right, mode, where=None):
    """Which input position each output position copies along one dim (a host index array).
    ``where``: (dim, input shape), for PyTorch's reflect error."""
    i = np.arange(-left, size + right)
    if mode == "reflect":
        if left >= size or right >= size:
            dim, shape = where or (0, [size])
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({left}, {right}) at "
                               f"dimension {dim} of input {list(shape)}")
        period = 2 * (size - 1)
        i = np.abs(i) % period if period else np.zeros_like(i)
        return np.where(i >= size, period - i, i)
    if mode == "replicate":
        if size == 0:
            raise RuntimeError("pad: 'replicate' mode needs non-empty dims")
        return np.clip(i, 0, size - 1)
    if mode == "circular":
        if left > size or right > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if left + right + size < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        # PyTorch crops at negative pads first, then wraps what is left around
        start, stop = max(-left, 0), size - max(-right, 0)
        kept = stop - start
        i = np.arange(-max(left, 0), kept + max(right, 0))
        return i % kept + start if kept else i
    raise NotImplementedError(f"Unrecognised padding mode {mode}")


def pad_array(x, pad, mode, value):
    pairs = pad_pairs(pad, x.ndim)
    if mode == "constant":
        pads = [pairs.get(a, (0, 0)) for a in range(x.ndim)]
        out = _pad_spatial(x, pads, 0.0 if value is None else value)
        return out.copy() if out is x else out
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value not in (None, 0, 0.0):
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if x.ndim - len(pairs) not in (1, 2) or len(pairs) > 3:
        raise NotImplementedError(f"Padding size {2 * len(pairs)} is not supported for "
                                  f"{x.ndim}D input tensor.\n{_PAD_COMBINATIONS}")
    xp = namespace_of(x)
    shape = x.shape
    for axis, (left, right) in sorted(pairs.items()):
        index = pad_index(x.shape[axis], left, right, mode, (axis, shape))
        x = xp.take(x, xp.asarray(index), axis=axis)
    return x


def pad_backward_array(grad, input_size, pad, mode):
    """The adjoint of a 'reflect' / 'replicate' / 'circular' pad: add copies back."""
    xp = namespace_of(grad)
    input_size = tuple(input_size)
    pairs = pad_pairs(pad, len(input_size))
    for axis, (left, right) in sorted(pairs.items()):
        idx = xp.asarray(pad_index(input_size[axis], left, right, mode))
        moved = xp.moveaxis(grad, axis, 0)
        out = xp.zeros((input_size[axis],) + moved.shape[1:], dtype=grad.dtype)
        xp.add.at(out, idx, moved)
        grad = xp.moveaxis(out, 0, axis)
    return grad


# ------------------------------------------------------------------ embedding
def embedding_array(indices, weight, padding_idx, max_norm, sparse):
    if max_norm is not None:
        raise NotImplementedError("embedding: max_norm renormalizes the weight in place, which "
                                  "minigrad does not support; renormalize the weight yourself "
                                  "under no_grad() and call embedding without max_norm")
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported; use "
                                  "sparse=False (the gradient is a dense tensor)")
    xp = namespace_of(weight)
    indices = xp.asarray(indices)
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{_legacy_type_name(indices)} instead (while checking arguments "
                           "for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    embedding_padding_idx(padding_idx, weight.shape[0])
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    return xp.take(weight, indices, axis=0)


def _legacy_type_name(array):
    """PyTorch's name of an array's tensor type in messages: minigrad.FloatTensor ..."""
    device = "" if type(array) is np.ndarray else "cuda."
    return f"minigrad.{device}{scalar_type_name(array.dtype)}Tensor"


def embedding_padding_idx(padding_idx, num_embeddings):
    """``padding_idx`` as a non-negative row number, or None."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(f"embedding: padding_idx must be within num_embeddings "
                         f"({num_embeddings}); got {padding_idx}")
    return padding_idx % num_embeddings
