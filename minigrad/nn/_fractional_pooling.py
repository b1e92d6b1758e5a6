"""F.fractional_max_pool2d / 3d (Graham's fractional max pooling), as torch's, composed
from differentiable ops.

Each plane draws one sample u in [0, 1) per spatial dim (``_random_samples``, shape
(N, C, 2 or 3)); output position i of a dim of size n_in -> n_out starts its window at
``int((i + u) * alpha) - int(u * alpha)``, alpha = (n_in - k) / (n_out - 1), computed in
the input's dtype as ATen does, the last window ending at the input's end.  The windows'
flat positions are gathered and ``max`` is taken over each, so the gradient is gather's.

>>> F.fractional_max_pool2d(x, 2, output_ratio=0.5)              # doctest: +SKIP
"""
import math

import numpy as np

from minigrad._generated import functions as _F
from minigrad._sampling import rand
from minigrad.nn._more_pooling import _as_tensor, _constant, _ntuple, _refuse

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _starts(samples, n_in, n_out, pool, dtype):
    """(planes, n_out) window starts along one dim from each plane's sample (ATen's
    generate_intervals, in the input's floating dtype)."""
    starts = np.empty(samples.shape + (n_out,), dtype=np.int64)
    if n_out > 1:
        alpha = dtype.type(n_in - pool) / dtype.type(n_out - 1)
        i = np.arange(n_out - 1).astype(dtype)
        u = samples.astype(dtype)[..., None]
        starts[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    starts[..., -1] = n_in - pool
    return starts


def _window_positions(samples, spatial, out, pool, dtype):
    """(planes, *out, prod(pool)) flat input positions of every output's window: row-major
    within the window, as ATen visits it."""
    nd = len(spatial)
    planes = samples.shape[0]
    positions = np.zeros((planes,) + (1,) * (2 * nd), dtype=np.int64)
    for d in range(nd):
        # ATen reads a plane's samples as (W, H) in 2-d but as (T, H, W) in 3-d
        column = 1 - d if nd == 2 else d
        start = _starts(samples[:, column], spatial[d], out[d], pool[d], dtype)
        along = start[:, :, None] + np.arange(pool[d])             # (planes, out, pool)
        shape = [planes] + [1] * (2 * nd)
        shape[1 + d], shape[1 + nd + d] = out[d], pool[d]
        positions = positions * spatial[d] + along.reshape(shape)
    return positions.reshape((planes,) + tuple(out) + (math.prod(pool),))


def _check(input, pool, out, nd, samples):
    """ATen's checks, in its order, with its messages (the 3-d ones name the _out kernel)."""
    name = f"fractional_max_pool{nd}d" + ("_out" if nd == 3 else "")
    shape = list(input.shape)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for i in range(input.ndim - nd - 1, input.ndim):
        if shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{shape} with dimension {i} being empty.")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if input.ndim == nd + 2 and samples.shape[0] < shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    for d, what in enumerate(("time", "height", "width")[3 - nd:]):
        # (the 3-d kernel also refuses windows that would just fit: its check is strict)
        if out[d] + pool[d] - 1 > shape[-nd + d] - (nd == 3):
            raise RuntimeError(f"{name}(): pool {what} {pool[d]} too large relative to "
                               f"input {what} {shape[-nd + d]}")
    _refuse(input, "biu", f"fractional_max_pool{nd}d_out_frame")


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, samples, nd):
    input = _as_tensor(input)
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    pool = _ntuple(kernel_size, nd)
    if output_size is None:
        ratio = _ntuple(output_ratio, nd)
        if len(ratio) > nd:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        output_size = [int(input.shape[-nd + d] * ratio[d]) for d in range(nd)]
    out = [int(o) for o in _ntuple(output_size, nd)]
    if samples is None:
        batch = 1 if input.ndim == nd + 1 else input.shape[0]
        samples = rand(batch, input.shape[-nd - 1], nd, dtype=input.dtype,
                       device=input.device)
    _check(input, pool, out, nd, samples)
    lead, spatial = tuple(input.shape[:-nd]), tuple(input.shape[-nd:])
    batch = input.shape[0] if input.ndim == nd + 2 else 1
    flat_samples = samples.detach().cpu().numpy()[:batch].reshape(-1, nd)
    positions = _window_positions(flat_samples, spatial, out, pool, np.dtype(input._data.dtype))
    positions = positions.reshape(lead + positions.shape[1:])       # (*lead, *out, K)
    flat = _F.reshape(input, lead + (math.prod(spatial),))
    per_plane = math.prod(positions.shape[len(lead):])   # (an empty batch has planes too)
    index = _constant(input, positions.reshape(lead + (per_plane,)))
    windows = _F.reshape(_F.gather(flat, -1, index), positions.shape)
    values, arg = _F.max_dim(windows, -1)
    indices = _F.gather(_constant(input, positions), -1, _F.unsqueeze(arg, -1))
    return values, _F.squeeze(indices, -1)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over pseudo-random overlapping (kH, kW) windows that bring (H, W) to
    ``output_size`` (or ``output_ratio`` of it)."""
    values, indices = _fractional_max_pool(input, kernel_size, output_size, output_ratio,
                                           _random_samples, 2)
    return (values, indices) if return_indices else values


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over pseudo-random overlapping (kT, kH, kW) windows that bring (T, H, W) to
    ``output_size`` (or ``output_ratio`` of it)."""
    values, indices = _fractional_max_pool(input, kernel_size, output_size, output_ratio,
                                           _random_samples, 3)
    return (values, indices) if return_indices else values


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """(values, indices) of fractional_max_pool2d, whatever ``return_indices`` says."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """(values, indices) of fractional_max_pool3d, whatever ``return_indices`` says."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)
