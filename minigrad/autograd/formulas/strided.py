"""Formula helpers for the strided views and the *_scatter ops (rules in __init__)."""
from minigrad import _tensor  # a module: read at call time (import cycle)
from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import ops_for
from minigrad.autograd.formulas.linalg import vector_norm_backward
from minigrad.kernels.strided import slice_key, storage_indices

__all__ = ["slice_index", "outside_strided", "renorm_backward", "renorm_jvp", "times_power_of_two"]


def slice_index(shape, dim, start, end, step):
    """The key ``slice_scatter`` writes through (for getitem on its gradient)."""
    return slice_key(shape, dim, start, end, step)


def outside_strided(shape, layout, size, stride, offset, like):
    """A constant bool array of ``shape``: False at the elements of a tensor laid out with
    strides ``layout`` that the as_strided geometry ``(size, stride, offset)`` covers
    (a condition for ``where``), on the device of ``like`` (the gradient it masks)."""
    like = getattr(like, "_data", like)
    xp = namespace_of(like)
    covered = xp.zeros(int(storage_indices(shape, layout, 0).max(initial=-1)) + 1, dtype=bool)
    written = storage_indices(size, stride, offset).ravel()
    covered[xp.asarray(written[written < covered.size])] = True
    return ~covered[xp.asarray(storage_indices(shape, layout, 0))]


def _renorm_parts(x, p, dim):
    """The dims reduced by ``renorm`` and each slice's norm (kept dims)."""
    F = ops_for(x)
    dims = [d for d in range(x.ndim) if d != dim % x.ndim]
    return dims, F.linalg_vector_norm(x, p, dims, True)


def renorm_backward(grad, x, p, dim, maxnorm):
    """PyTorch's renorm_backward: where a slice was scaled by maxnorm / (norm + 1e-7),
    that factor times ``grad`` less the factor's own change through the norm."""
    F = ops_for(grad)
    dims, norm = _renorm_parts(x, p, dim)
    through_norm = vector_norm_backward(F.sum(x * grad, dims, True), x, norm, p, dims, True)
    inverse = 1.0 / (norm + 1e-7)
    return F.where(norm > maxnorm, inverse * maxnorm * grad - (maxnorm * inverse * inverse)
                   * through_norm, grad)


def renorm_jvp(x_t, x, p, dim, maxnorm):
    """renorm's forward derivative (the transpose of renorm_backward)."""
    F = ops_for(x_t)
    dims, norm = _renorm_parts(x, p, dim)
    norm_t = F.sum(x_t * vector_norm_backward(F.ones_like(norm), x, norm, p, dims, True), dims,
                   True)
    inverse = 1.0 / (norm + 1e-7)
    return F.where(norm > maxnorm, inverse * maxnorm * x_t - (maxnorm * inverse * inverse)
                   * norm_t * x, x_t)


def times_power_of_two(x, exponent):
    """``x * 2 ** exponent`` in ``x``'s dtype, for an integer ``exponent`` (frexp's
    exponent is int32, whose 2 ** e numpy would make float64)."""
    if isinstance(x, _tensor.Tensor):
        return x * ops_for(x).exp2(exponent)  # an int32 Tensor's exp2 is float32
    return x * namespace_of(x).exp2(exponent).astype(x.dtype)
