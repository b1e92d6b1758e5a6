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
