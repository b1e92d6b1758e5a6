"""torch's top-level forms of nn.functional functions: ``torch.batch_norm``,
``torch.dropout(input, p, train)``, ``torch.embedding(weight, indices)`` ...

They are ATen's signatures, not F's: positional arguments such as ``cudnn_enabled``,
``reduction`` as an int (0 'none', 1 'mean', 2 'sum'), ``weight`` first for embedding,
interpolation/padding modes as ints for grid_sampler.  Each one calls the existing
nn.functional implementation, so values, gradients and errors are F's.
"""
import warnings

from minigrad._array import namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode
from minigrad.nn import functional as F
from minigrad.nn._more_functional import rrelu_with_generator

__all__ = [
    "adaptive_max_pool1d", "affine_grid_generator", "alpha_dropout", "alpha_dropout_",
    "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "celu", "celu_",
    "channel_shuffle", "constant_pad_nd", "convolution", "cosine_embedding_loss",
    "cosine_similarity", "ctc_loss", "dropout", "dropout_", "embedding", "embedding_bag",
    "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
    "grid_sampler", "group_norm", "hardshrink", "hinge_embedding_loss", "instance_norm",
    "kl_div", "layer_norm", "margin_ranking_loss", "pairwise_distance", "pdist",
    "pixel_shuffle", "pixel_unshuffle", "poisson_nll_loss", "prelu", "rms_norm", "rrelu",
    "rrelu_", "selu", "selu_", "threshold", "threshold_", "triplet_margin_loss"]

# functions whose torch form is F's own signature
pixel_shuffle, pixel_unshuffle, channel_shuffle = (
    F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle)
pdist, pairwise_distance, cosine_similarity = F.pdist, F.pairwise_distance, F.cosine_similarity
bilinear, prelu, hardshrink = F.bilinear, F.prelu, F.hardshrink
celu_, selu_, threshold_ = F.celu_, F.selu_, F.threshold_

# ATen's at::Reduction enum, by value.  (torch 2.13's top-level losses default to 0, no
# reduction, though ATen's schemas say Mean: we follow what torch does.)
_REDUCTIONS = ("none", "mean", "sum")


def _reduction(name, position, reduction):
    """ATen takes the reduction as an int (at::Reduction)."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, "
                        f"not {type(reduction).__name__}")
    if reduction not in (0, 1, 2):
        raise ValueError(f"{name}(): {reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


# ------------------------------------------------------------------ normalization
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``F.batch_norm`` with ATen's argument order (``cudnn_enabled`` is ignored)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``F.instance_norm`` with ATen's argument order (``cudnn_enabled`` is ignored)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``F.layer_norm``; ``cudnn_enable`` is ignored."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``F.group_norm``; ``cudnn_enabled`` is ignored."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``F.rms_norm``."""
    return F.rms_norm(input, normalized_shape, weight, eps)


# ------------------------------------------------------------------ dropout
def _check_p(p):
    # ATen raises RuntimeError where F (a Python check) raises ValueError
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p, train):
    """``F.dropout(input, p, training=train)``."""
    _check_p(p)
    return F.dropout(input, p, train)


