"""More of torch.nn.functional, as compositions of ops with derivatives.yaml formulas (so
their gradients, first and second order, come from those ops): the shrink activations,
the in-place activations, rrelu, the alpha dropouts, channel_shuffle, pdist,
gumbel_softmax, triplet_margin_with_distance_loss, and embedding with ``max_norm``.

Masks from values are Tensor comparisons (``x > lambd``), which ``minigrad.compile``
records; the random ones (rrelu in training, the alpha dropouts, gumbel_softmax) draw
from minigrad's generator (``minigrad.manual_seed``), so they are reproducible, and
under ``minigrad.compile`` a draw is a graph break (the function runs eagerly). PyTorch's
checks come in PyTorch's order, with its exception types and messages.

>>> F.softshrink(minigrad.tensor([-2.0, 0.1, 1.0]))
tensor([-1.5000,  0.0000,  0.5000])
"""
import math
import numbers
import warnings

import numpy as np

from minigrad._array import namespace_of
from minigrad.creation import ones_like, zeros_like
from minigrad._dtypes import get_default_dtype
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad._value_reads import reads_values
from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.inplace import apply_inplace
from minigrad.autograd.promotion import refuse_dtypes
from minigrad.kernels.core import on_device_of, scalar_type_name
from minigrad.nn._arguments import require_tensors as _require_tensors, type_name as _type_name
from minigrad.random import numpy_rng
from minigrad._sampling import rand
from minigrad._dtypes import float64

__all__ = ["softshrink", "hardshrink", "threshold_", "selu_", "celu_", "rrelu", "rrelu_",
           "alpha_dropout", "feature_alpha_dropout", "channel_shuffle", "pdist",
           "gumbel_softmax", "triplet_margin_with_distance_loss", "embedding"]


def _functional():
    # nn.functional imports this module at its end (so, no import at the top): by the time
    # a function here runs, it is complete
    from minigrad.nn import functional
    return functional


def _number(function, name, position, value):
    """``value`` as a float, or PyTorch's TypeError for an argument that must be a Number."""
    if isinstance(value, (numbers.Number, Tensor)) and not isinstance(value, complex):
        return float(value)
    raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Number, "
                    f"not {_type_name(value)}")


# ------------------------------------------------------------------ shrink activations
def softshrink(input, lambd=0.5):
    """input - lambd where input > lambd, input + lambd where input < -lambd, else 0.

    >>> F.softshrink(minigrad.tensor([-1.0, 0.2, 0.75]), 0.5)
    tensor([-0.5000,  0.0000,  0.2500])
    """
    lambd = _shrink_lambda("softshrink", "softshrink_check", input, lambd)
    largest = float(np.finfo(input._data.dtype).max)
    if not 0 <= lambd <= largest:
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{scalar_type_name(input.dtype)}, but found {lambd:g}")
    # between -lambd and lambd PyTorch's kernel gives input * 0 (-0.0 for a negative input);
    # a NaN falls there too: NaN, with gradient 0 (PyTorch's vectorized kernels')
    inner = _F.where(input < -lambd, input + lambd, input * 0)
    return _F.where(input > lambd, input - lambd, inner)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0.

    >>> F.hardshrink(minigrad.tensor([-1.0, 0.2, 0.75]), 0.5)
    tensor([-1.0000,  0.0000,  0.7500])
    """
    lambd = _shrink_lambda("hardshrink", "hardshrink_cpu", input, lambd)
    # inside [-lambd, lambd]: 0; a NaN stays NaN, with gradient 0 (PyTorch's vectorized
    # kernels')
    inner = _F.where(input != input, input * 0, 0.0)
    return _F.where(_F.abs(input) > lambd, input, inner)


def _shrink_lambda(name, kernel, input, lambd):
    """The shrink functions' checks in PyTorch's order (a Tensor input, a number ``lambd``,
    no integral dtype, whose error names ``kernel``); ``lambd`` as a Python number."""
    _require_tensors(name, input=input)
    lambd = _number(name, "lambd", 2, lambd)
    refuse_dtypes("integral", kernel, input)
    return lambd


# ------------------------------------------------------------------ in-place activations
def threshold_(input, threshold, value):
    """In-place ``threshold``: input where input > threshold, else ``value``."""
    _require_tensors("threshold_", input=input)
    return _functional().threshold(input, threshold, value, inplace=True)


def selu_(input):
    """In-place ``selu``."""
    _require_tensors("selu_", input=input)
    return apply_inplace(input, _F.selu)


def celu_(input, alpha=1.0):
    """In-place ``celu``."""
    _require_tensors("celu_", input=input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _functional().celu(input, alpha, inplace=True)


# ------------------------------------------------------------------ rrelu
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training, input * a where input <= 0, each slope ``a``
    drawn uniformly from [lower, upper]; otherwise leaky_relu with the mean slope
    (lower + upper) / 2.  The gradient is the slope used."""
    return rrelu_with_generator(input, lower, upper, training, inplace, None)


