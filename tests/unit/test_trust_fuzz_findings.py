"""Regression tests for the differential fuzzer's findings (tools/fuzz.py, issue 10).

Each test runs a program under minigrad and, where installed, PyTorch, and checks
the same values, gradients, dtypes or exception under both.
"""
import warnings

import numpy as np
import pytest

import minigrad as mg

try:
    import torch
except ImportError:
    torch = None

LIBS = [pytest.param(mg, id="minigrad")] + ([pytest.param(torch, id="torch")] if torch else [])
INF, NAN = float("inf"), float("nan")


def f64(L, values, **kw):
    return L.tensor(values, dtype=L.float64, **kw)


# ------------------------------------------------------- silent inf and nan
@pytest.mark.parametrize("L", LIBS)
def test_arithmetic_on_inf_and_nan_warns_nothing(L):
    """inf - inf, inf * 0, sin(inf), a sum over inf and -inf: nan, silently."""
    x = f64(L, [INF, -INF, 0.0, NAN], requires_grad=True)
    y = f64(L, [INF, -INF, INF, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        outs = [x - y, x + x.flip(0), x * 0, x.sin(), x.cos(), x.sum(), x.cumsum(0),
                x.reshape(2, 2) @ y.reshape(2, 2), x.logsumexp(0), L.softmax(x, 0),
                L.addcmul(x, x, y, value=0.5), x.lerp(y, 0.3), x.prod(), x.var(), x.std()]
        loss = sum((o.sum() for o in outs), f64(L, 0.0))
        (g,) = L.autograd.grad(loss, x, create_graph=True)
        g.sum().backward()
    assert np.isnan(outs[0].detach().numpy()[0]) and np.isnan(outs[5].item())


# ------------------------------------------------ formulas at their edge points
def _first_and_second(L, fn, *values):
    """fn's value, gradient and Hessian-vector product (ones) at ``values``, as lists
    (None where the gradient has no graph)."""
    xs = [f64(L, v, requires_grad=True) for v in values]
    out = fn(L, *xs)
    grads = L.autograd.grad(out.sum(), xs, create_graph=True, allow_unused=True)
    first = [None if g is None else g.tolist() for g in grads]
    live = [g.sum() for g in grads if g is not None and g.requires_grad]
    second = None
    if live:
        second = [None if h is None else h.tolist()
                  for h in L.autograd.grad(sum(live), xs, allow_unused=True)]
    return out.tolist(), first, second


def _same(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    return bool(np.allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))  # inf's sign counts


EDGES = {
    # copysign at self == 0: gradient 0, and PyTorch's NaN second order there
    "copysign": (lambda L, x, y: x.copysign(y), [0.0, -0.0, 4.0, -2.0], [1.0, -1.0, -3.0, 0.0]),
    "copysign_self": (lambda L, x: x.copysign(x), [0.0, -0.0, 4.0, -2.0]),
    # a number exponent 0: a constant zero gradient (no NaN from 0 * x**-1 at 0)
    "pow_0": (lambda L, x: x ** 0, [0.0, -0.0, 2.0]),
    # -0.0 ** -0.5 is 1 / sqrt(-0.0) = -inf as PyTorch computes it
    "pow_half": (lambda L, x: x.pow(0.5), [0.0, -0.0, 4.0, -2.0]),
    "pow_minus_half": (lambda L, x: x ** -0.5, [0.0, -0.0, 4.0]),
    # norms at a zero slice: gradient 0, second order NaN as PyTorch's
    "norm_fro": (lambda L, x: x.norm(dim=0), [[0.0, 1.0, 0.0], [0.0, -2.0, 3.0]]),
    "norm_3": (lambda L, x: x.norm(p=3, dim=0), [[0.0, 1.0, 0.0], [0.0, -2.0, 3.0]]),
    "norm_1.5": (lambda L, x: x.norm(p=1.5, dim=1), [[0.0, 0.0, 0.0], [0.0, -2.0, 3.0]]),
    "norm_0.5": (lambda L, x: x.norm(p=0.5, dim=0), [[0.0, 1.0, 0.0], [0.0, -2.0, 3.0]]),
    "vector_norm": (lambda L, x: L.linalg.vector_norm(x, dim=1), [[0.0, 0.0], [3.0, 4.0]]),
    "matrix_norm": (lambda L, x: L.linalg.matrix_norm(x), [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]]),
    # sign(NaN) is 0 in PyTorch (numpy: NaN)
    "sign_nan": (lambda L, x: x.sign(), [NAN, -1.0, 0.0, 2.0]),
    # division by 0: PyTorch's -grad * (self / other / other), first and second order
    "div_by_zero": (lambda L, x, y: x / y, [1.0, 0.0, -1.0, 1.0, 3.0], [0.0, 0.0, -0.0, -0.0, 1e-200]),
    # tensor ** tensor at base 0: PyTorch selects after the log (NaN second order)
    "pow_tensor_base_0": (lambda L, x, y: x ** y, [0.0, 0.0, 2.0, -1.0, 0.0], [0.0, 2.0, 0.5, 2.0, -1.0]),
    "pow_number_base_0": (lambda L, y: 0.0 ** y, [0.0, 2.0, -1.0]),
    # var/std without degrees of freedom: PyTorch's inf/NaN factor, a constant (second order 0)
    "var_0d": (lambda L, x: x.var(), 1.5),
    "var_0d_dim": (lambda L, x: x.var(dim=0), 1.5),
    "var_single": (lambda L, x: x.var(), [2.0]),
    "var_correction": (lambda L, x: x.var(correction=3), [1.0, 2.0, 3.0]),
    "std_correction": (lambda L, x: x.std(correction=3), [1.0, 2.0, 3.0]),
    "var_dim_correction": (lambda L, x: x.var(dim=1, correction=3), [[1.0, 2.0, 3.0]]),
}


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_point_values_and_derivatives_match_torch(name):
    fn, *values = EDGES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # var/std: "degrees of freedom is <= 0"
        ours, theirs = _first_and_second(mg, fn, *values), _first_and_second(torch, fn, *values)
    for label, a, b in zip(("value", "gradient", "second order"), ours, theirs):
        assert _same(a, b), f"{name} {label}: minigrad {a} / torch {b}"