def dropout_(input, p, train):
    """In-place ``dropout``."""
    _check_p(p)
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    """``F.alpha_dropout(input, p, training=train)``."""
    _check_p(p)
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """In-place ``alpha_dropout``."""
    _check_p(p)
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``F.feature_alpha_dropout(input, p, training=train)``."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """In-place ``feature_alpha_dropout``."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    """Dropout of whole channels of an (N, C, ...) input, any number of trailing dims."""
    return _feature_dropout(input, p, train, inplace=False)


def feature_dropout_(input, p, train):
    """In-place ``feature_dropout``."""
    return _feature_dropout(input, p, train, inplace=True)


def _feature_dropout(input, p, train, inplace):
    # PyTorch's _dropout_impl with feature_dropout set: checks and early returns in its order
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = input.new_zeros(())
        return input.mul_(zero) if inplace else input * zero
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    F._refuse_float_result(input)
    mask = F._random_mask(input, shape[:2] + (1,) * (len(shape) - 2), p)
    return F._maybe_inplace(_F._masked_scale, input, inplace, mask, 1.0 / (1.0 - p))


# ------------------------------------------------------------------ activations
def celu(input, alpha=1.0):
    """``F.celu``."""
    return F.celu(input, alpha)


def selu(input):
    """``F.selu``."""
    return F.selu(input)


def threshold(input, threshold, value):
    """``F.threshold``."""
    return F.threshold(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``F.rrelu``, its slopes drawn from ``generator`` (default: minigrad's)."""
    return rrelu_with_generator(input, lower, upper, training, False, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place ``rrelu``."""
    return rrelu_with_generator(input, lower, upper, training, True, generator)


# ------------------------------------------------------------------ embeddings
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``F.embedding(indices, weight)``: ATen puts ``weight`` first, and -1 means no
    padding index."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# ------------------------------------------------------------------ losses (int reduction)
def kl_div(input, target, reduction=0, *, log_target=False):
    """``F.kl_div`` with an int ``reduction`` (1, 'mean', averages over all elements)."""
    with warnings.catch_warnings():   # (F's warning about 'mean' is F's, torch's has none)
        warnings.simplefilter("ignore", UserWarning)
        return F.kl_div(input, target, reduction=_reduction("kl_div", 3, reduction),
                        log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``F.binary_cross_entropy_with_logits`` with an int ``reduction``."""
    reduction = _reduction("binary_cross_entropy_with_logits", 5, reduction)
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=reduction,
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.cosine_embedding_loss`` with an int ``reduction``."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction("cosine_embedding_loss", 5, reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``F.hinge_embedding_loss`` with an int ``reduction``."""
    return F.hinge_embedding_loss(input, target, margin,
                                  reduction=_reduction("hinge_embedding_loss", 4, reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.margin_ranking_loss`` with an int ``reduction``."""
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction("margin_ranking_loss", 5, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """``F.triplet_margin_loss`` with an int ``reduction``."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", 8, reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``F.poisson_nll_loss``, every argument positional and ``reduction`` an int."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction("poisson_nll_loss", 6, reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``F.ctc_loss`` with an int ``reduction``."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction("ctc_loss", 6, reduction), zero_infinity)


# ------------------------------------------------------------------ pooling, padding, conv
def adaptive_max_pool1d(input, output_size):
    """(values, indices), as ATen's ``adaptive_max_pool1d`` returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    """``F.pad(input, pad, 'constant', value)``."""
    return F.pad(input, pad, "constant", value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """ATen's generic convolution: conv{1,2,3}d or conv_transpose{1,2,3}d by the weight's
    number of spatial dims."""
    spatial = weight.dim() - 2
    if spatial not in (1, 2, 3):
        raise RuntimeError(f"Expected {weight.dim() - 1}D (unbatched) or {weight.dim()}D "
                           f"(batched) input to convolution, but got weight of size "
                           f"{list(weight.shape)}")
    if transposed:
        conv = getattr(F, f"conv_transpose{spatial}d")
        return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(F, f"conv{spatial}d")(input, weight, bias, stride, padding, dilation, groups)


_INTERPOLATION = ("bilinear", "nearest", "bicubic")   # GridSamplerInterpolation, by value
_PADDING = ("zeros", "border", "reflection")          # GridSamplerPadding, by value


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``F.grid_sample`` with ATen's int modes."""
    return F.grid_sample(input, grid, _INTERPOLATION[interpolation_mode],
                         _PADDING[padding_mode], align_corners)


def affine_grid_generator(theta, size, align_corners):
    """``F.affine_grid``, ``align_corners`` required."""
    return F.affine_grid(theta, size, align_corners)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``F.embedding_bag`` with ATen's order and int ``mode`` (0 sum, 1 mean, 2 max), for
    1-D ``indices``.  Returns ATen's four tensors: (output, offset2bag, bag_size,
    max_indices), the bookkeeping as PyTorch's CPU kernels give it."""
    names = ("sum", "mean", "max")
    output = F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                             names[mode], sparse, per_sample_weights, include_last_offset,
                             padding_idx)
    return (output,) + _bag_bookkeeping(weight, indices, offsets, mode, include_last_offset,
                                        len(output))


def _bag_bookkeeping(weight, indices, offsets, mode, include_last_offset, bags):
    xp = namespace_of(indices._data)
    index = indices._data.astype(xp.int64)
    starts = offsets._data.astype(xp.int64)[:bags]
    # the bag of each index: the number of bag starts at or before it, less one
    offset2bag = xp.searchsorted(starts, xp.arange(len(index)), side="right") - 1
    if mode == 0:   # PyTorch's CPU sum: zeros, one per offset; float32's kernel skips offset2bag
        # (per offset, but per bag where autograd records: PyTorch's two code paths)
        recording = grad_mode.enabled and weight.requires_grad
        zeros = xp.zeros(bags if recording else len(offsets._data), dtype=xp.int64)
        if weight._data.dtype == xp.float32:
            offset2bag = xp.zeros(0, dtype=xp.int64)
        return _wrap(offset2bag), _wrap(zeros), _wrap(zeros.copy())
    ends = xp.concatenate([starts[1:], xp.asarray([len(index)])])
    bag_size = ends - starts
    if mode == 1:
        return _wrap(offset2bag), _wrap(bag_size), _wrap(bag_size.copy())
    rows = weight._data[index]
    max_indices = xp.zeros((bags, weight.shape[1]), dtype=xp.int64)
    for bag in range(bags):   # the index (into weight) of each bag's per-column maximum
        if bag_size[bag]:
            chosen = index[starts[bag]:ends[bag]]
            max_indices[bag] = chosen[rows[starts[bag]:ends[bag]].argmax(axis=0)]
    return _wrap(offset2bag), _wrap(bag_size), _wrap(max_indices)


def bind_methods():
    """Tensor methods PyTorch has for these: ``x.prelu(w)``, ``x.hardshrink(l)``."""
    Tensor.prelu = prelu
    Tensor.hardshrink = hardshrink
