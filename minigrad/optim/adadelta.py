"""Adadelta, with weight decay and maximize."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["Adadelta"]


class Adadelta(_PerParameterOptimizer):
    """Adadelta (Zeiler), PyTorch's update rule::

        v = rho * v + (1 - rho) * g * g
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta;  p = p - lr * delta

    >>> opt = minigrad.optim.Adadelta(model.parameters())
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        _check_differentiable(differentiable)
        super().__init__(params, defaults)

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["square_avg"] = _wrap(xp.zeros_like(p._data))
            state["acc_delta"] = _wrap(xp.zeros_like(p._data))
        _increment(state["step"])
        rho, eps = group["rho"], group["eps"]
        grad = -p.grad._data if group["maximize"] else p.grad._data
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p._data
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg._data *= rho
        square_avg._data += (1 - rho) * grad * grad
        std = xp.sqrt(square_avg._data + eps)
        delta = xp.sqrt(acc_delta._data + eps) / std * grad
        acc_delta._data *= rho
        acc_delta._data += (1 - rho) * delta * delta
        _bump(square_avg, acc_delta)
        p._data += -_scalar(group["lr"]) * delta
        _bump(p)
