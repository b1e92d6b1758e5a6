"""``torch.index_reduce`` / ``Tensor.index_reduce(_)``: reduce whole slices of ``source``
into ``self`` at ``index`` along ``dim``. It is ``scatter_reduce`` with ``index`` spread
over source's other dims, so values and gradients are scatter_reduce's (as in PyTorch,
whose index_reduce gradients are the same formulas)."""
from minigrad._tensor import Tensor
from minigrad.kernels.shape import _wrap_dim

_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce ``source[..., k, ...]`` into ``input[..., index[k], ...]`` along ``dim``."""
    if reduce not in _REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: Long and size: {list(index.shape)}")
    dim = _wrap_dim(dim, max(input.dim(), 1))
    if _others(input, dim) != _others(source, dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    view = [1] * source.dim()
    view[dim] = -1
    spread = index.reshape(view).expand(source.shape)
    return input.scatter_reduce(dim, spread, source, reduce, include_self=include_self)


def _others(t, dim):
    return [n for d, n in enumerate(t.shape) if d != dim]


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``: writes the result into self."""
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))


Tensor.index_reduce = index_reduce
Tensor.index_reduce_ = index_reduce_
