"""F.affine_grid and F.grid_sample (the sampler of Spatial Transformer Networks), as
compositions of differentiable ops.

grid_sample maps each grid point to a source position in pixels (ATen's
grid_sampler_compute_source_index: unnormalize, then border or reflection padding),
gathers the neighbouring pixels with ``gather`` and blends them with weights computed
from that position.  The pixel indices come from ``floor`` / ``round`` of the detached
position, so they carry no gradient, and the weights carry the gradient with respect to
the grid; the gradient with respect to the input is gather's scatter-add.  Gradients of
both orders, forward mode, ``minigrad.compile`` and the GPU namespace follow from those
ops; no derivative is written here.

ATen's conventions kept (GridSamplerKernel.cpp, GridSampler.h):
- a clipped coordinate has gradient 0 at the border itself (clamp's passes it there);
- a reflected coordinate's gradient is +-1, its sign flipping with each reflection;
- bicubic takes the 4x4 taps around the unpadded position and pads each tap's index, so
  its gradient is never clipped;
- nearest rounds half to even; its gradient with respect to the grid is 0, not None.

>>> theta = minigrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
>>> grid = F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
>>> F.grid_sample(minigrad.arange(4.).view(1, 1, 2, 2), grid, align_corners=False)
tensor([[[[0., 1.],
          [2., 3.]]]])
"""
import itertools
import warnings

import numpy as np

from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad.creation import tensor, zeros_like
from minigrad.kernels.core import not_implemented_for, scalar_type_name
from minigrad.nn._arguments import require_tensors, type_name

__all__ = ["affine_grid", "grid_sample"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_CUBIC_A = -0.75   # ATen's cubic convolution constant (OpenCV's; PIL uses -0.5)


def _align_corners(align_corners):
    """None means False, with PyTorch's warning (its stacklevel: the user's call)."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True "
                      "if the old behavior is desired. See the documentation of grid_sample "
                      "for details.", stacklevel=3)
        return False
    return align_corners


# ---- affine_grid

def _linspace_from_neg_one(n, align_corners, dtype):
    """ATen's linspace_from_neg_one, bit for bit: torch's linspace counts each half from its
    own end with a fused multiply-add (one rounding: the wider type here), then the range
    is scaled by (n - 1) / n unless align_corners."""
    if n <= 1:
        return np.zeros(1, dtype)
    wide = np.longdouble if dtype.itemsize >= 8 else np.float64
    step = wide((dtype.type(1) - dtype.type(-1)) / dtype.type(n - 1))
    i = np.arange(n).astype(wide)
    values = np.where(i < n // 2, -1 + step * i, 1 - step * (n - 1 - i)).astype(dtype)
    if not align_corners:
        values = (values * dtype.type(n - 1) / dtype.type(n)).astype(dtype)
    return values


def _base_grid(spatial, align_corners, dtype):
    """(prod(spatial), k + 1) rows (x, y[, z], 1): x runs along the last spatial dim."""
    axes = [_linspace_from_neg_one(n, align_corners, dtype) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")           # per spatial dim, in input order
    columns = [m.reshape(-1) for m in reversed(mesh)]  # x first
    columns.append(np.ones(columns[0].shape, dtype))
    return np.stack(columns, axis=-1)


def _check_affine(theta, size, align_corners):
    if not isinstance(theta, Tensor):
        raise AttributeError(f"'{type_name(theta)}' object has no attribute "
                             "'is_floating_point'")
    if theta._data.dtype.kind not in "f":
        raise ValueError("Expected theta to have floating point type, but got "
                         f"minigrad.{theta._data.dtype.name}")
    rows = len(size) - 2   # theta is (N, rows, rows + 1)
    if rows in (2, 3) and (theta.dim() != 3 or tuple(theta.shape[1:]) != (rows, rows + 1)):
        kind, wanted = ("2D", "Nx2x3") if rows == 2 else ("3D", "Nx3x4")
        raise ValueError(f"Expected a batch of {kind} affine matrices of shape {wanted} "
                         f"for size {size}. Got {theta.shape}.")
    if rows not in (2, 3):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=3)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    for i, s in enumerate(size):
        if not isinstance(s, (int, np.integer)):
            raise TypeError("affine_grid_generator(): argument 'size' (position 2) must be "
                            f"tuple of ints, but found element of type {type_name(s)} at "
                            f"pos {i}")


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta``
    (N, 2, 3) or (N, 3, 4) for an output of ``size`` (N, C, H, W) or (N, C, D, H, W), in
    grid_sample's normalized coordinates; as ``torch.nn.functional.affine_grid``.

    >>> grid = F.affine_grid(theta, (8, 1, 28, 28), align_corners=False)  # doctest: +SKIP
    >>> out = F.grid_sample(images, grid, align_corners=False)            # doctest: +SKIP
    """
    align_corners = _align_corners(align_corners)
    _check_affine(theta, size, align_corners)
    n, spatial = int(size[0]), [int(s) for s in size[2:]]
    base = _base_grid(spatial, align_corners, theta._data.dtype)
    # (from a Python list: minigrad.compile keeps it as a constant, as it depends on sizes)
    base = tensor(base.tolist(), dtype=theta.dtype, device=theta.device)
    base = base.unsqueeze(0).expand(n, *base.shape)
    # bmm as ATen's affine_grid_generator, so a batch mismatch gets bmm's error
    grid = _F.bmm(base, theta.transpose(1, 2))
    return grid.view(n, *spatial, len(spatial))


# ---- grid_sample: checks

def _check_sampler(input, grid, mode, align_corners):
    """ATen's checks, in its order (GridSamplerUtils.h, then the kernel's dtype dispatch)."""
    require_tensors("grid_sampler", input=input, grid=grid)
    if not isinstance(align_corners, bool):
        raise TypeError("grid_sampler(): argument 'align_corners' (position 5) must be bool, "
                        f"not {type_name(align_corners)}")
    for t in (input, grid):
        if t.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got {sizes}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {i} being empty")
    wanted = 4 if input.dim() == 4 else 5
    if input.dim() != wanted or grid.dim() != wanted:
        raise RuntimeError(f"grid_sampler(): expected {wanted}D input and grid with same "
                           f"number of dimensions, but got {sizes}")
    if wanted == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    dtype = input._data.dtype
    if dtype.kind not in "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if wanted == 4 else "grid_sampler3d_cpu"
        raise not_implemented_for(kernel, dtype)
    if grid._data.dtype != dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(dtype)} but found "
                           f"{scalar_type_name(grid._data.dtype)}")


