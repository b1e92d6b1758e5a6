"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky), PyTorch's rule."""

from minigrad._array import namespace_of
from minigrad._tensor import _wrap
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import (
    _bump, _check_differentiable, _increment, _PerParameterOptimizer, _scalar, _step_tensor)

__all__ = ["ASGD"]


def _scalar_state(value):
    """A 0-d state tensor holding ``value`` in PyTorch's scalar dtype (float32, or
    float64 when that is the default), as ``eta`` and ``mu`` are kept."""
    t = _step_tensor()
    t._data[...] = value
    return t


class ASGD(_PerParameterOptimizer):
    """ASGD, PyTorch's update rule (eta and mu from the step before)::

        p = p * (1 - lambd * eta) - eta * g
        ax = ax + mu * (p - ax)            (ax = p while mu is 1)
        eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

    >>> opt = minigrad.optim.ASGD(model.parameters(), lr=0.01)
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_differentiable(differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p, group):
        xp = namespace_of(p._data)
        state = self.state[p]
        lr = _scalar(group["lr"])
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["eta"] = _scalar_state(lr)
            state["mu"] = _scalar_state(1.0)
            state["ax"] = _wrap(xp.zeros_like(p._data))
        grad = -p.grad._data if group["maximize"] else p.grad._data
        step = _increment(state["step"])
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p._data
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        eta_value = eta._data.item()
        p._data *= 1 - group["lambd"] * eta_value
        p._data += -eta_value * grad
        _bump(p)
        if mu._data.item() != 1:
            ax._data += (p._data - ax._data) * mu._data.item()
        else:
            ax._data[...] = p._data
        eta._data[...] = lr / ((1 + group["lambd"] * lr * step) ** group["alpha"])
        mu._data[...] = 1 / max(1, step - group["t0"])
        _bump(ax, eta, mu)
