"""``torch.gradient``: second-order central differences inside, first- or second-order
one-sided differences at the edges (numpy.gradient's formulas), with a uniform spacing
or sample coordinates per dim.  Composed of differentiable ops."""
import numbers

from minigrad._dtypes import get_default_dtype
from minigrad._tensor import Tensor
from minigrad.functional import cat

__all__ = ["gradient"]


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """A tuple: the estimated derivative of ``input`` along each dim of ``dim`` (all dims
    by default).  ``spacing`` is a number, a list of numbers (one per dim), or a list of
    1-D coordinate tensors (one per dim)."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    spacings = _spacings(input, spacing, dims, dim is None)
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    if input._data.dtype.kind in "biu":
        input = input.to(get_default_dtype())
    return tuple(_along(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    return [d + input.dim() if d < 0 else d for d in dims]


def _spacings(input, spacing, dims, all_dims):
    if isinstance(spacing, (numbers.Number, Tensor)) and not (
            isinstance(spacing, Tensor) and spacing.dim() == 1):
        return [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        given = (f"'self.dim() = {input.dim()}', since dim argument was not given"
                 if all_dims else f"'dim.size() = {len(dims)}'")
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or "
                           f"a list of length equal to {given}, but got a list of length "
                           f"{len(spacing)}")
    return spacing


def _along(f, dim, h, edge_order):
    """The derivative of ``f`` along ``dim``, ``h`` a step or a 1-D coordinate tensor."""
    n = f.shape[dim]

    def part(start, length):
        return f.narrow(dim, start, length)

    if isinstance(h, Tensor) and h.dim() == 1:
        shape = (-1,) + (1,) * (f.dim() - 1 - dim)
        steps = (h[1:] - h[:-1]).to(f.dtype)
        d1, d2 = steps[:-1].reshape(shape), steps[1:].reshape(shape)
        inner = (-d2 / (d1 * (d1 + d2)) * part(0, n - 2) + (d2 - d1) / (d1 * d2) * part(1, n - 2)
                 + d1 / (d2 * (d1 + d2)) * part(2, n - 2))
        first, last = _edges_uneven(part, n, steps, edge_order)
    else:
        inner = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        first, last = _edges_even(part, n, h, edge_order)
    return cat([first, inner, last], dim)


def _edges_even(part, n, h, edge_order):
    if edge_order == 1:
        return (part(1, 1) - part(0, 1)) / h, (part(n - 1, 1) - part(n - 2, 1)) / h
    first = (-1.5 * part(0, 1) + 2 * part(1, 1) - 0.5 * part(2, 1)) / h
    last = (0.5 * part(n - 3, 1) - 2 * part(n - 2, 1) + 1.5 * part(n - 1, 1)) / h
    return first, last


def _edges_uneven(part, n, steps, edge_order):
    if edge_order == 1:
        return ((part(1, 1) - part(0, 1)) / steps[0], (part(n - 1, 1) - part(n - 2, 1))
                / steps[-1])
    d1, d2 = steps[0], steps[1]
    first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * part(0, 1) + (d1 + d2) / (d1 * d2) * part(1, 1)
             - d1 / (d2 * (d1 + d2)) * part(2, 1))
    d1, d2 = steps[-2], steps[-1]
    last = (d2 / (d1 * (d1 + d2)) * part(n - 3, 1) - (d2 + d1) / (d1 * d2) * part(n - 2, 1)
            + (2 * d2 + d1) / (d2 * (d1 + d2)) * part(n - 1, 1))
    return first, last
