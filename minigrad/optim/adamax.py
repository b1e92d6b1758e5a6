"""Adamax: Adam with the infinity norm."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_adam_args
from minigrad.optim.adam import _lerp_
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["Adamax"]


class Adamax(_PerParameterOptimizer):
    """Adamax (Kingma & Ba), PyTorch's update rule::

        m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps)
        p = p - lr / (1 - beta1**t) * m / u

    >>> opt = minigrad.optim.Adamax(model.parameters(), lr=2e-3)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        _check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["exp_avg"] = _wrap(xp.zeros_like(p._data))
            state["exp_inf"] = _wrap(xp.zeros_like(p._data))
        beta1, beta2 = group["betas"]
        grad = -p.grad._data if group["maximize"] else p.grad._data
        step = _increment(state["step"])
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p._data
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        _lerp_(exp_avg._data, grad, 1 - beta1)
        exp_inf._data *= beta2
        xp.maximum(exp_inf._data, xp.abs(grad) + group["eps"], out=exp_inf._data)
        _bump(exp_avg, exp_inf)
        clr = _scalar(group["lr"]) / (1 - beta1 ** step)
        p._data += -clr * (exp_avg._data / exp_inf._data)
        _bump(p)
