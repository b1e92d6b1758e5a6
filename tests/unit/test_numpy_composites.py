"""numpy functions that minigrad builds from its ops (np.gradient, np.pad, np.dot on n-d, ...)
and scipy.special through numpy's dispatch: numpy's values, and gradients checked against
finite differences to second order."""
import warnings

import numpy as np
import pytest
import scipy.special

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)
A34 = RNG.uniform(0.5, 2.0, (3, 4))
CASES = {
    "gradient-axis": (lambda x: np.gradient(x, axis=1), [A34]),
    "gradient-coords-order2": (lambda x: np.gradient(x, 0.5, [0.0, 1.0, 3.0, 4.5], edge_order=2), [A34]),
    "pad-constant": (lambda x: np.pad(x, ((1, 2), (0, 3)), constant_values=4.0), [A34]),
    "pad-edge": (lambda x: np.pad(x, 2, mode="edge"), [A34]),
    "pad-wrap": (lambda x: np.pad(x, ((5, 1), (2, 6)), mode="wrap"), [A34]),
    "pad-reflect": (lambda x: np.pad(x, ((4, 1), (0, 7)), mode="reflect"), [A34]),
    "pad-symmetric": (lambda x: np.pad(x, 3, mode="symmetric"), [A34]),
    "rollaxis": (lambda x: np.rollaxis(x, 2, 1), [RNG.normal(size=(2, 3, 4))]),
    "repeat": (lambda x: np.repeat(x, [1, 0, 3], axis=0), [A34]),
    "repeat-flat": (lambda x: np.repeat(x, 2), [A34]),
    "split": (lambda x: np.split(x, [1, 3], axis=1), [A34]),
    "array_split": (lambda x: np.array_split(x, 3, axis=1), [A34]),
    "hsplit": (lambda x: np.hsplit(x, 2), [A34]),
    "cross-default-axis-3x3": (lambda a, b: np.cross(a, b), [RNG.normal(size=(3, 3)),
                                                             RNG.normal(size=(3, 3))]),
    "cross-axis0": (lambda a, b: np.cross(a, b, axis=0), [RNG.normal(size=(3, 2)),
                                                          RNG.normal(size=(3, 2))]),
    "dot-nd": (lambda a, b: np.dot(a, b), [RNG.normal(size=(2, 3, 4)), RNG.normal(size=(5, 4, 2))]),
    "dot-matrix-vector": (lambda a, b: np.dot(a, b), [A34, RNG.normal(size=4)]),
    "diff": (lambda x: np.diff(x, n=2, axis=0, prepend=0.0), [RNG.normal(size=(4, 3))]),
    "trapezoid": (lambda x: np.trapezoid(x, dx=0.5), [A34]),
    "sort": (lambda x: np.sort(x, axis=0), [A34]),
    "rot90": (lambda x: np.rot90(x, 3), [A34]),
    "stack-family": (lambda a, b: np.column_stack([a, b]) + np.hstack([a, b]).reshape(3, 2)[:, :1],
                     [RNG.normal(size=3), RNG.normal(size=3)]),
    "gammaln": (lambda x: scipy.special.gammaln(x), [A34]),
    "psi": (lambda x: scipy.special.psi(x), [A34]),
    "expit": (lambda x: scipy.special.expit(x), [A34]),
    "erfc": (lambda x: scipy.special.erfc(x), [A34]),
    "logit": (lambda x: scipy.special.logit(x), [A34 / 3]),
    "xlogy": (lambda x, y: scipy.special.xlogy(x, y), [A34, A34 + 1]),
}


def _flat(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_values_and_gradients(name):
    fn, arrays = CASES[name]
    tensors = [minigrad.tensor(a, requires_grad=True) for a in arrays]
    for ours, theirs in zip(_flat(fn(*tensors)), _flat(fn(*arrays))):
        assert isinstance(ours, minigrad.Tensor) and ours.grad_fn is not None
        np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=1e-12, atol=1e-12)

    def summed(*xs):  # one output that depends on every piece
        return sum((piece * (i + 1)).sum() for i, piece in enumerate(_flat(fn(*xs))))

    assert gradcheck(summed, tensors)
    assert gradgradcheck(summed, tensors)


def test_numpy_errors_are_numpys():
    x = minigrad.tensor(A34, requires_grad=True)
    with pytest.raises(ValueError, match="equal division"):
        np.split(x, 3, axis=1)
    with pytest.raises(ValueError, match="modes constant, edge, wrap, reflect and symmetric"):
        np.pad(x, 1, mode="linear_ramp")


@pytest.mark.parametrize("call, equivalent", [
    (lambda x: scipy.special.polygamma(1, x), "minigrad.special.polygamma"),
    (lambda x: scipy.special.logsumexp(x), "minigrad.logsumexp"),
])
def test_scipy_functions_that_cannot_dispatch_warn_and_name_the_equivalent(call, equivalent):
    x = minigrad.tensor(A34, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(x)
    messages = [str(w.message) for w in caught
                if issubclass(w.category, minigrad.autograd.GradientClogWarning)]
    assert messages and equivalent in messages[0], messages
