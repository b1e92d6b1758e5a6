"""F.embedding_bag: sums, means or maxima of bags of embedding rows, as a composition.

The rows are looked up with ``embedding`` (whose backward scatters into the weight); a
(bags x positions) membership matrix then reduces them: one matmul for ``sum`` (scaled by
``per_sample_weights``) and ``mean``, a masked max for ``max``. Positions holding
``padding_idx`` belong to no bag (and do not count towards a mean); empty bags give zeros.

>>> F.embedding_bag(minigrad.tensor([1, 2, 4, 5]), minigrad.ones(10, 3),
...                 minigrad.tensor([0, 2]), mode="sum")
tensor([[2., 2., 2.],
        [2., 2., 2.]])
"""
import warnings

import numpy as np

from minigrad.creation import arange, tensor


def _flatten_bags(input, offsets, per_sample_weights, include_last_offset):
    """(1-d input, offsets, per_sample_weights, include_last_offset) as torch normalises."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        return input.reshape(-1), offsets, per_sample_weights, False
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input, offsets, per_sample_weights, include_last_offset
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                     f"{input.dim()}")


def _membership(indices, offsets, include_last_offset, padding_idx):
    """Bool (bags, positions): position i belongs to bag b (and is not padding)."""
    n = indices.size
    if offsets.size and offsets[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {offsets[0]}")
    if offsets.size and offsets[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                           f"offsets[-1] of {offsets[-1]}")
    # PyTorch's last bag runs to the end of the input even when include_last_offset's final
    # offset stops short of it
    starts = offsets[:-1] if include_last_offset else offsets
    ends = np.append(starts[1:], n)
    position = np.arange(n)
    member = (starts[:, None] <= position) & (position < ends[:, None])
    if padding_idx is not None:
        member &= indices != padding_idx
    return member


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Reduce bags of embedding rows, as ``torch.nn.functional.embedding_bag``."""
    from minigrad.nn import functional as F  # at call time: functional imports this module
    if weight.dtype.is_floating_point is False and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. "
                      "Usage `embedding_bag(weight, input, ...)` is deprecated, "
                      "and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    input, offsets, per_sample_weights, include_last_offset = _flatten_bags(
        input, offsets, per_sample_weights, include_last_offset)
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True): minigrad has no sparse "
                                  "gradients")
    if max_norm is not None:
        raise NotImplementedError("embedding_bag: max_norm renormalizes the weight in place, "
                                  "which minigrad does not support; renormalize the weight "
                                  "yourself under no_grad() and call embedding_bag without "
                                  "max_norm")
    # which bag each index belongs to, worked out on the host (on a GPU: a copy there)
    indices = np.asarray(input.detach().cpu().numpy())
    bounds = np.asarray(offsets.detach().cpu().numpy())
    member = _membership(indices, bounds, include_last_offset, padding_idx)
    rows = F.embedding(input, weight, None, None, norm_type, scale_grad_by_freq)
    device = weight.device
    if mode == "max":
        picked = rows.unsqueeze(0).expand(member.shape[0], *rows.shape)
        picked = picked.masked_fill(tensor(~member[:, :, None], device=device), float("-inf"))
        empty = tensor(~member.any(axis=1)[:, None], device=device)
        return picked.max(dim=1).values.masked_fill(empty, 0.0)
    weights = tensor(member, dtype=weight.dtype, device=device)
    if per_sample_weights is not None:
        weights = weights * per_sample_weights.unsqueeze(0)
    out = weights @ rows
    if mode == "mean":
        counts = np.maximum(member.sum(axis=1), 1)[:, None]
        out = out / tensor(counts, dtype=weight.dtype, device=device)
    return out
