"""F.interpolate (nearest, nearest-exact, linear, bilinear, trilinear, bicubic, area) and
F.pixel_shuffle / F.pixel_unshuffle, as compositions of differentiable ops (uint8 images
and ``antialias=True``: _separable_resample).

Interpolation is separable: each spatial dimension in turn gathers its source rows with
``index_select`` (nearest), or the two neighbours and blends them with PyTorch's weights
(linear), or four of them (bicubic), so the gradient is index_select's scatter-add and no
new derivative is needed; 'area' is adaptive average pooling, as in torch.
Source coordinates follow ATen's UpSample.h (area_pixel_compute_scale / source_index,
nearest_idx), including its float32 scale for the nearest modes.

>>> F.interpolate(minigrad.arange(4.).view(1, 1, 4), scale_factor=2, mode="linear")
tensor([[[0.  , 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.  ]]])
"""
import math
import warnings

import numpy as np

from minigrad._dtypes import uint8
from minigrad._generated import functions as _F
from minigrad.autograd.promotion import refuse_dtypes

from minigrad.creation import tensor
from minigrad.nn._separable_resample import resample

_LINEAR_MODES = {"linear": 1, "bilinear": 2, "trilinear": 3}
_NEAREST_MODES = ("nearest", "nearest-exact")
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _output_sizes(input, size, scale_factor, recompute_scale_factor, dim):
    """(output sizes, scales for the coordinate mapping or None per dim), as torch."""
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}")
            return [int(s) for s in size], [None] * dim
        return [int(size)] * dim, [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {spatial} and "
                f"scale_factor of shape {scale_factor}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                "scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    sizes = [int(math.floor(n * s)) for n, s in zip(spatial, scales)]
    return sizes, ([None] * dim if recompute_scale_factor else scales)


def _nearest_indices(n_in, n_out, scale, exact):
    """ATen's nearest_idx / nearest_neighbor_exact_compute_source_index (float32 scale)."""
    if not exact and n_out == n_in:
        return np.arange(n_out)
    if not exact and n_out == 2 * n_in:
        return np.arange(n_out) >> 1
    step = np.float32(1.0 / scale if scale is not None and scale > 0 else n_in / n_out)
    dst = np.arange(n_out, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0))
    return np.minimum(np.floor(dst * step).astype(np.int64), n_in - 1)


def _linear_indices(n_in, n_out, scale, align_corners):
    """Left and right source index and the right neighbour's weight per output position."""
    if align_corners:
        step = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        src = step * np.arange(n_out, dtype=np.float64)
    else:
        step = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        src = np.maximum(step * (np.arange(n_out, dtype=np.float64) + 0.5) - 0.5, 0.0)
    left = src.astype(np.int64)
    right = np.where(left < n_in - 1, left + 1, left)
    return left, right, src - left


def _cubic_indices(n_in, n_out, scale, align_corners):
    """ATen's upsample_bicubic2d taps: four clamped source indices and their weights
    (cubic convolution with A = -0.75) per output position."""
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) * dst
    else:   # (not clamped at 0, unlike linear)
        step = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        src = step * (dst + 0.5) - 0.5
    start = np.floor(src)
    t, a = src - start, -0.75
    near = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1             # |x| <= 1
    far = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a       # 1 < |x| < 2
    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    indices = [np.clip(start.astype(np.int64) + k - 1, 0, n_in - 1) for k in range(4)]
    return list(zip(indices, weights))


def _check_align_corners(mode, align_corners):
    if mode in _NEAREST_MODES + ("area",) and align_corners is not None:
        raise ValueError("align_corners option can only be set with the "
                         "interpolating modes: linear | bilinear | bicubic | trilinear")


