"""Formula helpers for the nn ops (see formulas/__init__.py for the rules).

Masks (which side of a kink an element is on) are constants: they are computed from
the values with numpy and carry no gradient, exactly like PyTorch's backward kernels.
Everything that depends on an input smoothly goes through ``F`` so that second
order works.
"""
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad import _tensor  # a module: read at call time (import cycle)
from minigrad.autograd.formulas.core import (_plain_matrices, array_of, ops_for,  # noqa: F401
                                             values_of, zeros_like)
from minigrad.kernels.core import open_grid, softmax_array
from minigrad.kernels.nn import (GELU_TANH_K, SELU_ALPHA, SELU_SCALE, as_shape, class_dim,
                                 class_weights, index_targets, is_plain_class_rows,
                                 rms_norm_eps)

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _values(x):
    """The array of values of an array or Tensor, read in Python for a mask (no graph;
    ``values_of``: a graph break under minigrad.compile)."""
    data = values_of(x)
    return data if isinstance(data, np.ndarray) else namespace_of(data).asarray(data)


def _mask(x, condition):
    """``condition`` (a boolean array) as 0/1 in ``x``'s float dtype: a constant."""
    return condition.astype(array_of(x).dtype)


# ------------------------------------------------------------------ activations
def cast_back(grad, dtype):
    """A gradient in its input's dtype (ops with a ``dtype=`` argument compute in another)."""
    return grad if grad.dtype == dtype else ops_for(grad)._to_copy(grad, dtype)


def leaky_relu_slope(x, negative_slope):
    """1 where x > 0, else ``negative_slope`` (at 0 too, as PyTorch)."""
    values = _values(x)
    return namespace_of(values).where(values > 0, 1.0, negative_slope).astype(values.dtype)


def elu_slope(x, alpha, scale):
    """d elu/dx: ``scale`` for x > 0, ``scale * alpha * exp(x)`` for x <= 0 (so alpha at 0)."""
    F = ops_for(x)
    negative = F.exp(F.clamp(x, None, 0.0)) * (alpha * scale)
    return F.where(_values(x) > 0, scale, negative)


def selu_slope(x):
    return elu_slope(x, SELU_ALPHA, SELU_SCALE)


def normal_pdf(x):
    F = ops_for(x)
    return F.exp(x * x * -0.5) * _INV_SQRT_2PI


def gelu_derivative(x, approximate):
    F = ops_for(x)
    if approximate == "tanh":
        c = 0.044715
        t = F.tanh((x + x * x * x * c) * GELU_TANH_K)
        return (t + 1) * 0.5 + x * (1 - t * t) * (x * x * (3 * c) + 1) * (0.5 * GELU_TANH_K)
    return F._normal_cdf(x) + x * normal_pdf(x)


def silu_derivative(x):
    F = ops_for(x)
    s = F.sigmoid(x)
    return s * (x * (1 - s) + 1)


def mish_derivative(x):
    F = ops_for(x)
    t = F.tanh(F.softplus(x, 1.0, 20.0))
    return t + x * F.sigmoid(x) * (1 - t * t)


def softplus_slope(x, beta, threshold):
    """sigmoid(beta x), or exactly 1 where softplus is linear (beta x > threshold)."""
    F = ops_for(x)
    return F.where(_values(x) * beta > threshold, 1.0, F.sigmoid(x * beta))


def hardtanh_mask(x, min_val, max_val):
    """1 strictly inside (min_val, max_val): 0 at the bounds, as PyTorch's hardtanh_backward."""
    v = _values(x)
    return _mask(x, (v > min_val) & (v < max_val))


def hardsigmoid_slope(x):
    v = _values(x)
    return _mask(x, (v > -3) & (v < 3)) / 6


def hardswish_slope(x):
    """0 up to -3, x/3 + 1/2 strictly inside (-3, 3), 1 from 3 on (PyTorch's bounds)."""
    F = ops_for(x)
    v = _values(x)
    inside = F.where(v < 3, x / 3 + 0.5, 1.0)
    return F.where(v <= -3, 0.0, inside)


