"""``torch.histogram`` / ``Tensor.histogram``: counts (or summed weights) of the input's
elements in bins, and the bins' edges.  Not differentiable, as in PyTorch."""
import math
import numbers
from collections import namedtuple

import numpy as np

from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad._value_reads import reads_values
from minigrad.kernels.core import not_implemented_for, scalar_type_name

__all__ = ["histogram"]

histogram_result = namedtuple("histogram", ["hist", "bin_edges"])

_HISTOGRAMDD = "torch.histogramdd: "


def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """The histogram of ``input``'s elements: ``bins`` equal bins over ``range`` (default:
    the elements' min to max), or the bins between the edges of a 1-d tensor ``bins``.
    Elements outside are left out; the last bin includes its right edge.  ``weight`` (of
    ``input``'s shape) counts each element with its weight; ``density`` normalizes the
    histogram to integrate to 1."""
    data = input._data
    if data.dtype.kind != "f":
        raise not_implemented_for("histogramdd", data.dtype)
    xp = namespace_of(data)
    values = data.reshape(-1)
    weights = _weights(input, weight)
    reads_values("histogram counts values")
    if isinstance(bins, Tensor):
        edges = _edge_tensor(bins, data.dtype)
    else:
        edges = _equal_edges(xp, values, bins, range, data.dtype)
    hist = _count(xp, values, weights, edges)
    if density:
        hist = hist / (hist.sum() * xp.diff(edges))
    return histogram_result(_wrap(hist.astype(data.dtype)), _wrap(edges))


def _weights(input, weight):
    if weight is None:
        return None
    if tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(
            _HISTOGRAMDD + "if weight tensor is provided it should have the same shape as the "
            "input tensor excluding its innermost dimension, but got input with shape "
            f"{[input._data.size, 1]} and weight with shape {list(weight.shape)}")
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(
            _HISTOGRAMDD + "if weight tensor is provided, input tensor and weight tensor should "
            f"have the same dtype, but got input({_c_name(input)}), and weight({_c_name(weight)})")
    return weight._data.reshape(-1)


def _c_name(tensor):
    return {"Float": "float", "Double": "double", "Half": "c10::Half"}.get(
        scalar_type_name(tensor._data.dtype), scalar_type_name(tensor._data.dtype))


def _edge_tensor(bins, dtype):
    if bins._data.ndim != 1:
        raise RuntimeError(_HISTOGRAMDD + "bins tensor should have one dimension, but got "
                           f"{bins._data.ndim} dimensions in the bins tensor for dimension 0")
    return bins._data.astype(dtype, copy=True)


def _equal_edges(xp, values, bins, range, dtype):  # noqa: A002
    if not isinstance(bins, numbers.Integral) or bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if range is not None:
        low, high = float(range[0]), float(range[1])
    elif values.size:
        low, high = float(values.min()), float(values.max())
    else:  # no elements: PyTorch's bins span [0, 1]
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(_HISTOGRAMDD + f"min should not exceed max, but got min {_num(low)} "
                           f"max {_num(high)} for dimension 0")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(_HISTOGRAMDD + f"dimension 0's range [{_num(low)}, {_num(high)}] is "
                           "not finite")
    if low == high:  # one value: a bin of width 1 around it, as PyTorch
        low, high = low - 0.5, high + 0.5
    return xp.linspace(low, high, int(bins) + 1).astype(dtype)


def _num(value):
    """A number as C++ prints it in PyTorch's messages (3, not 3.0)."""
    return int(value) if math.isfinite(value) and value == int(value) else value


def _count(xp, values, weights, edges):
    """Each element's bin by binary search over the edges (the last bin includes its
    right edge), then counts or weight sums per bin."""
    nbins = max(edges.size - 1, 0)
    if nbins == 0 or values.size == 0:
        return xp.zeros(nbins, dtype=values.dtype)
    inside = (values >= edges[0]) & (values <= edges[-1])
    which = xp.searchsorted(edges, values, side="right") - 1
    which = xp.minimum(which, nbins - 1)[inside]
    counted = None if weights is None else weights[inside]
    return xp.bincount(which, weights=counted, minlength=nbins)[:nbins].astype(values.dtype)


Tensor.histogram = histogram