def _check_mode(input, mode, antialias):
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if input.dim() not in (3, 4, 5) or mode not in (*_LINEAR_MODES, *_NEAREST_MODES,
            "bicubic", "lanczos", "area"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
            f"for the modes: {_ALL_MODES} (got {mode})")
    if mode in _LINEAR_MODES and _LINEAR_MODES[mode] != input.dim() - 2:
        wanted = {"linear": "3D", "bilinear": "4D", "trilinear": "5D"}[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted} "
                                  "input")
    if mode == "bicubic" and input.dim() != 4:   # (torch's fall-through error, as worded)
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
            f"for the modes: {_ALL_MODES} (got {mode})")
    if mode == "lanczos":
        raise NotImplementedError(f"interpolate(mode={mode!r}) is not supported by minigrad; "
                                  "supported modes: nearest, nearest-exact, linear, bilinear, "
                                  "trilinear, bicubic, area")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dimensions of (N, C, *spatial) input, as
    ``torch.nn.functional.interpolate``."""
    _check_align_corners(mode, align_corners)
    dim = input.dim() - 2
    sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor, dim)
    _check_mode(input, mode, antialias)
    _refuse_integers(input, mode, dim)
    if antialias or (mode in ("bilinear", "bicubic") and input.dtype == uint8):
        return resample(input, sizes, scales, mode, align_corners, antialias)
    if mode == "area":
        pool = (_F.adaptive_avg_pool1d, _F.adaptive_avg_pool2d, _F.adaptive_avg_pool3d)[dim - 1]
        return pool(input, sizes)
    out = input
    # (the indices and weights follow from the sizes alone: made from Python lists, which
    # minigrad.compile keeps as constants, where an array could hold data)
    for i, (n_out, scale) in enumerate(zip(sizes, scales)):
        axis, n_in = 2 + i, input.shape[2 + i]
        if mode in _NEAREST_MODES:
            index = _nearest_indices(n_in, n_out, scale, mode == "nearest-exact")
            out = out.index_select(axis, tensor(index.tolist()))
            continue
        shape = [1] * input.dim()
        shape[axis] = n_out
        if mode == "bicubic":
            taps = _cubic_indices(n_in, n_out, scale, bool(align_corners))
            out = sum(out.index_select(axis, tensor(index.tolist()))
                      * tensor(weight.reshape(shape).tolist(), dtype=input.dtype)
                      for index, weight in taps)
            continue
        left, right, weight = _linear_indices(n_in, n_out, scale, bool(align_corners))
        weight = tensor(weight.reshape(shape).tolist(), dtype=input.dtype)
        lo = out.index_select(axis, tensor(left.tolist()))
        hi = out.index_select(axis, tensor(right.tolist()))
        out = lo * (1 - weight) + hi * weight
    return out


def _refuse_integers(input, mode, dim):
    """PyTorch's integer kernels: uint8 for the nearest modes (images, masks); others are
    refused, its kernel's name varying with the layout (this is the contiguous one's)."""
    if mode in _NEAREST_MODES:
        if input.dtype != uint8:
            kernel = ("upsample_nearest2d_channels_last" if dim == 2
                      else "compute_indices_weights_nearest")
            refuse_dtypes("integral", kernel, input)
        return
    if mode in ("bilinear", "bicubic") and input.dtype == uint8:
        return   # (ATen's separable uint8 kernels: _separable_resample)
    if mode == "area":
        kernel = "adaptive_avg_pool3d_cpu" if dim == 3 else "adaptive_avg_pool2d"
    elif mode == "bicubic":
        kernel = "compute_indices_weights_cubic"
    else:
        kernel = ("upsample_bilinear2d_channels_last" if dim == 2
                  else "compute_indices_weights_linear")
    refuse_dtypes("integral", kernel, input)


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. "
                  "Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (PyTorch warns the same way)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode="nearest")``."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode="bilinear", align_corners=True)``."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _check_positive(name, what, factor):
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r), as ``torch.nn.functional.pixel_shuffle``."""
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    _check_positive("pixel_shuffle", "upscale_factor", r)
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{c} is not divisible by {r * r}")
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), as ``torch.nn.functional.pixel_unshuffle``."""
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    _check_positive("pixel_unshuffle", "downscale_factor", r)
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor,"
                           f" but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)
