"""Gradients AT the kinks, jumps and special points of the elementwise ops.

The generated gradchecks sample away from these points (finite differences are
meaningless there), so this file pins the value each op returns there: PyTorch's
convention.  Every case lists the expected gradients explicitly, so it means
something without torch; where torch is installed the same call is also run
through torch and compared.
"""
import math

import numpy as np
import pytest

import minigrad as mg

nan, inf = math.nan, math.inf

# (id, fn(module, *tensors), input values, expected gradient of out.sum() per input)
CASES = [
    ("abs-at-0", lambda m, x: m.abs(x), [[0.0, -1.5, 2.0]], [[0.0, -1.0, 1.0]]),
    ("sign-at-0", lambda m, x: m.sign(x), [[0.0, -1.5, 2.0]], [[0.0, 0.0, 0.0]]),
    ("floor-at-integers", lambda m, x: m.floor(x), [[0.0, 1.0, -2.0, 0.5]], [[0.0] * 4]),
    ("ceil-at-integers", lambda m, x: m.ceil(x), [[0.0, 1.0, -2.0, 0.5]], [[0.0] * 4]),
    ("round-at-halves", lambda m, x: m.round(x), [[0.5, 1.5, -2.5, 0.2]], [[0.0] * 4]),
    ("round-decimals-at-halves", lambda m, x: m.round(x, decimals=1), [[0.25, 0.15]], [[0.0, 0.0]]),
    ("trunc-at-integers", lambda m, x: m.trunc(x), [[0.0, 1.0, -2.0]], [[0.0] * 3]),
    ("frac-at-integers", lambda m, x: m.frac(x), [[0.0, 1.0, -2.0]], [[1.0] * 3]),
    # clamp's bounds are inclusive: x == min or x == max passes the gradient
    ("clamp-at-bounds", lambda m, x: m.clamp(x, -1.0, 1.0), [[-1.0, 1.0, 0.0, 2.0, -3.0]],
     [[1.0, 1.0, 1.0, 0.0, 0.0]]),
    ("clamp-min-only-at-bound", lambda m, x: m.clamp(x, min=0.0), [[0.0, -1.0, 1.0]], [[1.0, 0.0, 1.0]]),
    ("clamp-max-only-at-bound", lambda m, x: x.clamp(max=0.0), [[0.0, -1.0, 1.0]], [[1.0, 1.0, 0.0]]),
    ("clamp-min-above-max", lambda m, x: m.clamp(x, 1.0, -1.0), [[-2.0, 0.0, 2.0]], [[0.0, 0.0, 0.0]]),
    ("clip-at-bounds", lambda m, x: m.clip(x, -1.0, 1.0), [[-1.0, 1.0]], [[1.0, 1.0]]),
    # tensor bounds: at a bound self gets the gradient and the bound does not
    ("clamp-tensor-at-bounds", lambda m, x, lo, hi: m.clamp(x, lo, hi),
     [[-1.0, 1.0, 0.0, -2.0, 3.0], [-1.0, -1.0, -1.0, -1.0, -1.0], [1.0, 1.0, 1.0, 1.0, 1.0]],
     [[1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]]),
    # min == max: below it neither bound gets the gradient (min's needs min < max), as torch
    ("clamp-tensor-min-equals-max", lambda m, x, lo, hi: m.clamp(x, lo, hi),
     [[0.5, 0.0, 2.0], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],
     [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    ("clamp-tensor-min-above-max", lambda m, x, lo, hi: m.clamp(x, min=lo, max=hi),
     [[-2.0, 0.0, 2.0], [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]],
     [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]),
    ("clamp-tensor-broadcast-min", lambda m, x, lo: m.clamp(x, min=lo),
     [[[0.0, 1.0], [-1.0, 2.0]], [0.0, 1.5]], [[[1.0, 0.0], [0.0, 1.0]], [1.0, 1.0]]),
    # ties split the gradient evenly between maximum's / minimum's inputs
    ("maximum-tie", lambda m, x, y: m.maximum(x, y), [[1.0, 2.0, 0.0], [1.0, 1.0, 3.0]],
     [[0.5, 1.0, 0.0], [0.5, 0.0, 1.0]]),
    ("minimum-tie", lambda m, x, y: m.minimum(x, y), [[1.0, 2.0, 0.0], [1.0, 1.0, 3.0]],
     [[0.5, 0.0, 1.0], [0.5, 1.0, 0.0]]),
    ("max-other-tie", lambda m, x, y: m.max(x, y), [[1.0, 2.0], [1.0, 1.0]], [[0.5, 1.0], [0.5, 0.0]]),
    ("min-other-tie", lambda m, x, y: m.min(x, y), [[1.0, 2.0], [1.0, 1.0]], [[0.5, 0.0], [0.5, 1.0]]),
    ("maximum-nan", lambda m, x, y: m.maximum(x, y), [[nan, 1.0], [1.0, nan]], [[1.0, 1.0], [1.0, 1.0]]),
    ("maximum-tie-broadcast", lambda m, x, y: m.maximum(x, y), [[[1.0, 0.0], [1.0, 2.0]], [1.0, 0.0]],
     [[[0.5, 0.5], [0.5, 1.0]], [1.0, 0.5]]),
    # fmax / fmin: at a tie self gets everything; a NaN loses
    ("fmax-tie-and-nan", lambda m, x, y: m.fmax(x, y), [[1.0, nan, 2.0], [1.0, 0.5, nan]],
     [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]),
    ("fmin-tie-and-nan", lambda m, x, y: m.fmin(x, y), [[1.0, nan, 2.0], [1.0, 0.5, nan]],
     [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]),
    # pow at x == 0 (torch's pow_backward_self / pow_backward_exponent masks)
    ("pow-zero-base", lambda m, x, e: m.pow(x, e), [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 0.5]],
     [[0.0, 1.0, 0.0, inf], [0.0, 0.0, 0.0, 0.0]]),
    ("pow-zero-base-negative-exponent", lambda m, x, e: m.pow(x, e), [[0.0], [-1.0]], [[-inf], [-inf]]),
    ("pow-scalar-exponent-zero", lambda m, x: x ** 0, [[0.0, 2.0]], [[0.0, 0.0]]),
    ("pow-square-at-zero", lambda m, x: x ** 2, [[0.0, -1.0]], [[0.0, -2.0]]),
    ("float-power-zero-base", lambda m, x, e: m.float_power(x, e), [[0.0, 0.0], [0.0, 2.0]],
     [[0.0, 0.0], [0.0, 0.0]]),
    # copysign: the gradient of self is 0 at self == 0; other never gets one
    ("copysign-at-zero", lambda m, x, y: m.copysign(x, y), [[0.0, -2.0, 3.0], [-1.0, 1.0, -1.0]],
     [[0.0, -1.0, -1.0], [0.0, 0.0, 0.0]]),
    # xlogy: x == 0 and y <= 0 masks self's gradient
    ("xlogy-at-zero", lambda m, x, y: m.xlogy(x, y), [[0.0, 0.0, 1.0], [0.0, 2.0, 1.0]],
     [[0.0, math.log(2.0), 0.0], [nan, 0.0, 1.0]]),
    # remainder / fmod right at a jump: self's gradient is 1, other's -floor/-trunc(x/y)
    ("remainder-at-jump", lambda m, x, y: m.remainder(x, y), [[4.0, -3.0], [2.0, 2.0]],
     [[1.0, 1.0], [-2.0, 2.0]]),
    ("fmod-at-jump", lambda m, x, y: m.fmod(x, y), [[4.0, -3.0], [2.0, 2.0]],
     [[1.0, 1.0], [-2.0, 1.0]]),
    ("div-floor-and-trunc", lambda m, x, y: m.div(x, y, rounding_mode="floor") + m.div(x, y, rounding_mode="trunc"),
     [[3.0, -3.0], [2.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]]),
    ("sinc-at-zero", lambda m, x: m.sinc(x), [[0.0, 0.5]], [[0.0, -4.0 / math.pi]]),
    ("nan-to-num-nonfinite", lambda m, x: m.nan_to_num(x), [[nan, inf, -inf, 1.0]], [[0.0, 0.0, 0.0, 1.0]]),
    # logit's eps bounds are inclusive, like clamp's
    ("logit-eps-at-bound", lambda m, x: m.logit(x, eps=0.25), [[0.25, 0.75, 0.1, 0.5]],
     [[1 / (0.25 * 0.75), 1 / (0.25 * 0.75), 0.0, 4.0]]),
    ("logit-outside-domain", lambda m, x: m.logit(x), [[-0.5, 1.5, 0.5]], [[nan, nan, 4.0]]),
    ("relu-at-0", lambda m, x: m.relu(x), [[0.0, 1.0]], [[0.0, 1.0]]),
]


def _grads(m, fn, values, make):
    inputs = [make(v) for v in values]
    out = fn(m, *inputs)
    out.sum().backward()
    return [None if t.grad is None else np.asarray(t.grad.detach().numpy() if hasattr(t.grad, "detach")
                                                   else t.grad.numpy()) for t in inputs]


def _minigrad_grads(fn, values):
    return _grads(mg, fn, values, lambda v: mg.tensor(v, dtype=mg.float64, requires_grad=True))


@pytest.mark.parametrize("fn, values, expected", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_gradient_at_kink_is_torchs_convention(fn, values, expected):
    with np.errstate(all="ignore"):
        got = _minigrad_grads(fn, values)
    for g, e in zip(got, expected):
        assert g is not None
        np.testing.assert_allclose(g, np.array(e, dtype=np.float64), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn, values, expected", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_gradient_at_kink_matches_torch(fn, values, expected):
    torch = pytest.importorskip("torch")
    with np.errstate(all="ignore"):
        got = _minigrad_grads(fn, values)
    want = _grads(torch, fn, values,
                  lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True))
    for g, w in zip(got, want):
        w = np.zeros_like(g) if w is None else w  # torch leaves some zero grads undefined
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_step_functions_keep_the_graph_but_give_zero():
    x = mg.tensor([0.3, 1.7, -2.5], requires_grad=True)
    for op in (mg.floor, mg.ceil, mg.round, mg.trunc, mg.sign):
        (g,) = mg.autograd.grad(op(x).sum(), x)
        np.testing.assert_array_equal(g.numpy(), np.zeros(3))
