"""Connectionist Temporal Classification: the alpha (forward) and beta (backward)
recursions in log space, as PyTorch's CPU kernel computes them.

Each sample's target l (length S) is extended with blanks, l' = (b, l1, b, l2, ..., b) of
length 2S+1.  alpha[t, s] is the log-probability of all alignments of the first t+1 frames
ending in l'[s]; the loss is -log(alpha[T-1, 2S] + alpha[T-1, 2S-1]).  Both recursions are
vectorized over the batch and the positions of l' and loop over time only.

``log_probs`` is (T, N, C); ``targets`` padded (N, S_max) or concatenated (sum of the
target lengths,); the lengths are tuples of ints.
"""
import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import scalar_type_name

__all__ = ["ctc_loss_array", "ctc_loss_backward_array"]

_WHERE = "(while checking arguments for ctc_loss_allocate_outputs)"


def ctc_loss_array(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """(negative log-likelihood per sample (N,), log_alpha (T, N, 2 S_max + 1)).

    ``zero_infinity`` is applied by the caller (nn.functional.ctc_loss), as torch does."""
    _check_arguments(log_probs, targets, input_lengths, target_lengths, blank)
    xp = namespace_of(log_probs)
    lengths, target_lens = _lengths(xp, input_lengths, target_lengths)
    ext = _extended_labels(xp, targets, target_lens, blank)
    lp_ext = _gather_labels(xp, log_probs, ext)
    skip = _can_skip(xp, ext)
    neg_inf = -xp.inf
    T, N, L = lp_ext.shape
    alpha = xp.full((T, N, L), neg_inf, dtype=log_probs.dtype)
    alpha[0, :, 0] = lp_ext[0, :, 0]
    if L > 1:  # the first label, for targets that have one
        alpha[0, :, 1] = xp.where(target_lens > 0, lp_ext[0, :, 1], neg_inf)
    for t in range(1, T):
        prev = alpha[t - 1]
        from_one = _shift_right(xp, prev, 1)
        from_two = xp.where(skip, _shift_right(xp, prev, 2), neg_inf)
        alpha[t] = xp.logaddexp(xp.logaddexp(prev, from_one), from_two) + lp_ext[t]
    last = alpha[xp.maximum(lengths - 1, 0), xp.arange(N)]            # (N, L)
    end = _take(xp, last, 2 * target_lens)
    before = xp.where(target_lens > 0, _take(xp, last, 2 * target_lens - 1), neg_inf)
    nll = -xp.logaddexp(end, before)
    # no frames: the empty target has probability 1 (torch's loss is -0.0), others 0
    nll = xp.where(lengths == 0, xp.where(target_lens == 0, -0.0, xp.inf), nll)
    return nll.astype(log_probs.dtype), alpha


def ctc_loss_backward_array(grad, log_probs, targets, input_lengths, target_lengths, nll,
                            log_alpha, blank, zero_infinity):
    """d (sum_n grad[n] * nll[n]) / d log_probs, the log_probs free (not normalized).

    The frames past a sample's input length get 0; an impossible alignment (infinite
    loss) gets NaN over its frames, or 0 with ``zero_infinity``, as torch."""
    xp = namespace_of(log_probs)
    lengths, target_lens = _lengths(xp, input_lengths, target_lengths)
    ext = _extended_labels(xp, targets, target_lens, blank)
    log_beta = _log_beta(xp, _gather_labels(xp, log_probs, ext), _can_skip(xp, ext),
                         lengths, target_lens)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # log of the summed alpha * beta of the positions of l' that hold each class
        log_ab = log_alpha + log_beta                                  # (T, N, L)
        top = xp.max(log_ab, axis=2, keepdims=True)
        top = xp.where(xp.isfinite(top), top, 0)
        one_hot = (ext[:, :, None] == xp.arange(log_probs.shape[2])).astype(log_probs.dtype)
        # (N, T, L) @ (N, L, C): a batched matmul, not einsum's loop
        summed = xp.matmul(xp.exp(log_ab - top).transpose(1, 0, 2), one_hot).transpose(1, 0, 2)
        log_class = xp.log(summed) + top
        out = -xp.exp(log_class + nll[None, :, None] - log_probs)
    frames = xp.arange(log_probs.shape[0])[:, None] < lengths[None, :]   # (T, N)
    keep = frames if not zero_infinity else frames & ~xp.isinf(nll)[None, :]
    out = xp.where(keep[:, :, None], out * grad[None, :, None], 0)
    return out.astype(log_probs.dtype)


def _log_beta(xp, lp_ext, skip, lengths, target_lens):
    """beta[t, s]: log-probability of the frames t .. T_n-1 given l'[s] at frame t."""
    T, N, L = lp_ext.shape
    neg_inf = -xp.inf
    positions = xp.arange(L)[None, :]
    ends = (positions == 2 * target_lens[:, None]) | \
           ((positions == 2 * target_lens[:, None] - 1) & (target_lens[:, None] > 0))
    skip_from = _shift_left(xp, skip, 2, False)   # s -> s + 2 allowed where l'[s + 2] may skip
    beta = xp.full((T, N, L), neg_inf, dtype=lp_ext.dtype)
    following = xp.full((N, L), neg_inf, dtype=lp_ext.dtype)
    for t in range(T - 1, -1, -1):
        to_two = xp.where(skip_from, _shift_left(xp, following, 2, neg_inf), neg_inf)
        step = xp.logaddexp(xp.logaddexp(following, _shift_left(xp, following, 1, neg_inf)),
                            to_two) + lp_ext[t]
        start = xp.where(ends, lp_ext[t], neg_inf)
        last = (lengths == t + 1)[:, None]
        inside = (lengths > t + 1)[:, None]
        beta[t] = xp.where(last, start, xp.where(inside, step, neg_inf))
        following = beta[t]
    return beta


def _check_arguments(log_probs, targets, input_lengths, target_lengths, blank):
    """torch's checks, in its order, with its messages."""
    if log_probs.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if log_probs.dtype.kind != "f" or log_probs.dtype == np.float16:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{scalar_type_name(log_probs.dtype)}'")
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                           f"tensor for argument #1 'log_probs' {_WHERE}")
    if targets.ndim not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets' {_WHERE}")
    _, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    _check_values("target_lengths", target_lengths, "least", 0)
    _check_target_size(targets, target_lengths, batch)
    _check_values("input_lengths", input_lengths, "least", 0)
    _check_values("input_lengths", input_lengths, "most", log_probs.shape[0])
    _check_target_values(targets, target_lengths, classes)


