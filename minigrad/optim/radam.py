"""RAdam: Adam with the variance of the adaptive learning rate rectified."""
import math


from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_adam_args
from minigrad.optim.adam import _lerp_
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["RAdam"]


class RAdam(_PerParameterOptimizer):
    """RAdam (Liu et al.), PyTorch's update rule: Adam's step scaled by the rectification
    ``r_t`` once the approximated SMA length ``rho_t`` exceeds 5, plain momentum SGD on
    the bias-corrected average before that.

    >>> opt = minigrad.optim.RAdam(model.parameters(), lr=1e-3)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        _check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["exp_avg"] = _wrap(xp.zeros_like(p._data))
            state["exp_avg_sq"] = _wrap(xp.zeros_like(p._data))
        lr, (beta1, beta2) = _scalar(group["lr"]), group["betas"]
        grad = -p.grad._data if group["maximize"] else p.grad._data
        step = _increment(state["step"])
        if group["weight_decay"] != 0:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * group["weight_decay"]
            else:
                grad = grad + group["weight_decay"] * p._data
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(exp_avg._data, grad, 1 - beta1)
        exp_avg_sq._data *= beta2
        exp_avg_sq._data += (1 - beta2) * grad * grad
        _bump(exp_avg, exp_avg_sq)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg._data / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            adaptive = (bias_correction2 ** 0.5) / (xp.sqrt(exp_avg_sq._data) + group["eps"])
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p._data -= corrected * lr * adaptive * rect
        else:
            p._data -= corrected * lr
        _bump(p)
