"""numpy building blocks for the nn ops' `forward:` expressions."""
import math

import numpy as np

from minigrad._array import device_checks, namespace_of, special_of
from minigrad.kernels.core import _log_softmax, open_grid, result_type, scalar_type_name
from minigrad.kernels.linalg import check_addmm_dtypes, check_mm_dtypes

GELU_TANH_K = math.sqrt(2.0 / math.pi)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _erf(x):
    """erf over an array (numpy has none: scipy.special's, or CuPy's)."""
    xp = namespace_of(x)
    x = xp.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return xp.asarray(special_of(x).erf(x)).astype(dtype)


def normal_cdf_array(x):
    """Phi(x), the standard normal CDF."""
    return (0.5 * (1.0 + _erf(x / math.sqrt(2.0)))).astype(result_type(x, np.float32))


def gelu_array(x, approximate):
    if approximate == "none":
        return x * normal_cdf_array(x)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + namespace_of(x).tanh(GELU_TANH_K * (x + 0.044715 * x ** 3)))
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def nll_loss_array(input, target, weight, ignore_index, reduction):
    """-weight[target] * input[target] per sample (classes in dim 1, or 0 unbatched); an
    ignored sample's loss is +0.0.  'mean' divides the sum by the summed weight of the
    samples kept, as PyTorch (nan when there is none)."""
    check_reduction(reduction)
    xp = namespace_of(input)
    safe, per_sample, keep, denominator = index_targets(input.shape, target, weight,
                                                        ignore_index, input.dtype)
    cdim = class_dim(input.ndim)
    if input.shape[cdim] == 0:  # every target ignored (any other is out of bounds)
        picked = xp.zeros(safe.shape, dtype=input.dtype)
    else:
        picked = xp.squeeze(xp.take_along_axis(input, xp.expand_dims(safe, cdim), cdim), cdim)
    losses = _multiply_where(xp, -per_sample, picked, keep)
    if reduction == "none":
        return losses
    total = xp.sum(losses)
    if reduction == "sum":
        return total
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(total / denominator, dtype=input.dtype)


def binary_cross_entropy_array(input, target):
    """-(target log(input) + (1 - target) log(1 - input)) per element, each log clamped at
    -100 (as PyTorch).  Like PyTorch's kernel it checks each element's input, then its
    target, within [0, 1] (nan fails): the first element failing decides the message."""
    xp = namespace_of(input)
    bad_input = ~((input >= 0) & (input <= 1))
    bad = bad_input | ~((target >= 0) & (target <= 1))
    if bad.any():
        first = int(xp.argmax(bad.reshape(-1)))
        which = "input" if bool(bad_input.reshape(-1)[first]) else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    with np.errstate(divide="ignore"):
        log_p = xp.maximum(xp.log(input), -100)
        log_q = xp.maximum(xp.log(1 - input), -100)
    return ((target - 1) * log_q - target * log_p).astype(input.dtype, copy=False)


def elu_array(x, alpha, scale=1.0):
    # exp of the non-positive part only: no overflow warning on the unused branch
    xp = namespace_of(x)
    return scale * xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0)))


def softplus_array(x, beta, threshold):
    xp = namespace_of(x)
    bx = x * beta
    return xp.where(bx > threshold, x, xp.logaddexp(0, bx) / beta).astype(x.dtype)


def hardswish_array(x):
    return x * namespace_of(x).clip(x + 3, 0, 6) / 6


def one_hot_array(tensor, num_classes):
    xp = namespace_of(tensor)
    tensor = xp.asarray(tensor)
    if tensor.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.size and tensor.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not tensor.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    elif tensor.size and tensor.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor[..., None] == xp.arange(num_classes)).astype(np.int64)


# ------------------------------------------------------------------ normalization
def normalize_array(x, dims, eps):
    """(x - mean) / sqrt(var + eps) over ``dims`` (biased variance, as the norms use)."""
    xp = namespace_of(x)
    mean = xp.mean(x, axis=dims, keepdims=True)
    var = xp.var(x, axis=dims, keepdims=True)
    return (x - mean) / xp.sqrt(var + eps)