def _check_values(name, values, bound, limit):
    for v in values:
        if (v < limit) if bound == "least" else (v > limit):
            raise RuntimeError(f"Expected {name} to have value at {bound} {limit}, but got value "
                               f"{v} {_WHERE}")


def _check_target_size(targets, target_lengths, batch):
    if targets.ndim == 1:
        dim, expected = 0, sum(target_lengths)
    elif targets.shape[0] != batch:
        dim, expected = 0, batch
    else:
        longest = max(target_lengths, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                               f"but got size {targets.shape[1]} for argument #2 'targets' "
                               f"{_WHERE}")
        return
    if targets.shape[dim] != expected:
        raise RuntimeError(f"Expected tensor to have size {expected} at dimension {dim}, but got "
                           f"size {targets.shape[dim]} for argument #2 'targets' {_WHERE}")


def _check_target_values(targets, target_lengths, classes):
    """torch's CPU kernel reads out of bounds here (no check); an error is kinder."""
    xp = namespace_of(targets)
    labels = _padded(xp, targets, _int64(xp, target_lengths), 0)
    if labels.size and bool(xp.any((labels < 0) | (labels >= classes))):
        bad = int(labels[(labels < 0) | (labels >= classes)][0])
        raise IndexError(f"ctc_loss: target {bad} is out of bounds for {classes} classes")


def _lengths(xp, input_lengths, target_lengths):
    return _int64(xp, input_lengths), _int64(xp, target_lengths)


def _int64(xp, values):
    return xp.asarray(values, dtype=np.int64).reshape(-1)


def _padded(xp, targets, target_lens, fill):
    """(N, S_max) labels, ``fill`` past each target's length (concatenated targets split)."""
    longest = int(target_lens.max()) if target_lens.size else 0
    within = xp.arange(longest)[None, :] < target_lens[:, None]
    if targets.ndim == 2:
        labels = targets[:, :longest]
    else:
        starts = xp.cumsum(target_lens) - target_lens
        index = xp.minimum(starts[:, None] + xp.arange(longest)[None, :],
                           max(targets.shape[0] - 1, 0))
        labels = targets[index] if targets.shape[0] else xp.zeros(index.shape, np.int64)
    return xp.where(within, labels.astype(np.int64), fill)


def _extended_labels(xp, targets, target_lens, blank):
    """l' for each sample, (N, 2 S_max + 1): blanks at even positions, labels at odd ones."""
    labels = _padded(xp, targets, target_lens, blank)
    ext = xp.full((labels.shape[0], 2 * labels.shape[1] + 1), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    return ext


def _gather_labels(xp, log_probs, ext):
    """log_probs[t, n, l'[n, s]]: (T, N, L)."""
    return log_probs[:, xp.arange(ext.shape[0])[:, None], ext]


def _can_skip(xp, ext):
    """Whether position s may be reached from s - 2: a label unlike the previous label."""
    skip = xp.zeros(ext.shape, dtype=bool)
    skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    skip[:, 0::2] = False
    return skip


def _shift_right(xp, values, k):
    out = xp.full(values.shape, -xp.inf, dtype=values.dtype)
    out[:, k:] = values[:, :max(values.shape[1] - k, 0)]
    return out


def _shift_left(xp, values, k, fill):
    out = xp.full(values.shape, fill, dtype=values.dtype)
    out[:, :max(values.shape[1] - k, 0)] = values[:, k:]
    return out


def _take(xp, rows, columns):
    return rows[xp.arange(rows.shape[0]), columns]
