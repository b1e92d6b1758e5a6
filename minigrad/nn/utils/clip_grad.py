"""clip_grad_norm_ and clip_grad_value_, as torch.nn.utils, and the two halves of
clip_grad_norm_ that torch also exposes: get_total_norm and clip_grads_with_norm_.

>>> total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)   # doctest: +SKIP
"""
import math

from minigrad.nn import _ops
from minigrad._tensor import Tensor
from minigrad.autograd.grad_mode import no_grad


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The joint ``norm_type``-norm of ``tensors`` (typically gradients), a 0-d tensor."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _ops.tensor(0.0)
    norms = [_ops.vector_norm(t, norm_type) for t in tensors]
    total_norm = _ops.vector_norm(_ops.stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients in place by ``max_norm / total_norm`` where that is below 1."""
    grads = _grads(parameters)
    if not grads:
        return
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = _ops.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale all gradients in place so that their joint norm is at most ``max_norm``;
    returns the total norm before clipping (a 0-d tensor)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)   # (read twice: a generator would be spent)
    total_norm = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total_norm)
    return total_norm


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)