def channel_shape(ndim, size, channel_dim=1):
    """The shape that broadcasts a per-channel vector over an input of ``ndim`` dims."""
    shape = [1] * ndim
    shape[channel_dim] = size
    return tuple(shape)


def check_norm_dtypes(x, *parameters):
    """PyTorch's CPU norm kernels take the parameters (weight, bias, running statistics)
    in the input's dtype, or float32 ones for a float16 input; anything else (a float64
    batch into a float32 model) is refused rather than promoted."""
    given = [p for p in parameters if p is not None]
    if all(p.dtype == x.dtype for p in given):
        return
    if any(p.dtype != np.float32 for p in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x.dtype != np.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def layer_norm_array(x, normalized_shape, weight, bias, eps):
    check_layer_norm_shape(x.shape, normalized_shape)
    check_norm_dtypes(x, weight, bias)
    k = len(as_shape(normalized_shape))
    out = normalize_array(x, tuple(range(x.ndim - k, x.ndim)), eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def as_shape(shape):
    """An int or a sequence of ints as a shape tuple (torch accepts both)."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(shape)


def check_layer_norm_shape(shape, normalized_shape):
    normalized_shape = as_shape(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or tuple(shape[len(shape) - k:]) != normalized_shape or k > len(shape):
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with "
            f"shape [*, {', '.join(map(str, normalized_shape))}], but got input of size "
            f"{list(shape)}")


def rms_norm_eps(eps, dtype):
    return float(np.finfo(dtype).eps) if eps is None else eps


def rms_norm_array(x, normalized_shape, weight, eps):
    check_layer_norm_shape(x.shape, normalized_shape)
    dims = tuple(range(x.ndim - len(as_shape(normalized_shape)), x.ndim))
    eps = rms_norm_eps(eps, x.dtype)
    xp = namespace_of(x)
    out = x / xp.sqrt(xp.mean(x * x, axis=dims, keepdims=True) + eps)
    return out if weight is None else out * weight


def batch_norm_dims(ndim):
    """Every dim but the channel dim 1: what batch_norm averages over."""
    return (0,) + tuple(range(2, ndim))


def batch_norm_training_array(x, weight, bias, eps):
    out = normalize_array(x, batch_norm_dims(x.ndim), eps)
    return affine_per_channel(out, weight, bias)


def affine_per_channel(out, weight, bias):
    if weight is not None:
        out = out * weight.reshape(channel_shape(out.ndim, -1))
    if bias is not None:
        out = out + bias.reshape(channel_shape(out.ndim, -1))
    return out


def check_group_norm(shape, num_groups):
    if len(shape) < 2:
        raise RuntimeError(f"group_norm: expected an input with at least 2 dims (N, C, *), "
                           f"got shape {list(shape)}")
    if num_groups <= 0 or shape[1] % num_groups:
        raise RuntimeError(f"group_norm: Expected number of channels in input ({shape[1]}) to "
                           f"be divisible by num_groups, but got num_groups={num_groups}")


def group_norm_array(x, num_groups, weight, bias, eps):
    check_group_norm(x.shape, num_groups)
    check_norm_dtypes(x, weight, bias)
    grouped = x.reshape((x.shape[0], num_groups, -1))
    out = normalize_array(grouped, (2,), eps).reshape(x.shape)
    return affine_per_channel(out, weight, bias)


# ------------------------------------------------------------------ losses
def class_dim(ndim):
    """Where the classes are: 0 for an unbatched (C,) input, else 1 (N, C, d1, ...)."""
    return 0 if ndim == 1 else 1


def index_targets(input_shape, target, weight, ignore_index, dtype, check=True):
    """Checked class indices: (safe indices, per-sample weights, kept mask, 'mean' denominator).

    Ignored samples get index 0 and weight 0, so gathering with ``safe`` never goes out
    of bounds and their loss is exactly 0.  ``check=False``: the forward checked these
    targets already (a backward formula).  On a GPU the range check does not wait for the
    GPU (_array/device_checks.py): its error comes at the next synchronization, and until
    then an out-of-range target gathers class 0.
    """
    xp = namespace_of(target)
    target = xp.asarray(target)
    check_class_targets(input_shape, target, weight)
    if len(input_shape) == 1 and target.ndim == 1:
        target = target.reshape(())  # PyTorch reads a (1,) target of a (C,) input as its class
    n_classes = input_shape[class_dim(len(input_shape))]
    keep = target != ignore_index
    bad = keep & ((target < 0) | (target >= n_classes))

    def out_of_bounds():
        return IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")
    if xp is np:
        if check and bad.any():
            raise out_of_bounds()
        safe = xp.where(keep, target, 0)
    else:
        if check:
            device_checks.raise_ready()  # an earlier step's failed check, if it is known
            device_checks.check_later(bad.any(), out_of_bounds)
        safe = xp.where(keep & ~bad, target, 0)
    if n_classes == 0:  # every target ignored (any other is out of bounds above)
        per_sample = xp.zeros(target.shape, dtype=dtype)
    else:
        w = class_weights(n_classes, weight, dtype, like=target)
        per_sample = xp.where(keep, w[safe], 0).astype(dtype)
    return safe, per_sample, keep, per_sample.sum()


def check_class_targets(input_shape, target, weight):
    """PyTorch's checks of class-index targets, in its order and with its exception types
    and messages (nll_loss_nd, then nll_loss for 1-D/2-D inputs, nll_loss2d otherwise)."""
    ndim = len(input_shape)
    if ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if ndim == 1 and target.ndim == 1:
        if target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
    elif ndim != 1:
        batch = target.shape[0] if target.ndim else 0
        if input_shape[0] != batch:
            raise ValueError(f"Expected input batch_size ({input_shape[0]}) to match target "
                             f"batch_size ({batch}).")
        if target.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif ndim == 4 and target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.ndim}")
    elif ndim == 4 and target.shape != (input_shape[0],) + tuple(input_shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(input_shape)} , target: "
                           f"{list(target.shape)}")
    elif target.shape[1:] != tuple(input_shape[2:]):
        raise RuntimeError(f"Expected target size {[input_shape[0], *input_shape[2:]]}, got "
                           f"{list(target.shape)}")
    _check_target_dtype(target.dtype, ndim)
    _check_class_weight(input_shape[class_dim(ndim)], weight, ndim)


def _check_target_dtype(dtype, ndim):
    if dtype == np.int64 or dtype == np.uint8 and ndim <= 2:
        return
    if dtype == np.uint8:  # nll_loss2d takes int64 only
        raise RuntimeError("expected scalar type Long but found Byte")
    raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                       f"{scalar_type_name(dtype)}")


def _check_class_weight(n_classes, weight, ndim):
    if weight is None or weight.ndim == 1 and weight.shape[0] == n_classes:
        return
    if ndim > 2:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or "
                       f"no classes but got weight tensor of shape: {list(weight.shape)}")


def class_weights(n_classes, weight, dtype, like=None):
    """``weight`` in ``dtype``, or ones: in the library of ``like`` (an input) when None."""
    if weight is None:
        return namespace_of(like).ones(n_classes, dtype=dtype)
    return namespace_of(weight).asarray(weight, dtype=dtype)


def check_reduction(reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction; use one of "
                         f"{', '.join(repr(a) for a in allowed)}")


def is_plain_class_rows(input, target, weight, ignore_index, label_smoothing):
    """Whether a cross-entropy is the common case: an (N, C) float input with N > 0, N int64
    targets all in [0, C) (so none out of range and none ignored), no class weights, no
    label smoothing.  Each loss is then -log_softmax(input)[i, target[i]], 'mean' divides
    by N, and there is nothing to check: anything else (and every error) takes the
    general path.  So does a GPU's: reading its targets' range would wait for the GPU,
    which the general path's check does not (_array/device_checks.py)."""
    n, n_classes = input.shape if input.ndim == 2 else (0, 0)
    return (input.__class__ is np.ndarray and n > 0 and input.dtype.kind == "f"
            and weight is None and not label_smoothing
            and target.dtype == np.int64 and target.shape == (n,)
            and not 0 <= ignore_index < n_classes
            and 0 <= target.min() and target.max() < n_classes)


def plain_rows_cross_entropy(input, target, reduction):
    """cross_entropy for ``is_plain_class_rows``: the general path's values, fewer calls."""
    rows = open_grid(namespace_of(input), target.shape)[0]
    losses = -_log_softmax(input, 1)[rows, target]
    if reduction == "none":
        return losses
    total = losses.sum()
    if reduction == "sum":
        return total
    return namespace_of(input).asarray(total / target.shape[0], dtype=input.dtype)


def cross_entropy_array(input, target, weight, ignore_index, reduction, label_smoothing):
    check_reduction(reduction)
    xp = namespace_of(input)
    target = xp.asarray(target)
    if is_plain_class_rows(input, target, weight, ignore_index, label_smoothing):
        return plain_rows_cross_entropy(input, target, reduction)
    probabilities = check_cross_entropy_args(input.shape, target, weight, ignore_index,
                                             label_smoothing)
    label_smoothing = max(label_smoothing, 0.0)  # PyTorch ignores a negative one
    cdim = class_dim(input.ndim)
    logp = log_softmax_of(input, cdim)
    if probabilities:
        q = prob_targets_array(target, weight, label_smoothing, input.ndim)
        # where: a -inf logit (a masked class) with probability 0 adds 0, not nan
        sums = xp.sum(_multiply_where(xp, q, logp, q != 0), axis=cdim).astype(input.dtype)
        if reduction == "none":
            return -sums
        total = -xp.sum(sums)  # negated after the sum, as PyTorch: an empty 'sum' is -0.0
        denominator = input.size / input.shape[cdim] if input.size else 0
    else:
        losses, denominator = _index_target_losses(xp, input, logp, target, weight,
                                                   ignore_index, label_smoothing)
        if reduction == "none":
            return losses
        total = xp.sum(losses)
        if label_smoothing and input.shape[cdim] == 0:
            total = total * np.nan  # PyTorch's smoothing term is 0 / 0 classes, samples or not
    if reduction == "sum":
        return total
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(total / xp.asarray(denominator, dtype=input.dtype), dtype=input.dtype)


def _index_target_losses(xp, input, logp, target, weight, ignore_index, label_smoothing):
    """(per-sample losses, 'mean' denominator) for class-index targets: one log-probability
    picked per sample (never a dense one-hot), plus the label-smoothing term."""
    cdim = class_dim(input.ndim)
    n_classes = input.shape[cdim]
    safe, per_sample, keep, denominator = index_targets(input.shape, target, weight,
                                                        ignore_index, input.dtype)
    if n_classes == 0:  # every target ignored (any other is out of bounds): nothing to pick
        picked = xp.zeros(safe.shape, dtype=input.dtype)
    else:
        picked = xp.squeeze(xp.take_along_axis(logp, xp.expand_dims(safe, cdim), cdim), cdim)
    losses = _multiply_where(xp, -per_sample, picked, keep)  # an ignored sample's is +0.0
    if label_smoothing:
        if n_classes == 0:  # PyTorch's smoothing term is 0 / 0 classes: nan, even summed
            return xp.full(losses.shape, np.nan, dtype=input.dtype), np.nan
        w = class_weights(n_classes, weight, input.dtype, like=input).reshape(
            channel_shape(input.ndim, n_classes, cdim))
        smooth = -xp.where(keep, xp.sum(logp * w, axis=cdim), 0)
        losses = (1 - label_smoothing) * losses + smooth * (label_smoothing / n_classes)
    return losses.astype(input.dtype, copy=False), denominator


def check_cross_entropy_args(input_shape, target, weight, ignore_index, label_smoothing):
    """PyTorch's checks (its order, types, messages); whether ``target`` holds class
    probabilities, which PyTorch decides by the shapes alone (a target of the input's
    shape), before it looks at the dtype."""
    ndim = len(input_shape)
    if tuple(target.shape) == tuple(input_shape):
        if target.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {scalar_type_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if ndim == 0:  # (log_softmax over the class dim 1)
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        n_classes = input_shape[class_dim(ndim)]
        if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                               f"{n_classes} classes or no classes but got weight tensor of "
                               f"shape: {list(weight.shape)}")
        return True
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if ndim == 0:  # (log_softmax over the class dim 1)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    check_class_targets(input_shape, target, weight)
    if label_smoothing > 0 and ndim == 1 and target.ndim == 1:
        # PyTorch's label-smoothing path cannot add the (1,) smoothing term to the () loss
        raise RuntimeError("output with shape [] doesn't match the broadcast shape [1]")
    return False


def _multiply_where(xp, a, b, where):
    """``a * b`` where ``where`` holds, else 0 (so 0 * -inf gives 0, not nan)."""
    if xp is np:
        return np.multiply(a, b, out=np.zeros(b.shape, dtype=b.dtype), where=where)
    return xp.where(where, a * b, 0).astype(b.dtype, copy=False)  # CuPy's ufuncs take no where=


def prob_targets_array(target, weight, label_smoothing, ndim):
    cdim = class_dim(ndim)
    n_classes = target.shape[cdim]
    if label_smoothing and n_classes:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    if weight is not None:
        target = target * weight.reshape(channel_shape(ndim, n_classes, cdim))
    return target


def log_softmax_of(x, dim):
    xp = namespace_of(x)
    if x.shape[dim] == 0:  # no classes: nothing to normalize (and amax has no identity)
        return x.copy()
    shifted = x - xp.amax(x, axis=dim, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))


def linear_array(input, weight, bias):
    if input.ndim == 2 and weight.ndim == 2 and input.shape[1] == weight.shape[1] and (
            input.dtype == weight.dtype) and (bias is None or bias.shape == weight.shape[:1]
                                              and bias.dtype == weight.dtype):
        # the common case (a batch of rows, one dtype): nothing to check, the bias added in place
        out = input @ weight.T
        if bias is not None:
            out += bias
        return out
    if weight.ndim != 2:
        raise RuntimeError(f"linear: weight must be 2-D (out_features, in_features), got shape "
                           f"{list(weight.shape)}")
    if input.ndim == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D "
                           "and 2D")
    if bias is not None:  # PyTorch's addmm(bias, input, weight.T): dtypes before shapes
        check_addmm_dtypes(bias, input, weight)
    if input.shape[-1:] != weight.shape[1:]:
        # PyTorch's message: the input flattened to a matrix times the transposed weight
        rows = int(np.prod(input.shape[:-1]))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x"
                           f"{input.shape[-1]} and {weight.shape[1]}x{weight.shape[0]})")
    check_mm_dtypes(input, weight)  # (no bias: PyTorch's mm, shapes before dtypes)
    if input.ndim > 2:  # one 2-D matmul: numpy's batched matmul would loop (3x slower)
        rows = input.reshape(-1, input.shape[-1]) @ weight.swapaxes(0, 1)
        out = rows.reshape(input.shape[:-1] + (weight.shape[0],))
    else:
        out = input @ weight.swapaxes(0, 1)
    if bias is None:
        return out
    if np.broadcast_shapes(out.shape, tuple(bias.shape)) == out.shape:
        out += bias  # out is fresh: no second output-sized array
        return out
    return out + bias


def selu_array(x):
    return elu_array(x, SELU_ALPHA, SELU_SCALE)
