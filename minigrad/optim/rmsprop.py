"""RMSprop, with momentum, centering, weight decay and maximize."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim.adam import _lerp_
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["RMSprop"]


class RMSprop(_PerParameterOptimizer):
    """RMSprop (Hinton), PyTorch's update rule::

        v = alpha * v + (1 - alpha) * g * g
        avg = sqrt(v - gbar**2) (centered, gbar = lerp(gbar, g, 1 - alpha)) or sqrt(v)
        buf = momentum * buf + g / (avg + eps);  p = p - lr * buf  (momentum > 0)
        p = p - lr * g / (avg + eps)                                 (otherwise)

    >>> opt = minigrad.optim.RMSprop(model.parameters(), lr=1e-2, centered=True)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        _check_differentiable(differentiable)
        super().__init__(params, defaults)

    def _state(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["square_avg"] = _wrap(xp.zeros_like(p._data))
            if group["momentum"] > 0:
                state["momentum_buffer"] = _wrap(xp.zeros_like(p._data))
            if group["centered"]:
                state["grad_avg"] = _wrap(xp.zeros_like(p._data))
        return state

    def _update(self, p, group):
        xp = namespace_of(p._data)
        lr, alpha, momentum = _scalar(group["lr"]), group["alpha"], group["momentum"]
        state = self._state(p, group)
        grad = -p.grad._data if group["maximize"] else p.grad._data
        _increment(state["step"])
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p._data
        square_avg = state["square_avg"]
        square_avg._data *= alpha
        square_avg._data += (1 - alpha) * grad * grad
        _bump(square_avg)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            _lerp_(grad_avg._data, grad, 1 - alpha)
            _bump(grad_avg)
            avg = xp.sqrt(square_avg._data - grad_avg._data * grad_avg._data)
        else:
            avg = xp.sqrt(square_avg._data)
        avg += group["eps"]
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf._data *= momentum
            buf._data += grad / avg
            _bump(buf)
            p._data += -lr * buf._data
        else:
            p._data += -lr * (grad / avg)
        _bump(p)