# ------------------------------------------------------------------ linear
def linear_input_grad(grad, weight):
    """d(input @ weight.T)/d(input): grad @ weight, as one 2-D matmul for batched grads."""
    if _plain_matrices(grad, weight):
        return namespace_of(grad).matmul(grad, weight)  # (the common case, in one call)
    F = ops_for(grad)
    if grad.ndim <= 2:
        return F.matmul(grad, weight)
    rows = F.matmul(F.reshape(grad, (-1, weight.shape[0])), weight)
    return F.reshape(rows, tuple(grad.shape[:-1]) + (weight.shape[1],))


def linear_weight_grad(grad, input, weight_shape):
    """d(input @ weight.T)/d(weight): grad.T @ input over all batch dims."""
    if _plain_matrices(grad, input):
        return namespace_of(grad).matmul(grad.T, input)  # (the common case, in one call)
    F = ops_for(grad)
    out_features, in_features = weight_shape
    g2 = F.reshape(grad, (-1, out_features))
    x2 = F.reshape(input, (-1, in_features))
    return F.matmul(F.transpose(g2, 0, 1), x2)


# ------------------------------------------------------------------ normalization
def trailing_dims(ndim, normalized_shape):
    k = len(as_shape(normalized_shape))
    return tuple(range(ndim - k, ndim))


def normalized_and_rstd(x, dims, eps):
    """((x - mean) * rstd, rstd) over ``dims``, differentiably."""
    F = ops_for(x)
    centered = x - F.mean(x, dims, True)
    rstd = 1 / F.sqrt(F.mean(centered * centered, dims, True) + eps)
    return centered * rstd, rstd


def normalize_backward(g, x, dims, eps):
    """Gradient of ``(x - mean) / sqrt(var + eps)`` over ``dims`` given the output grad ``g``."""
    F = ops_for(g)
    xhat, rstd = normalized_and_rstd(x, dims, eps)
    return rstd * (g - F.mean(g, dims, True) - xhat * F.mean(g * xhat, dims, True))


def layer_norm_input_grad(grad, input, normalized_shape, weight, eps):
    g = grad if weight is None else grad * weight
    return normalize_backward(g, input, trailing_dims(input.ndim, normalized_shape), eps)


def layer_norm_weight_grad(grad, input, normalized_shape, eps):
    F = ops_for(grad)
    xhat, _ = normalized_and_rstd(input, trailing_dims(input.ndim, normalized_shape), eps)
    return F.sum_to(grad * xhat, as_shape(normalized_shape))


def rms_norm_input_grad(grad, input, normalized_shape, weight, eps):
    """d(x * r)/dx with r = 1 / sqrt(mean(x^2) + eps): g r - x r^3 mean(g x)."""
    F = ops_for(grad)
    dims = trailing_dims(input.ndim, normalized_shape)
    g = grad if weight is None else grad * weight
    r = 1 / F.sqrt(F.mean(input * input, dims, True) + rms_norm_eps(eps, input.dtype))
    return g * r - input * (r * r * r) * F.mean(g * input, dims, True)


def rms_norm_weight_grad(grad, input, normalized_shape, eps):
    F = ops_for(grad)
    dims = trailing_dims(input.ndim, normalized_shape)
    r = 1 / F.sqrt(F.mean(input * input, dims, True) + rms_norm_eps(eps, input.dtype))
    return F.sum_to(grad * input * r, as_shape(normalized_shape))


def _per_channel(v, ndim):
    F = ops_for(v)
    return F.reshape(v, (1, -1) + (1,) * (ndim - 2))


def channel_sum(x):
    """Sum over every dim but the channel dim 1 (what a per-channel parameter gets)."""
    return ops_for(x).sum(x, (0,) + tuple(range(2, x.ndim)))


def batch_norm_input_grad(grad, input, weight, eps):
    g = grad if weight is None else grad * _per_channel(weight, input.ndim)
    return normalize_backward(g, input, (0,) + tuple(range(2, input.ndim)), eps)


def batch_norm_weight_grad(grad, input, eps):
    xhat, _ = normalized_and_rstd(input, (0,) + tuple(range(2, input.ndim)), eps)
    return channel_sum(grad * xhat)


def group_norm_input_grad(grad, input, num_groups, weight, eps):
    F = ops_for(grad)
    g = grad if weight is None else grad * _per_channel(weight, input.ndim)
    grouped = (input.shape[0], num_groups, -1)
    dx = normalize_backward(F.reshape(g, grouped), F.reshape(input, grouped), (2,), eps)
    return F.reshape(dx, input.shape)


