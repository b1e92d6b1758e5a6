"""At ties, max-like reductions route the gradient as PyTorch does.

amax / amin / max() / min() / median() / aminmax / norm(p=inf) over tied extrema split
the gradient evenly among them; max.dim / min.dim / cummax / cummin send all of it to
the index they return (cummax / cummin return the last of the tied ones).  Each case is
compared with torch when it is installed, and always with the values torch gives
(hard-coded here so the convention is pinned down without torch too).
"""
import numpy as np
import pytest

import minigrad
from minigrad import Tensor

TIED = [[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]]
TIED_LOW = [[1.0, -3.0, -3.0], [0.5, 0.5, 2.0]]

# (name, minigrad call, torch call, input, gradient torch gives for out.sum())
CASES = [
    ("amax-dim", lambda m, x: m.amax(x, -1), lambda t, x: t.amax(x, -1), TIED,
     [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]),
    ("amax-all", lambda m, x: m.amax(x), lambda t, x: t.amax(x), TIED,
     [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    ("amin-dim-keepdim", lambda m, x: m.amin(x, 1, True), lambda t, x: t.amin(x, 1, True), TIED_LOW,
     [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]),
    ("max-all", lambda m, x: m.max(x), lambda t, x: t.max(x), TIED,
     [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    ("min-all", lambda m, x: m.min(x), lambda t, x: t.min(x), TIED_LOW,
     [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    ("max-dim", lambda m, x: m.max(x, 1).values, lambda t, x: t.max(x, 1).values, TIED,
     [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    ("min-dim", lambda m, x: m.min(x, 1).values, lambda t, x: t.min(x, 1).values, TIED_LOW,
     [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    ("median-all", lambda m, x: m.median(x), lambda t, x: t.median(x), [[1.0, 2.0, 2.0, 3.0]],
     [[0.0, 0.5, 0.5, 0.0]]),
    ("aminmax-min", lambda m, x: m.aminmax(x, dim=1).min, lambda t, x: t.aminmax(x, dim=1).min,
     [[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 1.0, 1.0]], [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]),
    ("aminmax-max", lambda m, x: m.aminmax(x).max, lambda t, x: t.aminmax(x).max, TIED,
     [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    # the running extremum's index is the last of the tied ones
    ("cummax", lambda m, x: m.cummax(x, 1).values, lambda t, x: t.cummax(x, 1).values,
     [[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 1.0, 0.0]], [[1.0, 1.0, 2.0, 0.0], [1.0, 3.0, 0.0, 0.0]]),
    ("cummin", lambda m, x: m.cummin(x, 1).values, lambda t, x: t.cummin(x, 1).values,
     [[1.0, -3.0, -3.0, 2.0], [0.0, 0.0, 1.0, 2.0]], [[1.0, 1.0, 2.0, 0.0], [1.0, 3.0, 0.0, 0.0]]),
    ("norm-inf", lambda m, x: m.norm(x, float("inf"), 1), lambda t, x: t.norm(x, float("inf"), 1),
     [[1.0, -3.0, 3.0], [2.0, 2.0, 0.5]], [[0.0, -0.5, 0.5], [0.5, 0.5, 0.0]]),
]


def _minigrad_grad(call, values):
    x = Tensor(np.array(values)).requires_grad_()
    call(minigrad, x).sum().backward()
    return x.grad.detach().numpy()


@pytest.mark.parametrize("name, call, torch_call, values, expected", CASES, ids=[c[0] for c in CASES])
def test_tie_gradient_matches_pytorch_convention(name, call, torch_call, values, expected):
    np.testing.assert_allclose(_minigrad_grad(call, values), expected)


@pytest.mark.parametrize("name, call, torch_call, values, expected", CASES, ids=[c[0] for c in CASES])
def test_tie_gradient_matches_torch(name, call, torch_call, values, expected):
    torch = pytest.importorskip("torch")
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    torch_call(torch, x).sum().backward()
    np.testing.assert_allclose(_minigrad_grad(call, values), x.grad.numpy())


@pytest.mark.parametrize("op", ["max", "min"])
def test_dim_overload_sends_gradient_to_the_returned_index(op):
    values = TIED if op == "max" else TIED_LOW
    x = Tensor(np.array(values)).requires_grad_()
    out = getattr(minigrad, op)(x, 1)
    cotangent = np.array([2.0, -1.0])
    out.values.backward(Tensor(cotangent))
    expected = np.zeros((2, 3))
    expected[np.arange(2), out.indices.detach().numpy()] = cotangent
    np.testing.assert_allclose(x.grad.detach().numpy(), expected)
    np.testing.assert_array_equal(out.indices.detach().numpy(), [1, 0])  # the first of the tied ones
