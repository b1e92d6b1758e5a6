"""Formula helpers for ctc_loss's derivatives (rules in __init__)."""
from minigrad.autograd.formulas.core import ops_for
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.kernels.ctc import ctc_loss_backward_array

__all__ = ["ctc_loss_grad", "ctc_loss_jvp"]


def ctc_loss_grad(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
                  log_alpha, blank, zero_infinity):
    """The beta recursion over arrays.  The entry is once_differentiable (torch has no
    double backward for it either), so this never sees Tensors: under create_graph the
    node computes it over arrays and marks the result as not differentiable again."""
    return ctc_loss_backward_array(grad, log_probs, targets, input_lengths, target_lengths,
                                   neg_log_likelihood, log_alpha, blank, zero_infinity)


def ctc_loss_jvp(log_probs_t, log_probs, targets, input_lengths, target_lengths,
                 neg_log_likelihood, log_alpha, blank, zero_infinity):
    """Each sample's loss depends on its own column of log_probs: its tangent is the
    tangent times that sample's gradient, summed over frames and classes.  The gradient
    is a constant here (computed from the primal values), so this is first order only:
    a graph recorded through it (reverse over forward) would miss its dependence on the
    primal, so that raises, as double backward does."""
    if getattr(log_probs, "requires_grad", False) and is_grad_enabled():
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")
    values = [getattr(v, "_data", v) for v in (log_probs, targets, neg_log_likelihood,
                                               log_alpha)]
    ones = values[2] * 0 + 1
    gradient = ctc_loss_backward_array(ones, values[0], values[1], input_lengths,
                                       target_lengths, values[2], values[3], blank,
                                       zero_infinity)
    return ops_for(log_probs_t).sum(log_probs_t * gradient, (0, 2))
