"""F.multi_margin_loss and F.multilabel_margin_loss: hinge losses over class scores, as
compositions of gather, where, sum and division (so their gradients, first and second
order, come from those ops' formulas).

For a sample with scores ``x`` (C classes) and target class ``y``:

    multi_margin_loss       sum over i != y of  w[y] * max(0, margin - x[y] + x[i]) ** p   / C
    multilabel_margin_loss  sum over targets j, non-targets i of  max(0, 1 - x[j] + x[i])  / C

A multilabel target row lists class indices and ends at its first -1; a class listed twice
counts twice. As in PyTorch's kernels, a term counts only where its margin is positive, so
a tie (margin exactly 0) and a NaN margin add nothing, to the loss or to the gradient.
PyTorch's checks come in PyTorch's order, with its exception types and messages. They
read the target's values, so under ``minigrad.compile`` these losses run eagerly (a graph
break: _value_reads.py).

Where minigrad differs (docs/divergences.md, margin-loss-empty-and-second-order): the
'mean' of an empty batch is nan (PyTorch returns whatever its output buffer held), and
the second derivative exists (PyTorch's backward is not differentiable).

>>> F.multi_margin_loss(minigrad.tensor([[0.1, 0.2, 0.4, 0.8]]), minigrad.tensor([3]))
tensor(0.3250)
"""
import numpy as np

from minigrad._generated import functions as _F
from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad._value_reads import reads_values
from minigrad.nn._arguments import require_tensors as _require_tensors
from minigrad.kernels.core import not_implemented_for, scalar_type_name
from minigrad.kernels.nn import check_reduction

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _functional():
    # nn.functional (its reduction helpers) imports this module at its end, so not at the
    # top: by the time a loss runs, it is complete
    from minigrad.nn import functional
    return functional


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """The multi-class hinge loss of scores ``input`` ((N, C), (C,) or a scalar) against
    class indices ``target`` ((N,) or one index), optionally weighted per target class."""
    reduction = _functional()._legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _require_tensors("multi_margin_loss", input=input, target=target)
    _functional()._refuse_gradient("multi_margin_loss", weight=weight)
    frames, classes = _check_scores(input)
    if target.dim() > 1 or target.numel() != frames:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{frames}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    _check_float_scores(input, "multi_margin_loss_cpu_kernel")
    _check_long(target)
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype)} but found "
                           f"{scalar_type_name(weight.dtype)}")
    reads_values("multi_margin_loss checks its target's classes and masks with them")
    xp = namespace_of(input._data)
    labels = target._data.reshape(frames)
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise RuntimeError("target out of range")

    scores = input.reshape(frames, classes)
    target_scores = scores.gather(1, _wrap(labels[:, None]))
    margins = margin - target_scores + scores
    counted = (margins._data > 0) & (xp.arange(classes) != labels[:, None])
    terms = _F.where(counted, margins, 0.0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * _wrap(weight._data[labels][:, None])
    return _per_sample(terms.sum((1,)) / classes, target.dim() == 0, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss of scores ``input`` ((N, C), (C,) or a scalar) against
    rows of class indices ``target`` (its shape), each row ending at its first -1."""
    reduction = _functional()._legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    _require_tensors("multilabel_margin_loss", input=input, target=target)
    frames, classes = _check_scores(input)
    if input.dim() <= 1:
        fits = target.dim() <= 1 and target.numel() == classes
    else:
        fits = tuple(target.shape) == (frames, classes)
    if not fits:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    reads_values("multilabel_margin_loss checks its target's classes and masks with them")
    xp = namespace_of(input._data)
    rows = target._data.reshape(frames, classes)
    if rows.size and (rows.min() < -1 or rows.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    _check_float_scores(input, "multilabel_margin_loss_forward_out_frame")
    _check_long(target)

    listed = xp.cumprod(rows != -1, axis=1).astype(bool)   # before the row's first -1
    width = int(listed.sum(1).max()) if frames else 0       # the longest list of targets
    listed, labels = listed[:, :width], xp.where(listed, rows, 0)[:, :width]
    is_target = xp.zeros((frames, classes), dtype=bool)
    is_target[xp.nonzero(listed)[0], labels[listed]] = True
    scores = input.reshape(frames, classes)
    target_scores = scores.gather(1, _wrap(labels))                  # (N, targets)
    margins = 1 - target_scores.unsqueeze(2) + scores.unsqueeze(1)   # (N, targets, C)
    counted = (margins._data > 0) & listed[:, :, None] & ~is_target[:, None, :]
    terms = _F.where(counted, margins, 0.0)
    return _per_sample(terms.sum((1, 2)) / classes, input.dim() <= 1, reduction)


def _check_scores(input):
    """(samples, classes) of scores ``input``, which PyTorch takes as a non-empty vector
    or matrix (of rows of classes), or a scalar (one sample of one class)."""
    shape = tuple(input.shape)
    if not (len(shape) == 2 and shape[1] != 0 or len(shape) == 1 and shape[0] != 0
            or len(shape) == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(shape)}")
    if len(shape) == 2:
        return shape
    return 1, (shape[0] if shape else 1)


def _check_float_scores(input, kernel):
    if input.dtype not in _FLOATS:
        raise not_implemented_for(kernel, input.dtype)


def _check_long(target):
    if target.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(target.dtype)}")


def _per_sample(losses, one_scalar, reduction):
    """The (N,) losses reduced; ``one_scalar``: one sample's loss, as a 0-d tensor."""
    if one_scalar:
        losses = losses.reshape(())
    return _functional()._reduce(losses, reduction)