def group_norm_weight_grad(grad, input, num_groups, eps):
    F = ops_for(grad)
    xhat, _ = normalized_and_rstd(F.reshape(input, (input.shape[0], num_groups, -1)), (2,), eps)
    return channel_sum(grad * F.reshape(xhat, input.shape))


# ------------------------------------------------------------------ cross entropy
def _is_probabilities(target):
    return array_of(target).dtype.kind == "f"


def _class_view(input, values):
    """A per-class vector shaped to broadcast along ``input``'s class dim."""
    shape = [1] * input.ndim
    shape[class_dim(input.ndim)] = -1
    return values.reshape(shape)


def _per_sample_grad(grad, reduction, denominator, shape):
    """The gradient reaching each sample's loss from the (reduced) loss."""
    F = ops_for(grad)
    if reduction == "none":
        return grad
    g = F.expand(grad, shape)
    return g if reduction == "sum" else g / denominator


def _index_sample_grad(grad, reduction, denominator, keep):
    """``_per_sample_grad`` for class indices: an ignored sample gets none, even where
    'mean' divides by a zero total weight (all ignored: PyTorch's gradient is 0, not nan)."""
    if reduction != "mean":
        return _per_sample_grad(grad, reduction, denominator, keep.shape)
    xp = namespace_of(keep)
    with np.errstate(divide="ignore"):
        scale = xp.where(keep, 1.0 / denominator, 0.0).astype(array_of(grad).dtype)
    return ops_for(grad).expand(grad, keep.shape) * scale


def _loss_shape(input):
    cdim = class_dim(input.ndim)
    return tuple(input.shape[:cdim]) + tuple(input.shape[cdim + 1:])


def cross_entropy_input_grad(grad, input, target, weight, ignore_index, reduction,
                             label_smoothing):
    """softmax(input) * sum(q) - q per sample, where the loss is -sum(q * log_softmax(input)).

    For class indices q is never built densely: its one-hot part is scattered with
    gather_backward, its label-smoothing part broadcasts a per-class vector.
    """
    if _all_arrays(grad, input, target) \
            and is_plain_class_rows(input, target, weight, ignore_index, label_smoothing):
        return _plain_rows_input_grad(grad, input, target, reduction)
    F = ops_for(grad)
    cdim = class_dim(input.ndim)
    n_classes = input.shape[cdim]
    if n_classes == 0:  # no classes, no gradient (the forward checked the targets)
        return zeros_like(input)
    dtype = array_of(input).dtype
    w = class_weights(n_classes, None if weight is None else _values(weight), dtype,
                      like=array_of(input))
    eps = max(label_smoothing, 0.0)  # PyTorch ignores a negative one
    if _is_probabilities(target):
        size = math.prod(input.shape)
        g = _per_sample_grad(grad, reduction, size / n_classes if size else 0, _loss_shape(input))
        q = target if not eps else target * (1 - eps) + eps / n_classes
        q = q if weight is None else q * _class_view(input, _weight_as(weight, input, w))
        return F.unsqueeze(g, cdim) * (F.softmax(input, cdim) * F.sum(q, cdim, True) - q)
    safe, per_sample, keep, denominator = index_targets(input.shape, _values(target), w,
                                                        ignore_index, dtype, check=False)
    g = _index_sample_grad(grad, reduction, denominator, keep)
    hit = per_sample * (1 - eps)                                 # q at the target class
    total = hit + keep * (w.sum() * eps / n_classes)             # sum of q over classes
    out = F.softmax(input, cdim) * F.unsqueeze(g * total, cdim)
    xp = namespace_of(safe)
    out = out - F.gather_backward(F.unsqueeze(g * hit, cdim), cdim, xp.expand_dims(safe, cdim),
                                  input.shape)
    if eps:
        spread = xp.expand_dims(keep, cdim) * _class_view(input, w) * (eps / n_classes)
        out = out - F.unsqueeze(g, cdim) * spread
    return out


