"""minigrad.nn.functional: torch.nn.functional's names, arguments and defaults.

Most ops are derivatives.yaml entries (exported here by codegen).  This file adds
the thin wrappers torch has in Python: the ``inplace=`` flags, dropout's random
mask, batch_norm's running statistics, the legacy ``size_average``/``reduce``
arguments, and the losses and distances that are short compositions of
differentiable ops.

>>> import minigrad as mg, minigrad.nn.functional as F
>>> logits = mg.randn(4, 3, requires_grad=True)
>>> F.cross_entropy(logits, mg.tensor([0, 2, 1, 2]), label_smoothing=0.1).backward()
"""
import math
import warnings

import numpy as np

from minigrad._generated.api_nn_functional import *  # noqa: F401,F403
from minigrad._aliases import infer_size
from minigrad._generated import functions as _F
from minigrad.autograd.function import Function as _Function
from minigrad.autograd.grad_mode import is_grad_enabled, no_grad
from minigrad.random import numpy_rng
from minigrad.kernels.core import on_device_of
from minigrad.kernels.nn import channel_shape as _channel_shape
from minigrad.kernels.nn import check_reduction as _check_reduction
from minigrad.kernels.nn import check_norm_dtypes as _check_norm_dtypes
from minigrad.kernels.nn import index_targets as _index_targets
from minigrad.kernels.nn import one_hot_array as _one_hot_array
from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad._size import Size as _Size
from minigrad.creation import full as _full, full_like as _full_like, ones as _ones
from minigrad._value_reads import reads_values
from minigrad.autograd.inplace import apply_inplace
from minigrad.autograd.promotion import CATEGORY as _CATEGORY
from minigrad.autograd.promotion import promote_types, refuse_dtypes, refuse_result_dtype
from minigrad._dtypes import bool as _bool, get_default_dtype
from minigrad.kernels.core import cpp_type_name, scalar_type_name
from minigrad.functional import einsum as _einsum
from minigrad.nn._ctc import ctc_loss  # noqa: F401
from minigrad.nn._embedding_bag import embedding_bag  # noqa: F401
from minigrad.nn._grid_sample import affine_grid, grid_sample  # noqa: F401
from minigrad.nn._resampling import (interpolate, pixel_shuffle, pixel_unshuffle,  # noqa: F401
                                     upsample, upsample_bilinear, upsample_nearest)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else _wrap(_values(x))


def _values(x):
    """The array of a Tensor; a device array itself; other data as a numpy array."""
    return x._data if isinstance(x, Tensor) else namespace_of(x).asarray(x)


def _shape(x):
    data = x._data if isinstance(x, Tensor) else x
    return tuple(data.shape) if hasattr(data, "shape") else np.shape(data)


# ------------------------------------------------------------------ activations
def _maybe_inplace(op, input, inplace, *args, **kwargs):
    if inplace:
        return apply_inplace(input, op, *args, **kwargs)
    return op(input, *args, **kwargs)


