"""numpy functions whose meaning minigrad builds from its own ops, when a Tensor reaches them
through numpy's dispatch (``np.gradient(x)``, ``np.pad(x, 2, mode="reflect")``, ...).

These follow numpy's rules, not PyTorch's (``np.dot`` on n-d arrays is not ``matmul``;
``np.cross`` works on the last axis), and are differentiable because they are written in
minigrad ops: their gradients come from the registry's formulas of those ops.
"""
import numpy as np

from minigrad._array import namespace_of, to_host
from minigrad.kernels.core import on_device_of

__all__ = ["NUMPY_COMPOSITES"]


def _mg():
    import minigrad  # (import cycle: minigrad imports numpy_interop, which imports this)
    return minigrad


def _axis(axis, ndim):
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % max(ndim, 1)


def gradient(f, *varargs, axis=None, edge_order=1):
    """``np.gradient``: second-order central differences inside, one-sided (first or second
    order) at the edges; spacings are scalars or coordinate arrays, as numpy takes them."""
    mg = _mg()
    axes = tuple(range(f.ndim)) if axis is None else (
        (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis))
    axes = tuple(_axis(a, f.ndim) for a in axes)
    spacings = _spacings(varargs, axes, f.shape)
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    out = [_gradient_along(mg, f, a, h, edge_order) for a, h in zip(axes, spacings)]
    return out[0] if len(out) == 1 else tuple(out)


def _spacings(varargs, axes, shape):
    if not varargs:
        varargs = (1.0,)
    if len(varargs) == 1 and len(axes) > 1:
        varargs = varargs * len(axes)
    if len(varargs) != len(axes):
        raise TypeError("invalid number of arguments")
    out = []
    for h, a in zip(varargs, axes):
        h = np.asarray(_on_host(h), dtype=np.float64)  # spacings: host-side coefficients
        if h.ndim == 0:
            out.append(np.full(shape[a] - 1, float(h)))
        elif len(h) != shape[a]:
            raise ValueError("when 1d, distances must match the length of the corresponding "
                             "dimension")
        else:
            out.append(np.diff(h))
    return out


