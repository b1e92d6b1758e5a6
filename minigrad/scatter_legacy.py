"""``scatter(dim, index, src, reduce='add'|'multiply')`` and ``scatter_(..., reduce=...)``:
PyTorch's older reducing scatter (deprecated there for a Tensor ``src``, in favour of
``scatter_reduce``).  The values are ``scatter_reduce``'s ('sum' or 'prod', with
``self``'s own value); as in PyTorch the result has no derivative: its ``grad_fn`` is a
``NotImplemented`` node whose backward raises.  Without ``reduce`` these are the
generated ``scatter`` and ``scatter_``.
"""
import numbers
import warnings

from minigrad._generated import functions as _F
from minigrad.creation import full
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode
from minigrad.autograd.inplace import apply_inplace
from minigrad.autograd.node import Node, edge_of

__all__ = ["scatter"]

_REDUCTIONS = {"add": "sum", "multiply": "prod"}
_DEPRECATED = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be "
               "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
               "reduction options.")


class NotImplemented(Node):  # noqa: A001 - PyTorch's name for the node of an op without derivative
    """The ``grad_fn`` of a result whose op has no derivative: its backward raises."""

    __slots__ = ("op",)

    def __init__(self, edges, op):
        super().__init__(edges)
        self.op = op

    def apply(self, grads, create_graph):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


def scatter(input, dim, index, *args, reduce=None, **kwargs):
    """``input`` with ``src`` (a tensor or a number) written at ``index`` along ``dim``;
    with ``reduce``, added to ('add') or multiplied into ('multiply') what is there."""
    if reduce is None:
        return _F.scatter(input, dim, index, *args, **kwargs)
    return _reduced(input, dim, index, *args, reduce=reduce, name="scatter", **kwargs)


def scatter_(self, dim, index, *args, reduce=None, **kwargs):
    """In-place ``scatter``, with or without ``reduce``."""
    if reduce is None:
        return apply_inplace(self, _F.scatter, dim, index, *args, **kwargs)
    return apply_inplace(self, _reduced, dim, index, *args, reduce=reduce, name="scatter_",
                         **kwargs)


def _reduced(input, dim, index, *args, reduce, name, **kwargs):
    """``scatter`` with ``reduce``: scatter_reduce's values, a NotImplemented history."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    (src,) = args or [kwargs.pop("src", kwargs.pop("value", None))]
    if isinstance(src, Tensor):
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=3)
        values = src
    elif isinstance(src, numbers.Number):
        values = full(tuple(index.shape), src, dtype=input.dtype, device=input.device)
    else:
        raise TypeError(f"scatter(): argument 'src' must be Tensor or Number, not "
                        f"{type(src).__name__}")
    with grad_mode.no_grad():
        out = _F.scatter_reduce(input, dim, index, values, _REDUCTIONS[reduce])
    edges = (edge_of(input), edge_of(values))
    if not grad_mode.enabled or all(edge[0] is None for edge in edges):
        return out
    return _wrap(out._data, NotImplemented(edges, name))


Tensor.scatter = scatter
Tensor.scatter_ = scatter_
