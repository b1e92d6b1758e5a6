"""Rprop: per-element step sizes adapted from the signs of successive gradients."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["Rprop"]


class Rprop(_PerParameterOptimizer):
    """Resilient backpropagation, PyTorch's update rule: where the gradient kept its
    sign the step grows by ``etas[1]``, where it flipped it shrinks by ``etas[0]`` (and
    that element waits a step), clamped to ``step_sizes``; ``p -= sign(g) * step``.

    >>> opt = minigrad.optim.Rprop(model.parameters(), lr=1e-2)
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_differentiable(differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["prev"] = _wrap(xp.zeros_like(p._data))
            state["step_size"] = _wrap(xp.full_like(p.grad._data, _scalar(group["lr"])))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        grad = -p.grad._data if group["maximize"] else p.grad._data.copy()
        _increment(state["step"])
        prev, step_size = state["prev"], state["step_size"]
        sign = xp.sign(grad * prev._data)
        factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, 1.0))
        step_size._data *= factor.astype(step_size._data.dtype, copy=False)
        xp.clip(step_size._data, step_size_min, step_size_max, out=step_size._data)
        grad[sign < 0] = 0  # after a sign flip the element does not move this step
        p._data -= xp.sign(grad) * step_size._data
        prev._data[...] = grad
        _bump(p, prev, step_size)
