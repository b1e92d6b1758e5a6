"""F.ctc_loss: the Connectionist Temporal Classification loss, as torch.nn.functional's.

The per-sample negative log-likelihood and its gradient are derivatives.yaml's
``_ctc_loss`` (the alpha and beta recursions of minigrad/kernels/ctc.py); this module
takes torch's arguments, checks them in torch's order, and reduces.

torch's gradient for ``log_probs`` is not the derivative of the loss with the log_probs
free: its kernel adds exp(log_probs) over each sample's frames, which is what the
derivative becomes once log_softmax's backward has run (softmax sums to 1), so it gives
the logits the same gradient.  To give ``log_probs.grad`` torch's values too, the loss
adds a term that is exactly 0 but whose gradient is that exp(log_probs) (docs/nn.md).

>>> log_probs = minigrad.randn(50, 16, 20).log_softmax(2).detach().requires_grad_()
>>> targets = minigrad.randint(1, 20, (16, 30))
>>> input_lengths = minigrad.full((16,), 50, dtype=minigrad.long)
>>> target_lengths = minigrad.randint(10, 30, (16,))
>>> F.ctc_loss(log_probs, targets, input_lengths, target_lengths).backward()
"""
import numpy as np

from minigrad._array import namespace_of, to_host
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad._value_reads import reads_values
from minigrad.kernels.core import on_device_of
from minigrad.nn._arguments import type_name

_SIGNATURES = (
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
    "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity "
    "= False)\n"
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss of ``log_probs`` (T, N, C), or (T, C) unbatched, for ``targets``
    padded (N, S) or concatenated (sum(target_lengths),).  The lengths are Tensors or
    tuples/lists of ints.  'mean' divides each loss by its target length (at least 1),
    then averages over the batch; ``zero_infinity`` zeroes infinite losses (targets too
    long for their inputs) and their gradients.

    >>> lp = minigrad.randn(8, 2, 5).log_softmax(2).requires_grad_()
    >>> F.ctc_loss(lp, minigrad.tensor([[1, 2, 2], [3, 4, 0]]), (8, 6), (3, 2)).backward()
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    reads_values("ctc_loss reads its targets and lengths (its loops depend on them)")
    inputs, lengths = _arguments(log_probs, targets, input_lengths, target_lengths)
    batched = log_probs.ndim == 3
    lp = log_probs if batched else _F.unsqueeze(log_probs, 1)
    labels = on_device_of(lp._data, _values(targets).astype(np.int64))
    nll, _ = _F._ctc_loss(lp, labels, inputs, lengths, blank, zero_infinity)
    losses = nll + _log_softmax_term(lp, inputs)
    if zero_infinity:
        losses = _F.where(nll == np.inf, 0.0, losses)
    if reduction == "mean":
        divisor = on_device_of(lp._data, np.maximum(np.asarray(lengths, lp.dtype), 1))
        losses = _F.mean(losses / divisor)
    elif reduction == "sum":
        losses = _F.sum(losses)
    return losses if batched else _F.squeeze(losses, 0)


def _log_softmax_term(log_probs, input_lengths):
    """0 per sample, with the gradient exp(log_probs) over the sample's frames: torch's
    kernel adds it to the derivative (module docstring)."""
    xp = namespace_of(log_probs._data)
    frames = xp.arange(log_probs.shape[0])[:, None] < xp.asarray(input_lengths)[None, :]
    e = _F.exp(log_probs)
    return _F.sum((e - e.detach()) * frames[:, :, None].astype(log_probs.dtype), (0, 2))


def _arguments(log_probs, targets, input_lengths, target_lengths):
    """The lengths as tuples of ints, after torch's argument parsing and its checks of them."""
    tensors = isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor)
    sequences = all(isinstance(v, (list, tuple)) for v in (input_lengths, target_lengths))
    if not (isinstance(log_probs, Tensor) and isinstance(targets, Tensor)
            and (tensors or sequences)):
        got = ", ".join([_type_name(v) for v in (log_probs, targets, input_lengths,
                                                 target_lengths)] + ["int", "int", "bool"])
        raise TypeError(f"ctc_loss() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{_SIGNATURES}")
    if not tensors:
        return tuple(int(v) for v in input_lengths), tuple(int(v) for v in target_lengths)
    for name, value in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if value.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
    return (tuple(int(v) for v in _values(input_lengths).reshape(-1).tolist()),
            tuple(int(v) for v in _values(target_lengths).reshape(-1).tolist()))


def _values(x):
    return to_host(x._data)


def _type_name(value):
    return "Tensor" if isinstance(value, Tensor) else type_name(value)