def _gradient_along(mg, f, axis, dx, edge_order):
    n = f.shape[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")

    def part(start, length):
        return mg.narrow(f, axis, start, length)

    def along(values):  # coefficients broadcast along `axis`
        shape = [1] * f.ndim
        shape[axis] = -1
        return on_device_of(f._data, np.asarray(values, dtype=f._data.dtype).reshape(shape))

    d1, d2 = dx[:-1], dx[1:]
    inner = (part(0, n - 2) * along(-d2 / (d1 * (d1 + d2))) + part(1, n - 2) * along((d2 - d1) / (d1 * d2))
             + part(2, n - 2) * along(d1 / (d2 * (d1 + d2))))
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        a, b = dx[0], dx[1]
        first = (part(0, 1) * (-(2 * a + b) / (a * (a + b))) + part(1, 1) * ((a + b) / (a * b))
                 + part(2, 1) * (-a / (b * (a + b))))
        a, b = dx[-2], dx[-1]
        last = (part(n - 3, 1) * (b / (a * (a + b))) + part(n - 2, 1) * (-(a + b) / (a * b))
                + part(n - 1, 1) * ((2 * b + a) / (b * (a + b))))
    return mg.cat([first, inner, last], axis)


_PAD_INDEX = {
    "edge": lambda i, n: np.clip(i, 0, n - 1),
    "wrap": lambda i, n: i % n,
    "reflect": lambda i, n: _fold(i, n, 2 * (n - 1), lambda j: 2 * (n - 1) - j) if n > 1 else 0 * i,
    "symmetric": lambda i, n: _fold(i, n, 2 * n, lambda j: 2 * n - 1 - j),
}


def _fold(i, n, period, mirror):
    j = i % period
    return np.where(j >= n, mirror(j), j)


def pad(array, pad_width, mode="constant", **kwargs):
    """``np.pad`` with modes constant, edge, wrap, reflect and symmetric: each padded element
    is a copy of an input element (or the constant), picked with ``index_select``."""
    mg = _mg()
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    if mode not in ("constant", *_PAD_INDEX):
        raise ValueError(f"np.pad on a minigrad Tensor supports modes constant, edge, wrap, "
                         f"reflect and symmetric; got {mode!r}")
    unknown = set(kwargs) - ({"constant_values"} if mode == "constant" else set())
    if unknown:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {sorted(unknown)}")
    values = np.broadcast_to(np.asarray(kwargs.get("constant_values", 0)), (array.ndim, 2))
    out = array
    for axis, (before, after) in enumerate(widths):
        n = out.shape[axis]
        if mode == "constant":
            pieces = []
            for width, value in ((before, values[axis][0]), (0, None), (after, values[axis][1])):
                if value is None:
                    pieces.append(out)
                elif width:
                    shape = list(out.shape)
                    shape[axis] = width
                    pieces.append(mg.full(shape, float(value), dtype=out.dtype, device=out.device))
            out = mg.cat(pieces, axis) if len(pieces) > 1 else out
        elif before or after:
            if n == 0:
                raise ValueError(f"can't extend empty axis {axis} using modes other than "
                                 f"'constant' or 'empty'")
            index = _PAD_INDEX[mode](np.arange(-before, n + after), n)
            out = mg.index_select(out, axis, mg.tensor(np.asarray(index, dtype=np.int64),
                                                       device=out.device))
    return out


def split(ary, indices_or_sections, axis=0):
    """``np.split``: like ``array_split``, but an int must divide the axis evenly."""
    if isinstance(indices_or_sections, (int, np.integer)) and (
            indices_or_sections <= 0 or ary.shape[axis] % indices_or_sections):
        raise ValueError("array split does not result in an equal division")
    return _mg().tensor_split(ary, indices_or_sections, axis)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """``np.diff``: numpy broadcasts a scalar ``prepend``/``append`` along the other axes."""
    mg = _mg()
    axis = _axis(axis, a.ndim)

    def edge(value):
        if value is np._NoValue:
            return None
        value = _as_tensor(value)
        if value.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            value = mg.expand(value, shape)
        return value
    return mg.diff(a, n, axis, edge(prepend), edge(append))


def rot90(m, k=1, axes=(0, 1)):
    return _mg().rot90(m, k, tuple(axes))


def rollaxis(a, axis, start=0):
    """``np.rollaxis``: move ``axis`` so that it lies before position ``start``."""
    n = a.ndim
    axis = _axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} "
                                      f"was passed in")
    if axis < start:
        start -= 1
    return a if axis == start else _mg().movedim(a, axis, start)


def repeat(a, repeats, axis=None):
    """``np.repeat``: each element ``repeats`` times along ``axis`` (flattened when None)."""
    mg = _mg()
    if not isinstance(repeats, (int, np.integer)):
        repeats = mg.tensor(np.asarray(_on_host(repeats), dtype=np.int64), device=a.device)
    return mg.repeat_interleave(a, repeats, dim=axis)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``np.cross`` of 3-vectors along the last axis (or ``axis``), broadcasting the rest."""
    mg = _mg()
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = mg.movedim(_as_tensor(a), axisa, -1), mg.movedim(_as_tensor(b), axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError("minigrad's np.cross takes 3-vectors (2-vectors are deprecated in "
                         "numpy 2); incompatible dimensions for cross product")
    return mg.movedim(mg.linalg.cross(a, b, dim=-1), -1, axisc)


def dot(a, b, out=None):
    """``np.dot``: products for 0-d, inner for 1-d, matmul for 2-d, and for n-d the sum over
    a's last axis and b's second-to-last (not matmul's batching)."""
    mg = _mg()
    if out is not None:
        raise TypeError("np.dot(..., out=...) cannot write a differentiable result into an array")
    a, b = _as_tensor(a), _as_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim == 1 or (a.ndim <= 2 and b.ndim <= 2):
        return mg.matmul(a, b)
    return mg.tensordot(a, b, dims=([a.ndim - 1], [b.ndim - 2]))


def _as_tensor(value):
    mg = _mg()
    if isinstance(value, mg.Tensor):
        return value
    return mg.tensor(value if namespace_of(value) is not np else np.asarray(value))


def _on_host(value):
    """The values of a Tensor, an array or a list, as host data (small: spacings, repeats)."""
    value = getattr(value, "_data", value)
    return to_host(value) if namespace_of(value) is not np else value


NUMPY_COMPOSITES = {"gradient": gradient, "pad": pad, "split": split, "diff": diff, "rot90": rot90, "rollaxis": rollaxis, "repeat": repeat,
                    "cross": cross, "dot": dot}