def nll_loss_input_grad(grad, input, target, weight, ignore_index, reduction):
    """-weight[target] at each sample's target class, times the sample's gradient (the
    input's values do not enter: a constant but for ``grad``)."""
    F = ops_for(grad)
    cdim = class_dim(input.ndim)
    if input.shape[cdim] == 0:  # no classes, no gradient (the forward checked the targets)
        return zeros_like(input)
    safe, per_sample, keep, denominator = index_targets(
        input.shape, _values(target), None if weight is None else _values(weight),
        ignore_index, array_of(input).dtype, check=False)  # (the forward checked them)
    g = _index_sample_grad(grad, reduction, denominator, keep)
    xp = namespace_of(safe)
    picked = F.where(keep, g * -per_sample, 0.0)   # (+0.0 elsewhere and where ignored, as torch)
    return F.gather_backward(F.unsqueeze(picked, cdim), cdim, xp.expand_dims(safe, cdim),
                             input.shape)


def _all_arrays(*values):
    """No Tensor among ``values``: a plain backward (no graph to record)."""
    return not any(isinstance(v, _tensor.Tensor) for v in values)


def _plain_rows_input_grad(grad, input, target, reduction):
    """The gradient above for arrays in the common case (``is_plain_class_rows``): each
    row's gradient times softmax(input) minus one at its target, with the general path's
    values."""
    if reduction == "none":
        g = grad.reshape(-1, 1)
    else:
        g = grad / input.shape[0] if reduction == "mean" else grad
    out = softmax_array(input, 1) * g
    rows = open_grid(namespace_of(input), target.shape)[0]
    out[rows, target] -= g if g.ndim == 0 else g[:, 0]
    return out


def _weight_as(weight, input, values):
    """The class weights for a class-probability gradient: the Tensor itself where the
    gradient records a graph (its second order reaches the weights), else ``values``."""
    Tensor = _tensor.Tensor
    if isinstance(weight, Tensor) and isinstance(input, Tensor) and weight.dtype == input.dtype:
        return weight
    return values


def _weight_grad_elements(grad, input, target, reduction, label_smoothing):
    """d loss / d weight[c] at each element, for class-probability targets: -g q log p."""
    F = ops_for(grad)
    cdim = class_dim(input.ndim)
    n_classes = input.shape[cdim]
    size = math.prod(input.shape)
    g = _per_sample_grad(grad, reduction, size / n_classes if size else 0, _loss_shape(input))
    eps = max(label_smoothing, 0.0)  # PyTorch ignores a negative one
    q = target * (1 - eps) + eps / n_classes if eps and n_classes else target
    return -(F.unsqueeze(g, cdim) * q * F.log_softmax(input, cdim))


def cross_entropy_weight_grad(grad, input, target, reduction, label_smoothing):
    """The class weights' gradient: each class's elements summed over the samples.  None
    (no gradient) for class indices, whose weights PyTorch does not differentiate
    (nn.functional.cross_entropy refuses a weight that requires grad there)."""
    if not _is_probabilities(target):
        return None
    elements = _weight_grad_elements(grad, input, target, reduction, label_smoothing)
    cdim = class_dim(input.ndim)
    dims = tuple(d for d in range(input.ndim) if d != cdim)
    return ops_for(elements).sum(elements, dims) if dims else elements


def cross_entropy_weight_jvp(weight_t, input, target, reduction, label_smoothing, result):
    """The loss's tangent from the class weights' tangent ``weight_t`` (none for class
    indices: see cross_entropy_weight_grad)."""
    if not _is_probabilities(target):
        return zeros_like(result)
    elements = _weight_grad_elements(ops_for(input).ones_like(result), input, target,
                                     reduction, label_smoothing)
    tangent = elements * _class_view(input, weight_t)
    F = ops_for(tangent)
    return F.sum(tangent) if result.ndim == 0 else F.sum(tangent, class_dim(input.ndim))


def cross_entropy_target_grad(grad, input, target, weight, reduction, label_smoothing):
    """Class-probability targets only (class indices are not differentiable)."""
    F = ops_for(grad)
    cdim = class_dim(input.ndim)
    n_classes = input.shape[cdim]
    size = math.prod(input.shape)
    g = _per_sample_grad(grad, reduction, size / n_classes if size else 0, _loss_shape(input))
    out = F.unsqueeze(g, cdim) * F.log_softmax(input, cdim) * (max(label_smoothing, 0.0) - 1)
    if weight is not None:
        out = out * _class_view(input, _weight_as(weight, input, _values(weight)))
    return out
