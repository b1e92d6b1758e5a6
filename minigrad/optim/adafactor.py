"""Adafactor (Shazeer & Stern): Adam-like steps whose second moment of a matrix is kept
factored (a row and a column average), PyTorch's variant of the rule."""
import numpy as np

from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad.optim.adam import _lerp_
from minigrad.optim.optimizer import (_bump, _increment, _PerParameterOptimizer, _scalar,
                                     _step_tensor)

__all__ = ["Adafactor"]


def _check_args(lr, beta2_decay, eps, d, weight_decay):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
    if not 0.0 >= beta2_decay:
        raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
    if eps[0] is not None and not 0.0 <= eps[0]:
        raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
    if not 0.0 <= eps[1]:
        raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
    if not 1.0 <= d:
        raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")


def _rms(xp, array):
    """||array||_2 / sqrt(numel) as a Python float."""
    return float(xp.sqrt((array.astype(np.float64) ** 2).sum())) / (array.size ** 0.5)


class Adafactor(_PerParameterOptimizer):
    """Adafactor as ``torch.optim.Adafactor``::

        beta2_t = 1 - t ** beta2_decay;  rho = min(lr, 1 / sqrt(t))
        alpha = max(eps2, RMS(p)) * rho
        v: the row and column means of g**2 (matrices) or g**2 itself, averaged with beta2_t
        u = g / sqrt(max(v, eps1**2));  p = p - alpha * u / max(1, RMS(u) / d)

    >>> opt = minigrad.optim.Adafactor(model.parameters(), lr=1e-2)
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        _check_args(lr, beta2_decay, eps, d, weight_decay)
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, p, state):
        xp = namespace_of(p._data)
        state["step"] = _step_tensor()
        shape = p.grad.shape
        if p.grad.dim() > 1:
            state["row_var"] = _wrap(xp.zeros(tuple(shape[:-1]) + (1,), p.grad._data.dtype))
            state["col_var"] = _wrap(xp.zeros(tuple(shape[:-2]) + (1, shape[-1]),
                                              p.grad._data.dtype))
        else:
            state["variance"] = _wrap(xp.zeros_like(p.grad._data))

    def _update(self, p, group):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        xp = namespace_of(p._data)
        state = self.state[p]
        if len(state) == 0:
            self._init_state(p, state)
        lr = _scalar(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(p._data.dtype).eps)
        grad = -p.grad._data if group["maximize"] else p.grad._data
        step = _increment(state["step"])
        beta2_t = step ** group["beta2_decay"]
        rho = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, _rms(xp, p._data)) * rho
        if group["weight_decay"] != 0:
            p._data *= 1 - lr * group["weight_decay"]
        variance = self._variance(xp, state, grad, beta2_t, eps1)
        update = 1 / xp.sqrt(xp.maximum(variance, eps1 * eps1)) * grad
        denom = max(1.0, _rms(xp, update) / group["d"])
        p._data += (-alpha / denom) * update
        _bump(p)

    @staticmethod
    def _variance(xp, state, grad, beta2_t, eps1):
        """The second-moment estimate: factored (row_var @ col_var / mean(row_var)) for a
        matrix, the running average of g**2 for a vector."""
        if grad.ndim > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            _lerp_(row_var._data, (grad * grad).sum(axis=-1, keepdims=True) / grad.shape[-1],
                   beta2_t)
            _lerp_(col_var._data, (grad * grad).sum(axis=-2, keepdims=True) / grad.shape[-2],
                   beta2_t)
            _bump(row_var, col_var)
            estimate = row_var._data @ col_var._data
            return estimate / xp.maximum(row_var._data.mean(axis=-2, keepdims=True), eps1)
        variance = state["variance"]
        _lerp_(variance._data, grad * grad, beta2_t)
        _bump(variance)
        return variance._data.copy()
