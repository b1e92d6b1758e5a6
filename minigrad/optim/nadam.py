"""NAdam: Adam with Nesterov momentum (and momentum decay)."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_adam_args
from minigrad.optim.adam import _lerp_
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["NAdam"]


class NAdam(_PerParameterOptimizer):
    """NAdam (Dozat), PyTorch's update rule::

        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay));  prod = prod * mu_t
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        d = sqrt(v / (1 - beta2**t)) + eps
        p = p - lr * (1 - mu_t) / (1 - prod) * g / d
              - lr * mu_{t+1} / (1 - prod * mu_{t+1}) * m / d

    ``prod`` is kept in ``state["mu_product"]`` as a scalar tensor of the step's dtype,
    as in PyTorch.

    >>> opt = minigrad.optim.NAdam(model.parameters(), lr=2e-3)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["mu_product"] = _step_tensor()
            state["mu_product"]._data[...] = 1.0
            state["exp_avg"] = _wrap(xp.zeros_like(p._data))
            state["exp_avg_sq"] = _wrap(xp.zeros_like(p._data))
        lr, (beta1, beta2) = _scalar(group["lr"]), group["betas"]
        grad = -p.grad._data if group["maximize"] else p.grad._data
        step = _increment(state["step"])
        bias_correction2 = 1 - beta2 ** step
        if group["weight_decay"] != 0:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * group["weight_decay"]
            else:
                grad = grad + group["weight_decay"] * p._data
        momentum_decay = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]
        mu_product._data *= mu  # in the scalar dtype, rounding as PyTorch's does
        _bump(mu_product)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(exp_avg._data, grad, 1 - beta1)
        exp_avg_sq._data *= beta2
        exp_avg_sq._data += (1 - beta2) * grad * grad
        _bump(exp_avg, exp_avg_sq)
        denom = xp.sqrt(exp_avg_sq._data / bias_correction2) + group["eps"]
        product = mu_product._data.item()
        p._data += (-lr * (1.0 - mu) / (1.0 - product)) * (grad / denom)
        p._data += ((-lr * mu_next) / (1.0 - product * mu_next)) * (exp_avg._data / denom)
        _bump(p)
