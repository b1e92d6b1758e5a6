"""Adam and AdamW (Adam with decoupled weight decay), with AMSGrad and maximize."""

from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad.optim._checks import check_adam_args
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["Adam", "AdamW"]


class Adam(_PerParameterOptimizer):
    """Adam (Kingma & Ba), PyTorch's update rule::

        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    ``weight_decay`` adds ``weight_decay * p`` to the gradient (L2), or with
    ``decoupled_weight_decay=True`` (AdamW) shrinks ``p`` by ``1 - lr * weight_decay``.

    >>> opt = minigrad.optim.Adam(model.parameters(), lr=1e-3)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=tuple(_scalar(b) for b in betas), eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        _check_differentiable(differentiable)
        super().__init__(params, defaults)

    def _state(self, p, amsgrad):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["exp_avg"] = _wrap(xp.zeros_like(p._data))
            state["exp_avg_sq"] = _wrap(xp.zeros_like(p._data))
            if amsgrad:
                state["max_exp_avg_sq"] = _wrap(xp.zeros_like(p._data))
        return state

    def _update(self, p, group):
        xp = namespace_of(p._data)
        lr, (beta1, beta2) = _scalar(group["lr"]), group["betas"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        state = self._state(p, amsgrad)
        grad = -p.grad._data if group["maximize"] else p.grad._data
        step = _increment(state["step"])
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * p._data
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(exp_avg._data, grad, 1 - beta1)
        exp_avg_sq._data *= beta2
        exp_avg_sq._data += (1 - beta2) * grad * grad
        _bump(exp_avg, exp_avg_sq)
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        second = exp_avg_sq
        if amsgrad:
            second = state["max_exp_avg_sq"]
            xp.maximum(second._data, exp_avg_sq._data, out=second._data)
            _bump(second)
        denom = xp.sqrt(second._data) / bias_correction2_sqrt + group["eps"]
        p._data += -step_size * (exp_avg._data / denom)
        _bump(p)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * weight_decay``
    before the Adam step; ``weight_decay`` defaults to 1e-2.

    >>> opt = minigrad.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def _lerp_(start, end, weight):
    """``start += weight * (end - start)`` in place, with PyTorch's two-sided formula
    (from the nearer end) so results agree to the last bit."""
    if weight < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1 - weight)
