"""Adagrad, with learning-rate decay, weight decay and maximize."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["Adagrad"]


class Adagrad(_PerParameterOptimizer):
    """Adagrad (Duchi et al.), PyTorch's update rule::

        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g;  p = p - clr * g / (sqrt(s) + eps)

    The sum starts at ``initial_accumulator_value``; the state exists from construction.

    >>> opt = minigrad.optim.Adagrad(model.parameters(), lr=1e-2)
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        _check_differentiable(differentiable)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _step_tensor()
                state["sum"] = _wrap(namespace_of(p._data).full_like(p._data, initial_accumulator_value))

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        step = _increment(state["step"])
        grad = -p.grad._data if group["maximize"] else p.grad._data
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p._data
        clr = _scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"]
        state_sum._data += grad * grad
        _bump(state_sum)
        std = xp.sqrt(state_sum._data) + group["eps"]
        p._data += -clr * (grad / std)
        _bump(p)