# ---- grid_sample: source coordinates

def _unnormalize(coord, size, align_corners):
    """[-1, 1] -> pixels: the centres (align_corners) or the outer edges of the corner
    pixels; the form of ATen's vectorized kernel."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _clip(coord, size):
    """clamp to [0, size - 1]; ATen counts the borders themselves as clipped (gradient 0
    there, where clamp's gradient passes), and its vectorized max takes NaN to 0."""
    inside = (coord > 0) & (coord < size - 1)
    edge = _F.where(coord.detach() >= size - 1, float(size - 1), zeros_like(coord))
    return _F.where(inside, coord, edge)


def _reflect(coord, size, align_corners):
    """Reflect about the centres (align_corners) or the outer edges of the border pixels
    until inside; gradient +-1 (ATen's reflect_coordinates_set_grad)."""
    low, span = (0.0, size - 1) if align_corners else (-0.5, size)
    if span == 0:   # one pixel, align_corners: every point is its centre, gradient 0
        return _F.where(zeros_like(coord, dtype=bool), coord, 0.0)
    shifted = coord - low
    distance = _F.where(shifted.detach() < 0, -shifted, shifted)   # +1 at 0, as ATen
    period = 2 * span
    extra = distance - period * _F.floor(distance.detach() / period)
    return _F.where(extra.detach() > span, period - extra, extra) + low


def _source(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        return _clip(_reflect(coord, size, align_corners), size)
    return coord


# ---- grid_sample: gathering

def _gather(flat, taps, sizes):
    """Pixels of ``flat`` (N, C, prod(sizes)) at integer positions ``taps`` (detached
    float tensors (N, P), one per spatial dim in input order) -> (N, C, P), 0 outside."""
    inside, index = None, None
    for tap, n in zip(taps, sizes):
        ok = (tap >= 0) & (tap <= n - 1)
        inside = ok if inside is None else inside & ok
        i = _F.where(ok, tap, 0.0).long()   # (any index inside: the value is masked)
        index = i if index is None else index * n + i
    n_batch, channels, _ = flat.shape
    index = index.unsqueeze(1).expand(n_batch, channels, index.shape[1])
    return _F.where(inside.unsqueeze(1), flat.gather(2, index), 0.0)


def _linear(flat, coords, sizes):
    """Bilinear / trilinear: the 2**k neighbours, ATen's order and weights."""
    corners = [_F.floor(c.detach()) for c in coords]
    weights = [((c0 + 1) - c, c - c0) for c, c0 in zip(coords, corners)]
    out = None
    for offsets in itertools.product((0, 1), repeat=len(coords)):
        w = None
        for axis in reversed(range(len(coords))):   # x first, as ATen multiplies
            w = weights[axis][offsets[axis]] if w is None else w * weights[axis][offsets[axis]]
        taps = [c0 + o if o else c0 for c0, o in zip(corners, offsets)]
        term = _gather(flat, taps, sizes) * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _nearest(flat, coords, sizes):
    taps = [_F.round(c.detach()) for c in coords]
    # the grid stays in the graph with gradient 0, as torch gives it
    zero = _F.where(zeros_like(coords[0], dtype=bool), coords[0], 0.0)
    return _gather(flat, taps, sizes) + zero.unsqueeze(1)


def _cubic_weights(t):
    """ATen's get_cubic_upsample_coefficients for the taps at -1, 0, 1, 2."""
    a = _CUBIC_A

    def near(x):   # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):    # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far((1.0 - t) + 1.0)]


def _bicubic(flat, coords, sizes, padding_mode, align_corners):
    """4x4 taps around the unpadded position; each tap's index is padded (ATen's
    get_value_bounded), so the weights alone carry the grid's gradient."""
    (y, x), (h, w) = coords, sizes   # input order: y (H) first
    x0, y0 = _F.floor(x.detach()), _F.floor(y.detach())
    wx, wy = _cubic_weights(x - x0), _cubic_weights(y - y0)

    def tap(position, size):
        if padding_mode == "border":
            return _F.clamp(position, 0, size - 1)
        if padding_mode == "reflection":
            return _F.clamp(_reflect(position, size, align_corners), 0, size - 1)
        return position

    out = None
    for j in range(4):
        ty = tap(y0 + (j - 1), h)
        row = None
        for i in range(4):
            term = _gather(flat, [ty, tap(x0 + (i - 1), w)], sizes) * wx[i].unsqueeze(1)
            row = term if row is None else row + term
        term = row * wy[j].unsqueeze(1)
        out = term if out is None else out + term
    return out


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalized positions of
    ``grid`` (N, Ho, Wo, 2) or (N, Do, Ho, Wo, 3), x first, in [-1, 1] from the first
    pixel to the last; as ``torch.nn.functional.grid_sample``.

    >>> out = F.grid_sample(images, grid, mode="bilinear", padding_mode="border",
    ...                     align_corners=False)                           # doctest: +SKIP
    """
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners(align_corners)
    _check_sampler(input, grid, mode, align_corners)
    n_batch, channels, *sizes = input.shape
    out_spatial = list(grid.shape[1:-1])
    points = int(np.prod(out_spatial))
    flat = input.reshape(n_batch, channels, int(np.prod(sizes)))
    grid = grid.reshape(n_batch, points, len(sizes))
    # grid's coordinate k indexes spatial dim -1 - k: coords here follow the input's order
    raw = [grid[:, :, len(sizes) - 1 - d] for d in range(len(sizes))]
    if mode == "bicubic":
        coords = [_unnormalize(c, n, align_corners) for c, n in zip(raw, sizes)]
        out = _bicubic(flat, coords, sizes, padding_mode, align_corners)
    else:
        coords = [_source(c, n, padding_mode, align_corners) for c, n in zip(raw, sizes)]
        sample = _linear if mode == "bilinear" else _nearest
        out = sample(flat, coords, sizes)
    return out.reshape(n_batch, channels, *out_spatial)