def rrelu_with_generator(input, lower, upper, training, inplace, generator):
    """``rrelu`` drawing its slopes from ``generator`` (None: minigrad's default one), as
    torch.rrelu's ``generator=`` argument (F.rrelu has none)."""
    _require_tensors("rrelu", input=input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    # PyTorch's backward uses the mean slope where the bounds are this close
    if not training or upper - lower <= 1e-6:
        refuse_dtypes("integral", "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu",
                      input)
        slope = (lower + upper) / 2
        return apply_inplace(input, _F.leaky_relu, slope) if inplace else \
            _F.leaky_relu(input, slope)
    refuse_dtypes("integral", "rrelu_with_noise_out_cpu", input)
    # numpy's uniform(lower, upper) is lower + (upper - lower) * random(): the same draw,
    # made by rand (minigrad.compile draws it anew on every call) and recorded ops
    unit = rand(tuple(input.shape), generator=generator, dtype=float64, device=input.device)
    noise = (unit * (upper - lower) + lower).to(input.dtype)

    def op(x):
        return x * _F.where(x <= 0, noise, 1.0)   # (a NaN keeps slope 1, as in PyTorch)
    return apply_inplace(input, op) if inplace else op(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)


def _on_device_like(tensor, host_array):
    """A constant tensor of ``host_array`` on ``tensor``'s device."""
    return _wrap(on_device_of(tensor._data, host_array))


# ------------------------------------------------------------------ alpha dropout
_SELU_SATURATION = 1.7580993408473766   # -scale * alpha of selu: where its output saturates


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for selu networks: each element is set to selu's saturation value with
    probability ``p``, then all are scaled and shifted so that a standard normal input
    keeps mean 0 and variance 1.  Not training, or ``p`` 0: ``input`` itself."""
    return _alpha_dropout("alpha_dropout", input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels: one draw per (sample, channel) of an
    (N, C, ...) input, shared by the channel's other elements."""
    return _alpha_dropout("feature_alpha_dropout", input, p, training, inplace, feature=True)


def _alpha_dropout(name, input, p, training, inplace, feature):
    """PyTorch's _dropout_impl (ATen/native/Dropout.cpp) with alpha_dropout set: its
    checks, early returns and float arithmetic in its order."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _require_tensors(name, input=input)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = input.new_zeros(())   # (PyTorch multiplies by it: ints and bools too)
        return input.mul_(zero) if inplace else input * zero
    shape = tuple(input.shape)
    if feature:
        if len(shape) < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (len(shape) - 2)
    dtype = input._data.dtype
    if dtype.kind in "biu":   # (PyTorch's noise.add(-1) is a Long tensor for a bool input)
        raise RuntimeError(f"result type {scalar_type_name(get_default_dtype())} can't be cast "
                           "to the desired output type "
                           f"{scalar_type_name(np.int64 if dtype.kind == 'b' else dtype)}")
    # dropout's mask (minigrad.compile draws it anew on every call), then recorded ops
    from minigrad.nn.functional import _random_mask   # (functional imports this module)
    keep = _F._to_copy(_random_mask(input, shape, p), input.dtype)
    a = 1.0 / math.sqrt((_SELU_SATURATION ** 2 * p + 1) * (1 - p))   # (a Python float:
    # the tensors keep the input's dtype)
    shift = (keep - 1) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p
    scale = keep * a

    def op(x):
        return x * scale + shift
    return apply_inplace(input, op) if inplace else op(input)


# ------------------------------------------------------------------ channel_shuffle
def channel_shuffle(input, groups):
    """Rearrange the C channels (dim 1) of an (N, C, *) input from ``groups`` groups of
    C / groups to C / groups groups of ``groups``: channel g * (C / groups) + k moves to
    k * groups + g.

    >>> F.channel_shuffle(minigrad.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    _require_tensors("channel_shuffle", input=input)
    if not isinstance(groups, numbers.Integral) or isinstance(groups, bool):
        raise TypeError("channel_shuffle(): argument 'groups' (position 2) must be int, not "
                        f"{_type_name(groups)}")
    shape = tuple(input.shape)
    if len(shape) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{groups}")
    channels = shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")
    if groups in (1, channels):   # the identity; PyTorch's result is still a new tensor
        return input.clone()
    grouped = input.reshape(shape[0], groups, channels // groups, *shape[2:])
    return grouped.transpose(1, 2).reshape(shape)


# ------------------------------------------------------------------ pdist
def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input: the N (N - 1) / 2 pairs
    i < j, in row-major order (as scipy.spatial.distance.pdist).  The gradient is
    PyTorch's: 0 where a distance is 0, and for p = inf each coordinate that attains the
    maximum gets the whole gradient.  (The pairs' differences are built whole: memory
    N (N - 1) / 2 * M, where PyTorch's kernel loops.)"""
    _require_tensors("pdist", input=input)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    xp = namespace_of(input._data)
    first, second = (xp.asarray(i) for i in np.triu_indices(input.shape[0], 1))   # (the shape's)
    diff = _F.getitem(input, first) - _F.getitem(input, second)
    if input.shape[1] == 0:
        return diff.sum(-1)
    return _row_norms(diff, p)


def _row_norms(diff, p):
    """The p-norm of each row of ``diff``, with pdist's gradient."""
    if p == 0:   # the count of non-zero coordinates; gradient 0 (NaN counts, as in PyTorch)
        return _F.where(diff != 0, 1.0, diff * 0).sum(-1)
    size = _F.abs(diff)
    if p == 1:
        return size.sum(-1)
    if p == np.inf:
        # the maximum, whose gradient reaches every coordinate that attains it in full (as
        # PyTorch's; amax would share it); an infinite one passes none
        top = _F.amax(size.detach(), -1, True)
        attains = (size == top) & (size < np.inf)
        return top.squeeze(-1) + _F.where(attains, size - top, 0.0).sum(-1)
    nonzero = size > 0   # |d|^p of a 0 coordinate: 0, with gradient 0 (not 0 * inf)
    powered = size * size if p == 2 else \
        _F.where(nonzero, _F.pow(_F.where(nonzero, size, 1.0), p), 0.0)
    total = powered.sum(-1)
    positive = total > 0   # the root of a 0 distance: gradient 0
    safe = _F.where(positive, total, 1.0)
    root = _F.sqrt(safe) if p == 2 else _F.pow(safe, 1.0 / p)
    return _F.where(positive, root, 0.0)


# ------------------------------------------------------------------ gumbel_softmax
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau, dim) with g standard Gumbel noise (minigrad's
    generator); ``hard``: the one-hot vector of its maximum, whose gradient is the soft
    sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    _require_tensors("empty_like", input=logits)   # (PyTorch's first op on the logits)
    dtype = logits._data.dtype
    if dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{scalar_type_name(dtype)}")
    exponential = numpy_rng().exponential(1.0, tuple(logits.shape)).astype(dtype)
    gumbels = -_F.log(_on_device_like(logits, exponential))
    _check_dim(dim, logits.dim())
    y_soft = _F.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    if y_soft.dim() == 0:   # (one class: its one-hot vector is 1; scatter wants a dim)
        y_hard = ones_like(y_soft)
    else:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _F.scatter(zeros_like(logits), dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _check_dim(dim, ndim):
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")


# ------------------------------------------------------------------ triplet loss
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for a distance function
    ``d`` (default: pairwise_distance); ``swap`` takes min(d(a, n), d(p, n)) as the
    negative's distance."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not a_dim == p_dim == n_dim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a_dim}D, "
                           f"positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = _functional().pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _F.minimum(dist_neg, distance_function(positive, negative))
    loss = _F.clamp(margin + dist_pos - dist_neg, 0, None)
    if reduction == "sum":
        return _F.sum(loss)
    return _F.mean(loss) if reduction == "mean" else loss


# ------------------------------------------------------------------ embedding
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer indices ``input``.  ``padding_idx``'s row
    gets no gradient; with ``max_norm``, each picked row whose ``norm_type``-norm exceeds
    it is first scaled in place (under no_grad, as PyTorch) to norm ``max_norm``.

    >>> w = minigrad.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> F.embedding(minigrad.tensor([0]), w, max_norm=1.0)   # and w[0] is now [0.6, 0.8]
    tensor([[0.6000, 0.8000]])
    """
    if padding_idx is not None:   # (PyTorch's checks, in Python)
        rows = weight.size(0)
        if padding_idx > 0 and padding_idx >= rows or padding_idx < -rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += rows
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    return _F.embedding(input, weight, padding_idx, None, norm_type, scale_grad_by_freq, sparse)


def _renorm_rows(weight, indices, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each row ``indices`` pick (once, in sorted order) whose
    norm exceeds ``max_norm`` is scaled by max_norm / (norm + 1e-7); one in-place write."""
    if weight.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {weight.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "embedding_renorm_)")
    index_dtype = indices._data.dtype
    if index_dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"torch.{scalar_type_name(index_dtype)}Tensor instead (while "
                           "checking arguments for embedding_renorm_)")
    reads_values("embedding renormalizes the rows its indices pick (max_norm)")
    xp = namespace_of(weight._data)
    rows, count = xp.unique(indices._data), weight.shape[0]   # (sorted)
    outside = (rows < -count) | (rows >= count)
    first_bad = int(xp.argmax(outside)) if bool(outside.any()) else len(rows)
    done = xp.unique(rows[:first_bad] % count)   # PyTorch renormalizes those before failing
    if len(done) and weight._data.dtype.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {scalar_type_name(weight._data.dtype)} instead.")
    picked = weight._data[done]
    norms = xp.linalg.norm(picked, ord=norm_type, axis=1).astype(np.float64)
    factors = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    with no_grad():   # (one write, so the version moves once, as PyTorch's)
        weight[_wrap(done)] = _wrap(picked * factors[:, None].astype(picked.dtype))
    if first_bad < len(rows):
        raise IndexError(f"select(): index {int(rows[first_bad])} out of range for tensor of "
                         f"size {list(weight.shape)} at dimension 0")
