"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize."""
from minigrad._tensor import _wrap
from minigrad.optim._axpy import add_scaled_
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import (
    Optimizer, _bump, _check_differentiable, _evaluate, _no_grad_step, _scalar)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum), PyTorch's update rule::

        g = grad + weight_decay * p
        buf = momentum * buf + (1 - dampening) * g      (buf = g on the first step)
        g = g + momentum * buf if nesterov else buf
        p = p - lr * g

    >>> opt = minigrad.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> loss = (w * w).sum(); opt.zero_grad(); loss.backward(); opt.step()
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        _check_differentiable(differentiable)
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = _evaluate(closure)
        for group in self.param_groups:
            lr, momentum = _scalar(group["lr"]), group["momentum"]
            plain = momentum == 0 and group["weight_decay"] == 0 and not group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if plain:  # p -= lr * grad, _update's work for it without its calls
                    add_scaled_(p._data, grad._data, -lr)
                    p._version_counter[0] += 1   # (_bump(p))
                else:
                    self._update(p, grad._data, group, lr, momentum)
        return loss

    def _update(self, p, grad, group, lr, momentum):
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p._data
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = _wrap(grad.copy())  # on p's device
            else:
                buf._data *= momentum
                add_scaled_(buf._data, grad, 1 - group["dampening"])
                _bump(buf)
            grad = grad + momentum * buf._data if group["nesterov"] else buf._data
        add_scaled_(p._data, grad, -lr)   # (one pass: _axpy.py)
        _bump(p)
