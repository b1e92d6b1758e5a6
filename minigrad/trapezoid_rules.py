"""``trapz`` (torch's older name of ``trapezoid``) and ``cumulative_trapezoid``: the
running trapezoid-rule integral, composed of differentiable ops."""
from minigrad._tensor import Tensor

__all__ = ["cumulative_trapezoid", "trapz"]


def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid(y, x, dim=dim)`` or ``trapezoid(y, dx=dx, dim=dim)``."""
    from minigrad import trapezoid   # (generated; bound after this module's import)
    if x is not None:
        return trapezoid(y, x, dim=dim)
    return trapezoid(y, dx=1 if dx is None else dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule's integral of ``y`` along ``dim`` up to each point after the
    first: one element fewer than ``y`` along ``dim``.  ``x`` gives the sample points
    (1-D, or ``y``'s shape); ``dx`` a constant spacing (1 by default)."""
    if y.dtype.is_floating_point is False and y._data.dtype.kind == "b":
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is "
                           "not supported")
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of "
                        "arguments: give x or dx, not both")
    dim = dim + y.dim() if dim < 0 else dim
    length = y.shape[dim]
    if length == 0:
        return y.narrow(dim, 0, 0) * 1.0
    averages = (y.narrow(dim, 1, length - 1) + y.narrow(dim, 0, length - 1)) / 2
    if x is None:
        return (averages * (1 if dx is None else dx)).cumsum(dim)
    return (averages * _spacing(x, y, dim)).cumsum(dim)


def _spacing(x, y, dim):
    """``x``'s differences along ``dim`` (a 1-D ``x`` lies along ``dim``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"cumulative_trapezoid(): argument 'x' must be Tensor, not "
                        f"{type(x).__name__}")
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each "
                               "sample point")
        steps = x[1:] - x[:-1]
        return steps.reshape((-1,) + (1,) * (y.dim() - 1 - dim))
    length = x.shape[dim]
    return x.narrow(dim, 1, length - 1) - x.narrow(dim, 0, length - 1)
