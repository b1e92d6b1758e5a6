"""Formula helpers for torch.special's functions (see formulas/__init__.py for the rules)."""
import math

import numpy as np

from minigrad.autograd.formulas.core import ops_for
from minigrad.autograd.formulas.elementwise import _array, _constant, _data


def not_implemented(what):
    """PyTorch's not_implemented(...) formula: the gradient of an input it has no formula
    for (igamma's `self`, zeta's `self`) raises when it is asked for, and only then."""
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


def _divided_by_x_grad(grad, x, result, lead, shift):
    """grad * (lead(x) - result * shift(x)), whose terms are 0/0 at x = 0, where the
    derivative's limit is 1/2: torch's i1_backward / i1e_backward, which replace |x| <= eps
    by eps inside and the slope by 0.5 there."""
    F = ops_for(x)
    eps = float(np.finfo(_array(x).dtype).eps) if _array(x).dtype.kind == "f" else 2.0 ** -52
    tiny = _constant(np.abs(_data(x)) <= eps, x)
    safe = F.where(tiny, eps, x)
    return grad * F.where(tiny, 0.5, lead(F, safe) - result * shift(F, safe))


def i1_grad(grad, x, result):
    """I1'(x) = I0(x) - I1(x) / x."""
    return _divided_by_x_grad(grad, x, result, lambda F, s: F.i0(s), lambda F, s: 1 / s)


def i1e_grad(grad, x, result):
    """(e^-|x| I1(x))' = e^-|x| I0(x) - e^-|x| I1(x) (sgn x + 1/x)."""
    return _divided_by_x_grad(grad, x, result, lambda F, s: F.special_i0e(s),
                              lambda F, s: F.sign(s) + 1 / s)


def xlog1py_grad_self(grad, x, y):
    """torch: xlog1py(grad, y), with 0 where x == 0 and y <= -1."""
    F = ops_for(grad)
    mask = (_data(x) == 0) & (_data(y) <= -1)
    d = F.special_xlog1py(grad, y)
    if not mask.any():
        return d
    return F.where(_constant(mask, grad), 0.0, d)


def mvlgamma_grad(grad, x, p):
    """torch's mvlgamma_backward: grad * sum_j digamma(x - j/2), j < p."""
    F = ops_for(x)
    total = F.digamma(x - (p - 1) / 2)
    for j in range(p - 2, -1, -1):
        total = total + F.digamma(x - j / 2)
    return grad * total


def igamma_grad_other(grad, a, x):
    """torch: grad * exp((a - 1) log x - x - lgamma(a)), the density of Gamma(a) at x.  A
    Python number `a` keeps a Python lgamma: a host array would not mix with a GPU one."""
    F = ops_for(grad)
    log_gamma = math.lgamma(a) if type(a) in (int, float) else F.lgamma(a)
    return grad * F.exp((a - 1) * F.log(x) - x - log_gamma)
