"""F.interpolate's separable resampling as ATen runs it on the CPU for bilinear and
bicubic: uint8 images (with or without ``antialias``) and float inputs with
``antialias=True``.

Each resized dimension is one pass, the last dimension first: output position i reads
``size[i]`` input positions from ``start[i]`` with weights from ATen's filters (PIL's
support and centering with antialias; the ordinary 2 / 4 taps, folded at the borders,
without).  On uint8 the weights are rounded to int16 at the largest precision their
maximum allows and each pass rounds its integer sum back to uint8 (ATen's
``_compute_index_ranges_int16_weights`` and ``basic_loop_aa_horizontal<uint8_t>``);
on floats a pass is a product with the (output x input) weight matrix, so the gradient
is matmul's.
"""
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import _wrap
from minigrad.creation import tensor


def _linear_filter(x):
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _cubic_filter(a):
    def cubic(x):
        x = abs(x)
        if x < 1.0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2.0:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0
    return cubic


def _scale(n_in, n_out, align_corners, scale):
    """ATen's area_pixel_compute_scale (input / output)."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _antialiased_taps(n_in, n_out, scale, interp_size, filter_fn):
    """PIL's taps: every input position within the filter's support, scaled by the
    downsampling factor, normalised to sum 1."""
    support = interp_size * 0.5 * scale if scale >= 1.0 else interp_size * 0.5
    width = int(math.ceil(support)) * 2 + 1
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    taps = []
    for i in range(n_out):
        center = scale * (i + 0.5)
        start = max(int(center - support + 0.5), 0)
        size = min(max(min(int(center + support + 0.5), n_in) - start, 0), width)
        weights = [filter_fn((j + start - center + 0.5) * invscale) for j in range(size)]
        total = sum(weights)
        if total != 0.0:
            weights = [w / total for w in weights]
        taps.append((start, weights))
    return taps


def _plain_taps(n_in, n_out, scale, interp_size, filter_fn, align_corners):
    """The 2 (linear) or 4 (cubic) taps around each source position; those beyond
    the border add their weight to the border's (ATen's _compute_indices_min_size_weights)."""
    taps = []
    half = interp_size // 2
    for i in range(n_out):
        src = scale * i if align_corners else scale * (i + 0.5) - 0.5
        if interp_size == 2 and src < 0:
            src = 0.0
        index = min(int(math.floor(src)), n_in - 1)
        lam = min(max(src - index, 0.0), 1.0)
        low = index - half + 1
        start = max(low, 0)
        size = min(max(min(index + half + 1, n_in) - start, 0), interp_size)
        weights = [0.0] * interp_size
        slot = 0
        for j in range(interp_size):
            w = filter_fn(float(j + 1 - half) - lam)
            if low + j <= 0:
                slot = 0
            elif low + j >= n_in - 1:
                slot = size - 1
            weights[slot] += w
            slot += 1
        taps.append((start, weights[:size]))
    return taps


def _taps(n_in, n_out, scale, mode, antialias, align_corners):
    interp_size = 2 if mode == "bilinear" else 4
    if mode == "bilinear":
        filter_fn = _linear_filter
    else:   # PIL's a = -0.5 with antialias; OpenCV's -0.75 (uint8) without
        filter_fn = _cubic_filter(-0.5 if antialias else -0.75)
    scale = _scale(n_in, n_out, align_corners, scale)
    if antialias:
        return _antialiased_taps(n_in, n_out, scale, interp_size, filter_fn)
    return _plain_taps(n_in, n_out, scale, interp_size, filter_fn, align_corners)


def _int16_weights(taps):
    """Each weight times 2**precision, rounded half away from zero; the precision the
    largest that keeps twice the largest weight's value under 2**15."""
    largest = max((w for _, ws in taps for w in ws), default=0.0)
    precision = 0
    while precision < 22 and int(0.5 + largest * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = [[int(-0.5 + w * (1 << precision)) if w < 0 else int(0.5 + w * (1 << precision))
               for w in ws] for _, ws in taps]
    return scaled, precision


def _uint8_pass(array, axis, taps):
    """One pass over ``axis`` of a uint8 array with ATen's integer arithmetic (the taps
    padded to the widest with zero weights on the first position)."""
    xp = namespace_of(array)
    weights, precision = _int16_weights(taps)
    width = max(len(ws) for ws in weights)
    index = np.array([[start + j if j < len(ws) else start for j in range(width)]
                      for (start, _), ws in zip(taps, weights)], dtype=np.int64)
    table = np.array([ws + [0] * (width - len(ws)) for ws in weights], dtype=np.int64)
    moved = xp.moveaxis(array, axis, -1).astype(xp.int64)
    total = (moved[..., xp.asarray(index)] * xp.asarray(table)).sum(axis=-1)
    out = (total + (1 << (precision - 1))) >> precision
    return xp.moveaxis(xp.clip(out, 0, 255).astype(xp.uint8), -1, axis)


def _weight_matrix(taps, n_in):
    matrix = np.zeros((len(taps), n_in))
    for i, (start, ws) in enumerate(taps):
        matrix[i, start:start + len(ws)] = ws
    return matrix


def resample(input, sizes, scales, mode, align_corners, antialias):
    """Bilinear / bicubic resize of the last ``len(sizes)`` dims, ATen's separable way."""
    dims = len(sizes)
    integer = not input.dtype.is_floating_point   # (uint8: floats come only antialiased)
    out = input
    # the last (contiguous) dimension first, as ATen; an unchanged size is no pass
    for d in reversed(range(dims)):
        axis = input.dim() - dims + d
        n_in, n_out = input.shape[axis], sizes[d]
        if n_in == n_out:
            continue
        taps = _taps(n_in, n_out, scales[d], mode, antialias, bool(align_corners))
        if integer:
            out = _wrap(_uint8_pass(out._data, axis, taps))
        else:
            matrix = tensor(_weight_matrix(taps, n_in).tolist(), dtype=input.dtype,
                            device=input.device)
            moved = _F.movedim(out, axis, -1)
            out = _F.movedim(_F.matmul(moved, _F.t(matrix)), -1, axis)
    return out