def relu(input, inplace=False):
    """max(input, 0); the gradient at 0 is 0, as in PyTorch.

    >>> F.relu(mg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    if inplace:
        return apply_inplace(input, _F.relu)
    return _F.relu(input)  # (not through _maybe_inplace: a call less in every MLP layer)


def relu_(input):
    return relu(input, inplace=True)


def relu6(input, inplace=False):
    """min(max(input, 0), 6) (hardtanh between 0 and 6)."""
    return _maybe_inplace(_F.hardtanh, input, inplace, 0.0, 6.0)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input where input > 0, else input * negative_slope."""
    return _maybe_inplace(_F.leaky_relu, input, inplace, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    """input where input > 0, else alpha * (exp(input) - 1)."""
    return _maybe_inplace(_F.elu, input, inplace, alpha)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """scale * elu(input, alpha) with the self-normalizing constants."""
    return _maybe_inplace(_F.selu, input, inplace)


def silu(input, inplace=False):
    """input * sigmoid(input)."""
    return _maybe_inplace(_F.silu, input, inplace)


def mish(input, inplace=False):
    """input * tanh(softplus(input))."""
    return _maybe_inplace(_F.mish, input, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val]; the gradient is 0 at the bounds (as PyTorch)."""
    if min_val > max_val:
        raise ValueError("hardtanh: min_val cannot be greater than max_val")
    return _maybe_inplace(_F.hardtanh, input, inplace, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def hardsigmoid(input, inplace=False):
    """relu6(input + 3) / 6."""
    return _maybe_inplace(_F.hardsigmoid, input, inplace)


def hardswish(input, inplace=False):
    """input * relu6(input + 3) / 6."""
    return _maybe_inplace(_F.hardswish, input, inplace)


def sigmoid(input):
    """1 / (1 + exp(-input)) (also ``minigrad.sigmoid``)."""
    return _F.sigmoid(input)


def tanh(input):
    """tanh(input) (also ``minigrad.tanh``)."""
    return _F.tanh(input)


def softsign(input):
    """input / (1 + |input|)."""
    input = _as_tensor(input)
    return input / (_F.abs(input) + 1)


def tanhshrink(input):
    """input - tanh(input)."""
    return _as_tensor(input) - _F.tanh(input)


def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, else ``value`` (gradient 0 at the threshold)."""
    refuse_dtypes("bool", "threshold_cpu", input)
    def op(x):
        return _F.where(_as_tensor(x) > threshold, x, value)
    return _maybe_inplace(op, input, inplace)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    refuse_dtypes("integral", "elu_cpu", input)  # torch's celu is its elu kernel

    def op(x):
        x = _as_tensor(x)
        negative = (_F.exp(_F.clamp(x, None, 0.0) / alpha) - 1) * alpha
        return _F.where(x > 0, x, negative)
    return _maybe_inplace(op, input, inplace)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of ``input`` along ``dim``."""
    input = _as_tensor(input)
    refuse_dtypes("integral", "glu_cpu", input)
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim % input.ndim} "
                           f"is size {size}")
    lead = (slice(None),) * (dim % input.ndim)
    a = _F.getitem(input, lead + (slice(0, size // 2),))
    b = _F.getitem(input, lead + (slice(size // 2, size),))
    return a * _F.sigmoid(b)


def prelu(input, weight):
    """input where input > 0, else weight * input; ``weight`` has 1 or C (dim 1) entries."""
    input = _as_tensor(input)
    weight = _as_tensor(weight)
    refuse_dtypes("integral", "prelu_cpu", input)
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{scalar_type_name(input._data.dtype)} and "
                           f"{scalar_type_name(weight._data.dtype)}")
    if weight.numel() != 1 and input.ndim >= 2:
        weight = _F.reshape(weight, _channel_shape(input.ndim, -1))
    return _F.where(input > 0, input, weight * input)


def _softmax_dim(name, ndim, dim):
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) / sum(exp(input), dim), computed stably (in ``dtype`` if given).

    >>> F.softmax(mg.tensor([[1.0, 1.0]]), dim=1)
    tensor([[0.5, 0.5]])
    """
    return _F.softmax(input, _softmax_dim("softmax", len(_shape(input)), dim), dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(input, dim)), computed stably (one op, one formula)."""
    return _F.log_softmax(input, _softmax_dim("log_softmax", len(_shape(input)), dim), dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input, dim)."""
    return _F.softmax(-_as_tensor(input), _softmax_dim("softmin", len(_shape(input)), dim), dtype)


# ------------------------------------------------------------------ dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p).

    The mask comes from minigrad's generator (seed it with ``minigrad.manual_seed``);
    backward multiplies by the same mask.  With ``training=False`` or ``p`` 0 the input
    itself is returned (no draw), as PyTorch does.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    _refuse_float_result(input)
    mask = _random_mask(input, _shape(input), p)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return _maybe_inplace(_F._masked_scale, input, inplace, mask, scale)


_FLOAT_RESULT = "result type {floating} can't be cast to the desired output type {{dtype}}"


def _refuse_float_result(input):
    """Dropout scales by a float: PyTorch cannot write that into an integral tensor."""
    refuse_dtypes("integral", _FLOAT_RESULT.format(floating=scalar_type_name(get_default_dtype())),
                  input)


def _random_mask(input, shape, p):
    """True with probability 1 - p, on ``input``'s device.  Drawn from minigrad's generator on
    the host (so a seed gives the same mask on every device), then copied over.
    (minigrad.compile draws it anew on every call: compile/tracer.py.)"""
    return draw_mask(_values(input), shape, p)


def draw_mask(like, shape, p):
    """``_random_mask``'s draw, on the device of the array ``like``."""
    return on_device_of(like, numpy_rng().random(shape) < 1.0 - p)


def _feature_dropout(name, input, p, training, inplace, spatial):
    """Channel-wise dropout: one draw per (sample, channel), shared by its spatial dims."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    shape = _shape(input)
    if len(shape) not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but "
                           f"received a {len(shape)}D input ({list(shape)}). {name} drops whole "
                           f"channels of inputs with {spatial} spatial dim(s), a channel dim and "
                           "an optional batch dim; use dropout for elementwise dropout.")
    if not training or p == 0:
        return input
    _refuse_float_result(input)
    batched = len(shape) == spatial + 2
    if name == "dropout2d" and len(shape) == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "as PyTorch does; use dropout1d for that.", stacklevel=3)
        batched = True
    lead = 2 if batched else 1
    mask = _random_mask(input, shape[:lead] + (1,) * (len(shape) - lead), p)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return _maybe_inplace(_F._masked_scale, input, inplace, mask, scale)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability ``p``."""
    return _feature_dropout("dropout1d", input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs with probability ``p`` (3-D inputs are
    read as (N, C, L), as PyTorch does)."""
    return _feature_dropout("dropout2d", input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability ``p``."""
    return _feature_dropout("dropout3d", input, p, training, inplace, 3)


# ------------------------------------------------------------------ normalization
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    """Normalize each channel (dim 1) over the batch and every other dim.

    ``training=True`` uses the batch's statistics and, when given, updates
    ``running_mean`` and ``running_var`` in place (not recorded by autograd):
    ``running = (1 - momentum) * running + momentum * batch`` with the unbiased
    variance, as PyTorch.  ``training=False`` uses the running statistics.
    """
    shape = _shape(input)
    refuse_dtypes("integral", "batch_norm", input)
    if len(shape) < 2:
        raise ValueError(f"batch_norm: expected an input with at least 2 dims (N, C, *), "
                         f"got shape {list(shape)}")
    _check_batch_norm_parameters(input, running_mean, running_var, weight, bias)
    count = math.prod(shape) // shape[1] if shape[1] else 0
    if training:
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {list(shape)}")
        out = _F._batch_norm_training(input, weight, bias, eps)
        if running_mean is not None or running_var is not None:
            _update_running_stats(input, running_mean, running_var, momentum)
        return out
    if running_mean is None or running_var is None:
        raise RuntimeError("batch_norm: running_mean and running_var must be given when "
                           "training=False (or pass training=True to use batch statistics)")
    view = _channel_shape(len(shape), shape[1])
    mean = _F.reshape(running_mean, view)
    var = _F.reshape(running_var, view)
    out = (_as_tensor(input) - mean) / _F.sqrt(var + eps)
    if weight is not None:
        out = out * _F.reshape(weight, view)
    if bias is not None:
        out = out + _F.reshape(bias, view)
    return out


def _check_batch_norm_parameters(input, running_mean, running_var, weight, bias):
    """One entry per channel (dim 1), in the input's dtype: PyTorch's checks and words."""
    channels = _shape(input)[1]
    parameters = {"running_mean": running_mean, "running_var": running_var, "weight": weight,
                  "bias": bias}
    for name, value in parameters.items():
        if value is not None and math.prod(_shape(value)) != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not "
                               f"{math.prod(_shape(value))}")
    _check_norm_dtypes(_values(input), *(None if v is None else _values(v)
                                         for v in parameters.values()))


def _update_running_stats(input, running_mean, running_var, momentum):
    if momentum is None:
        raise ValueError("batch_norm: momentum=None (a cumulative average) needs the number of "
                         "batches seen; pass a float momentum to the functional form")
    # (in recorded Tensor ops: minigrad.compile writes the new statistics back each call)
    dims = (0,) + tuple(range(2, input.dim()))
    with no_grad():
        data = input.detach()
        if running_mean is not None:
            running_mean.copy_(running_mean * (1 - momentum) + data.mean(dims) * momentum)
        if running_var is not None:
            running_var.copy_(running_var * (1 - momentum)
                              + data.var(dims, correction=1) * momentum)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalize each (sample, channel) over its other dims: group_norm with one group per
    channel.  With ``use_input_stats`` the running statistics (if given) are updated in
    place with the batch-averaged instance statistics; without, they are used instead."""
    shape = _shape(input)
    refuse_dtypes("integral", "batch_norm", input)  # torch's instance_norm is a batch_norm
    if len(shape) < 3:
        raise ValueError(f"instance_norm: expected an input with at least 3 dims (N, C, *), got "
                         f"shape {list(shape)}")
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    if math.prod(shape[2:]) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{list(shape)}")
    out = _F.group_norm(input, shape[1], weight, bias, eps)
    if running_mean is not None or running_var is not None:
        grouped = _values(input).reshape(shape[:2] + (-1,))
        stats = (grouped.mean(axis=2).mean(axis=0),
                 grouped.var(axis=2, ddof=1).mean(axis=0))
        with no_grad():
            for running, batch in zip((running_mean, running_var), stats):
                if running is not None:
                    running.copy_(running * (1 - momentum) + batch * momentum)
    return out


# ------------------------------------------------------------------ encodings, distances
def one_hot(tensor, num_classes=-1):
    """int64 one-hot encodings of the int64 class indices ``tensor`` (not differentiable).

    >>> F.one_hot(mg.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if num_classes == -1:   # (the size of the result: a graph break under minigrad.compile)
        reads_values("one_hot with num_classes=-1 counts the classes in the values")
        return _wrap(_one_hot_array(_values(tensor), num_classes))
    return _F.one_hot(tensor, num_classes)   # (its kernel checks the classes every call)


def _vector_norm(x, p, dim, keepdim):
    """The p-norm over ``dim``, with gradient 0 (not nan) where the norm is 0."""
    x = _as_tensor(x)
    if p == math.inf:
        return _F.amax(_F.abs(x), dim, keepdim)
    if p == 1:
        return _F.sum(_F.abs(x), dim, keepdim)
    powered = x * x if p == 2 else _F.pow(_F.abs(x), p)
    total = _F.sum(powered, dim, keepdim)
    positive = total > 0
    safe = _F.where(positive, total, 1.0)  # keeps the root's derivative finite at 0
    root = _F.sqrt(safe) if p == 2 else _F.pow(safe, 1.0 / p)
    return _F.where(positive, root, 0.0)


_NOT_FLOATING = "{op}: Expected a floating point or complex tensor as input. Got {{dtype}}"


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along ``dim``."""
    if out is not None:
        raise TypeError("normalize: out= is not supported; use the returned tensor")
    refuse_dtypes("integral", _NOT_FLOATING.format(op="linalg.vector_norm"), input)
    norm = _vector_norm(input, p, dim, True)
    return _as_tensor(input) / _F.clamp(norm, eps, None)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / ||x1|| * x2 / ||x2||, dim), each norm at least ``eps`` (as PyTorch, the
    clamp is not differentiated)."""
    x1, x2 = _as_tensor(x1), _as_tensor(x2)
    refuse_result_dtype("integral", "expected common dtype to be floating point, yet common dtype "
                        "is {dtype}", x1, x2)
    shape = infer_size(list(x1.shape), list(x2.shape))   # (PyTorch's error where they differ)
    x1, x2 = _F.expand(x1, shape), _F.expand(x2, shape)

    def clamped_norm(x):
        return _passthrough_clamp_min(_vector_norm(x, 2, dim, True), eps)

    return _F.sum((x1 / clamped_norm(x1)) * (x2 / clamped_norm(x2)), dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim."""
    diff = _as_tensor(x1) - x2 + eps
    return _vector_norm(diff, p, -1 if diff.ndim else None, keepdim)


# ------------------------------------------------------------------ losses
def _legacy_reduction(size_average, reduce, reduction):
    """torch's deprecated size_average/reduce pair, mapped to ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='mean'/'sum'/'none' instead.", stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduce(loss, reduction):
    _check_reduction(reduction)
    if reduction == "none":
        return loss
    return _F.sum(loss) if reduction == "sum" else _F.mean(loss)


def _warn_shape(name, input, target):
    if _shape(input) != _shape(target):  # torch's words (which do not name the loss)
        warnings.warn(f"Using a target size ({_Size(_shape(target))}) that is different to the "
                      f"input size ({_Size(_shape(input))}). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _weighted(loss, weight, reduction, mean_over_weight):
    """torch's weighted mse/l1/huber: mean is sum / sum(weight) (mse, l1) or a plain mean."""
    if _shape(weight) != _shape(loss):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    _check_reduction(reduction)
    if reduction == "mean" and mean_over_weight:
        return _F.sum(loss) / _F.sum(weight)
    return _reduce(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced."""
    _warn_shape("mse_loss", input, target)
    refuse_result_dtype("integral", "mse_cpu", input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    diff = _as_tensor(input) - target
    loss = diff * diff
    return _reduce(loss, reduction) if weight is None else _weighted(loss, weight, reduction, True)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced (gradient 0 where input == target, as PyTorch)."""
    _warn_shape("l1_loss", input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _F.abs(_as_tensor(input) - target)
    return _reduce(loss, reduction) if weight is None else _weighted(loss, weight, reduction, True)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""
    _warn_shape("smooth_l1_loss", input, target)
    refuse_result_dtype("integral", "smooth_l1_cpu", input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    diff = _as_tensor(input) - target
    absolute = _F.abs(diff)
    loss = _F.where(absolute < beta, diff * diff * (0.5 / beta), absolute - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (d = input - target), in the
    input's dtype.  As PyTorch, whose backward kernel takes one dtype, a target of another
    dtype gives a loss whose backward raises."""
    _warn_shape("huber_loss", input, target)
    refuse_result_dtype("integral", "huber_cpu", input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input = _as_tensor(input)
    diff = input - target
    absolute = _F.abs(diff)
    loss = _F.where(absolute < delta, diff * diff * 0.5, (absolute - 0.5 * delta) * delta)
    target_dtype = _values(target).dtype
    if target_dtype != input._data.dtype:
        loss = _refuse_mixed_backward(_in_place_dtype(loss, input.dtype), input, target)
    return _reduce(loss, reduction) if weight is None else _weighted(loss, weight, reduction, False)


class _RefusedBackward(_Function):
    """The identity, whose backward raises ``message`` (a kernel's check at backward time)."""

    @staticmethod
    def forward(ctx, x, message):
        ctx.message = message
        return x

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(ctx.message)


def _refuse_mixed_backward(loss, input, target):
    """PyTorch's huber_loss_backward(grad, self, other) wants other in self's dtype: the
    input's gradient is asked first, then the target's."""
    if not loss.requires_grad:
        return loss
    first, second = (input, target) if input.requires_grad else (target, input)
    message = (f"Found dtype {scalar_type_name(_values(second).dtype)} but expected "
               f"{scalar_type_name(_values(first).dtype)}")
    return _RefusedBackward.apply(loss, message)


def bilinear(input1, input2, weight, bias=None):
    """x1^T A x2 + b over the last dims, for each output feature: ``weight`` is
    (out_features, in1_features, in2_features), the batch dims of the inputs must agree."""
    _check_bilinear(input1, input2, weight, bias)
    refuse_dtypes("bool", "bmm", _as_tensor(input1))  # (PyTorch's kernel: one dtype, checked)
    out = _einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


def _check_bilinear(input1, input2, weight, bias):
    """PyTorch's checks, in its order and with its messages."""
    tensors = {"input1": input1, "input2": input2, "weight": weight}
    if bias is not None:
        tensors["bias"] = bias
    dtypes = [_values(t).dtype for t in tensors.values()]
    if any(d != dtypes[0] for d in dtypes):
        named = ", ".join(f"{k}: {cpp_type_name(d)}" for k, d in zip(tensors, dtypes))
        raise RuntimeError(f"All tensors must have the same dtype, got {named}")
    s1, s2, sw = _shape(input1), _shape(input2), _shape(weight)
    if len(s1) != len(s2):
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {len(s1)} and "
                           f"{len(s2)}")
    for i, (a, b) in enumerate(zip(s1[:-1], s2[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {a} and {b}")
    if len(sw) != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D (out_features, in1_features, "
                           f"in2_features), got shape {list(sw)}")
    for name, size, expected in (("input1", s1[-1], sw[1]), ("input2", s2[-1], sw[2])):
        if size != expected:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {size} "
                               f"but expected {expected}")
    if bias is not None and _shape(bias)[:1] != sw[:1]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{_shape(bias)[0]} but expected {sw[0]}")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim (1, or 0 for an unbatched input) and the NLL.

    ``target`` holds class indices (int64, ``input``'s shape without the class dim) or
    class probabilities (float, ``input``'s shape).  ``weight`` rescales each class;
    with indices, 'mean' divides by the summed weights of the non-ignored targets.

    >>> x = mg.randn(3, 5, requires_grad=True)
    >>> F.cross_entropy(x, mg.tensor([1, 0, 4]), label_smoothing=0.1).backward()
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    if _shape(target) != _shape(input):  # class indices: PyTorch's nll_loss takes the weight
        _refuse_gradient(_nll_kernel(input), weight=weight)
    elif getattr(target, "dtype", None) is not None and target.dtype.is_floating_point:
        # probabilities: PyTorch computes in the dtype the three promote to
        input, target, weight = promote_types(input, target, weight)
    return _F.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def _nll_kernel(input):
    return "nll_loss_forward" if len(_shape(input)) <= 2 else "nll_loss2d_forward"


def _refuse_gradient(function, **arguments):
    """PyTorch's refusal of a gradient its kernel cannot give (raised as the loss is made)."""
    if not is_grad_enabled():
        return
    for name, value in arguments.items():
        if isinstance(value, Tensor) and value.requires_grad:
            raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad True.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-weight[target] * input[target] for log-probabilities ``input`` (classes in dim 1)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _refuse_gradient(_nll_kernel(input), weight=weight)
    input = _as_tensor(input)
    if input._data.dtype.kind not in "fc":
        # an error either way; PyTorch names a bad target first (a host read: no compile)
        _index_targets(input.shape, _values(target),
                       None if weight is None else _values(weight), ignore_index, input.dtype)
        refuse_dtypes("integral", "nll_loss_out_frame", input)
    return _F.nll_loss(input, target, weight, ignore_index, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(target log(input) + (1 - target) log(1 - input)), logs clamped at -100 (as PyTorch)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _shape(target) != _shape(input):
        raise ValueError(f"Using a target size ({_Size(_shape(target))}) that is different to "
                         f"the input size ({_Size(_shape(input))}) is deprecated. Please ensure "
                         "they have the same size.")
    _refuse_gradient("binary_cross_entropy", weight=weight)
    input = _as_tensor(input)
    target_dtype = _values(target).dtype
    if target_dtype != input.dtype:  # PyTorch's kernel takes one dtype (no promotion)
        raise RuntimeError(f"Found dtype {scalar_type_name(target_dtype)} but expected "
                           f"{scalar_type_name(input.dtype)}")
    refuse_dtypes("integral", "binary_cross_entropy", input)
    if weight is not None and _values(weight).dtype != input.dtype:
        weight = _as_tensor(weight).to(input.dtype)  # PyTorch's result keeps the input's dtype
    loss = _F.binary_cross_entropy_elements(input, target)   # (checks [0, 1] every call)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """binary_cross_entropy(sigmoid(input), target) computed stably from the logits:
    (1 - t) x + (1 + (pos_weight - 1) t) softplus(-x), times ``weight``.  The loss has the
    target's dtype (PyTorch computes it in place in ``1 - target``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if _shape(target) != _shape(input):
        raise ValueError(f"Target size ({_Size(_shape(target))}) must be the same as input size "
                         f"({_Size(_shape(input))})")
    _refuse_gradient("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    input, target = _as_tensor(input), _as_tensor(target)
    if target._data.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    softplus_neg = _F.softplus(-input, 1.0, math.inf)
    if pos_weight is not None:
        softplus_neg = softplus_neg * ((_as_tensor(pos_weight) - 1) * target + 1)
    loss = _in_place_dtype((1 - target) * input + softplus_neg, target.dtype)
    if weight is not None:
        loss = _in_place_dtype(loss * weight, target.dtype)
    return _reduce(loss, reduction)


def _in_place_dtype(result, dtype):
    """``result`` cast to ``dtype``, as PyTorch's in-place ops write into a tensor of that
    dtype: a result of a higher category (float into int) is refused."""
    if result.dtype == dtype:
        return result
    if _CATEGORY[result.dtype.kind] > _CATEGORY[dtype.kind]:
        raise RuntimeError(f"result type {scalar_type_name(result.dtype)} can't be cast to the "
                           f"desired output type {scalar_type_name(dtype)}")
    return result.to(dtype)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) pointwise (0 where target == 0), for log-probabilities
    ``input``; ``log_target=True`` takes log-probabilities as the target too.  Use
    reduction='batchmean' for the mathematical KL divergence (sum / batch size)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, ("none", "mean", "sum", "batchmean"))
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    input, target = _as_tensor(input), _as_tensor(target)
    refuse_dtypes("integral", "kl_div: Integral inputs not supported.", input, target)
    if log_target:
        loss = _F.exp(target) * (target - input)
    else:
        positive = target > 0
        xlogx = _F.where(positive, target * _F.log(_F.where(positive, target, 1.0)), 0.0)
        loss = xlogx - target * input
    if reduction == "batchmean":
        total = _F.sum(loss)
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, reduction)



# ------------------------------------------------------------------ more losses (compositions)
def _passthrough_clamp_min(x, low):
    """max(x, low) in value, but the gradient of x itself (torch clamps such values in
    place under no_grad: gaussian_nll_loss's var, cosine_similarity's norms).  Recorded
    ops, so minigrad.compile follows each call's values."""
    return x + (_F.clamp(x, low, None) - x).detach()


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-08,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); ``full``
    adds Stirling's approximation of log(target!) where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    input, target = _as_tensor(input), _as_tensor(target)
    if log_input:
        loss = _F.exp(input) - target * input
    else:
        loss = input - target * _F.log(input + eps)
    if full:
        # PyTorch's term as it writes it: target <= 1 masked after the logs (its gradient
        # reaches a target that requires grad)
        stirling = target * _F.log(target) - target + 0.5 * _F.log(2 * math.pi * target)
        loss = loss + _F.masked_fill(stirling, target <= 1, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 (log(var) + (input - target)^2 / var), var clamped at ``eps`` (in value only, as
    PyTorch); ``var`` may have one dim fewer than ``input`` or one size-1 dim."""
    input, target = _as_tensor(input), _as_tensor(target)
    var = _as_tensor(var) if isinstance(var, Tensor) else _wrap(
        namespace_of(input._data).full(input.shape, float(var)))
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = _F.unsqueeze(var, -1)
        elif not (var.ndim == input.ndim and
                  sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    reads_values("gaussian_nll_loss checks that var is not negative")
    if (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    var = _passthrough_clamp_min(var, eps)
    diff = input - target
    loss = (_F.log(var) + diff * diff / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _F.clamp(-_as_tensor(target) * (_as_tensor(input1) - input2) + margin, 0.0, None)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target == 1, max(0, margin - input) where target == -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input = _as_tensor(input)
    target = _as_tensor(target)
    loss = (_F.where(target != 1, _F.clamp(margin - input, 0.0, None), 0.0)
            + _F.where(target != -1, input, 0.0))
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), computed stably, in the input's dtype (as PyTorch, which
    writes it in place into a tensor like ``input``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _refuse_gradient("soft_margin_loss", target=target)
    default_float = scalar_type_name(get_default_dtype())
    refuse_result_dtype("integral", _FLOAT_RESULT.format(floating=default_float), input, target)
    input = _as_tensor(input)
    loss = _F.softplus(-input * target, 1.0, math.inf)
    return _reduce(_in_place_dtype(loss, input.dtype), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """The binary cross-entropy of sigmoid(input) per class, averaged over the classes."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _as_tensor(input), _as_tensor(target)
    loss = -(target * _F.logsigmoid(input) + (1 - target) * _F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = _F.sum(loss, input.ndim - 1) / input.shape[-1]
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target == 1, max(0, cos - margin) where target == -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input1, input2 = _as_tensor(input1), _as_tensor(input2)
    dim = 1 if input1.ndim == 2 else 0
    squares1 = _F.sum(input1 * input1, dim) + 1e-12
    squares2 = _F.sum(input2 * input2, dim) + 1e-12
    cos = _F.sum(input1 * input2, dim) / _F.sqrt(squares1 * squares2)
    target = _as_tensor(target)
    loss = (_F.where(target == 1, 1 - cos, 0.0)
            + _F.where(target == -1, _F.clamp(cos - margin, 0.0, None), 0.0))
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _F.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_F.clamp(d_pos - d_neg + margin, 0.0, None), reduction)

from minigrad.nn._margin_losses import multi_margin_loss, multilabel_margin_loss  # noqa: E402,F401
from minigrad.nn import _fractional_pooling, _more_functional, _more_pooling  # noqa: E402
from minigrad.nn._fractional_pooling import *  # noqa: E402,F401,F403
from minigrad.nn._more_functional import *  # noqa: E402,F401,F403
from minigrad.nn._more_pooling import *  # noqa: E402,F401,F403


# Everything public defined here (wrappers added above this line are included) plus the
# generated exports.
def _public_names():
    from minigrad._generated import api_nn_functional
    here = {name for name, value in globals().items()
            if not name.startswith("_") and callable(value)
            and getattr(value, "__module__", None) == __name__}
    return sorted(set(api_nn_functional.__all__) | here)


# torch's F.max_pool1d/2d return a tuple only when return_indices=True (its
# boolean_dispatch); the two ops behind them are entries in derivatives.yaml.
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over (N, C, L) or (C, L) input, as ``torch.nn.functional.max_pool1d``.

    >>> F.max_pool1d(x, 2)                             # doctest: +SKIP
    >>> out, indices = F.max_pool1d(x, 3, stride=2, return_indices=True)  # doctest: +SKIP
    """
    if return_indices:
        return _F.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over (N, C, H, W) or (C, H, W) input, as ``torch.nn.functional.max_pool2d``.

    >>> F.max_pool2d(x, 2)                             # doctest: +SKIP
    >>> out, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)  # doctest: +SKIP
    """
    if return_indices:
        return _F.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + mask) v over the last two dims, as torch's reference
    implementation (a bool mask's True means "may attend"; a float mask is added).

    >>> out = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # doctest: +SKIP
    """
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    dtype = query._data.dtype
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
        # (from shapes, by creation functions and ops: minigrad.compile keeps it exact)
        allowed = _F.tril(_ones((L, S), dtype=_bool, device=query.device))
        bias = _F.masked_fill(_full((L, S), -math.inf, dtype=query.dtype, device=query.device),
                              allowed, 0.0)
    if attn_mask is not None:
        if attn_mask._data.dtype == np.bool_:   # (Tensor ops: compile records them)
            bias = _F.masked_fill(_full_like(attn_mask, -math.inf, dtype=dtype), attn_mask, 0.0)
        else:
            bias = attn_mask
    if enable_gqa:
        groups = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(groups, dim=-3)
        value = value.repeat_interleave(groups, dim=-3)
    weights = (query @ key.transpose(-2, -1)) * scale_factor
    if bias is not None:
        weights = weights + bias
    weights = softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value


__all__ = sorted({*_public_names(), "affine_grid", "ctc_loss", "embedding_bag", "grid_sample",
                  "interpolate", "multi_margin_loss", "multilabel_margin_loss", "pixel_shuffle",
                  "pixel_unshuffle", "upsample",
                  "upsample_bilinear", "upsample_nearest", *_more_functional.__all__,
                  *_more_pooling.__all__, *_fractional_pooling.__all__})
