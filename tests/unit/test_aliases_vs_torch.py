"""PyTorch's other names for ops (torch.absolute, x.arctan2_ ...), the in-place
comparisons, clamp_min/clamp_max, broadcast_shapes/broadcast_tensors, against PyTorch."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error, torch_result_or_same_error

torch = pytest.importorskip("torch")

A = np.array([[3.0, -1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 5.0], [2.0, 2.0, 2.0, 7.0]])


def x(t, dtype=None):
    return t.tensor(A, dtype=dtype)


CALLS = {
    "absolute": lambda t: t.absolute(x(t)), "negative_": lambda t: x(t).negative_(),
    "arccos": lambda t: (x(t) / 10).arccos(), "arcsinh_": lambda t: x(t).arcsinh_(),
    "arctan2": lambda t: t.arctan2(x(t), x(t)[0] + 10),
    "multiply_": lambda t: x(t).multiply_(x(t)[1]),
    "divide_floor": lambda t: t.divide(x(t), 2, rounding_mode="floor"),
    "true_divide": lambda t: x(t, t.int64).true_divide(2),
    "subtract": lambda t: t.subtract(x(t), 1, alpha=2),
    "clamp_min": lambda t: t.clamp_min(x(t), 1.5), "clamp_max_": lambda t: x(t).clamp_max_(x(t)[1]),
    "gt_": lambda t: x(t).gt_(2), "le_tensor": lambda t: x(t, t.int64).le_(x(t)[0]),
    "not_equal_": lambda t: x(t).not_equal_(2.0),
    "broadcast_shapes": lambda t: t.broadcast_shapes((2, 3), (1,), (5, 1, 3), 3),
    "broadcast_tensors": lambda t: t.broadcast_tensors(x(t), x(t)[0], t.zeros(2, 1, 1))[2],
    "ndimension": lambda t: x(t).ndimension(),
    "is_signed": lambda t: [x(t, d).is_signed() for d in (t.float32, t.int64, t.uint8, t.bool)],
    "get_device": lambda t: x(t).get_device(),
    "is_sparse": lambda t: (x(t).is_sparse, x(t).is_quantized, x(t).is_meta),
}


@pytest.mark.parametrize("name", CALLS)
def test_same_as_torch(name):
    got, expected = CALLS[name](mg), CALLS[name](torch)
    if isinstance(expected, torch.Tensor):
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), expected.numpy())
    else:
        assert (tuple(got) if isinstance(got, tuple) else got) == \
            (tuple(expected) if isinstance(expected, tuple) else expected)


def test_alias_gradients_to_second_order():
    def grads(t):
        a = t.tensor(A / 10, requires_grad=True)
        y = t.arcsin(a) * t.multiply(a, a) + t.arctan2(a, a + 2).clamp_min(0.1)
        g, = t.autograd.grad(y.sum(), a, create_graph=True)
        return g, t.autograd.grad((g * g).sum(), a)[0]
    for got, expected in zip(grads(mg), grads(torch)):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)


ERRORS = {
    "shapes": lambda t: t.broadcast_shapes((2, 3), (4, 3)),
    "shapes_later": lambda t: t.broadcast_shapes((2, 3), (1,), (5, 1, 3), 7),
    "shapes_negative": lambda t: t.broadcast_shapes(-1),
    "tensors": lambda t: t.broadcast_tensors(t.zeros(2, 3), t.zeros(5, 1, 1), t.zeros(4)),
    "tensors_list": lambda t: t.broadcast_tensors([t.zeros(1)]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name], torch)


@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf")])
def test_dist(p):
    def build(t):
        a = t.tensor(A, requires_grad=True)
        out = t.dist(a, t.tensor(A[0]), p) + a.dist(t.tensor(A[::-1].copy()), p=p)
        return out, t.autograd.grad(out, a)[0]
    for got, expected in zip(build(mg), build(torch)):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("source", ["float32", "float64"])
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_vector_norm_dtype(source, dtype):
    def build(t):
        a = t.tensor(A, dtype=getattr(t, source), requires_grad=True)
        out = t.linalg.vector_norm(a, ord=3, dim=1, dtype=dtype and getattr(t, dtype))
        return out, t.autograd.grad(out.sum(), a)[0]
    expected = torch_result_or_same_error(build, torch, RuntimeError)
    if expected is None:
        return
    for g, e in zip(build(mg), expected):
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-6)
