"""Edges of the shape and running ops against PyTorch: cumsum's integer dtype, cummax
with NaNs, tensor_split by a tensor, repeat_interleave's repeats-only call and errors,
and the refusals of flip, repeat, expand and split."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

A = np.array([[3.0, -1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 5.0], [2.0, 2.0, 2.0, 7.0]])
NANS = [1.0, float("nan"), 3.0, float("nan"), 0.0]


def x(t):
    return t.tensor(A)


def _as_list(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


CALLS = {
    "cumsum_uint8": lambda t: x(t).to(t.uint8).cumsum(1),
    "cumsum_int16": lambda t: x(t).to(t.int16).cumsum(0),
    "cumsum_uint8_dtype": lambda t: x(t).to(t.uint8).cumsum(1, dtype=t.uint8),
    "cumprod_bool": lambda t: (x(t) > 0).cumprod(1),
    "cummax_nan": lambda t: t.tensor(NANS).cummax(0),
    "cummin_nan": lambda t: t.tensor(NANS).cummin(0),
    "tensor_split_0d": lambda t: x(t).tensor_split(t.tensor(3), dim=1),
    "tensor_split_1d": lambda t: t.tensor_split(x(t), t.tensor([1, 3]), dim=1),
    "repeat_interleave_indices": lambda t: t.repeat_interleave(t.tensor([2, 0, 3])),
    "repeat_interleave_int32": lambda t: t.repeat_interleave(t.tensor([2, 1], dtype=t.int32)),
    "repeat_interleave_one": lambda t: x(t).repeat_interleave(t.tensor([3]), dim=0),
    "expand_trailing": lambda t: x(t).expand(2, -1, -1),
}


@pytest.mark.parametrize("name", CALLS)
def test_values(name):
    for got, expected in zip(_as_list(CALLS[name](mg)), _as_list(CALLS[name](torch))):
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_cummax_gradient_with_nans():
    def grad(t):
        a = t.tensor(NANS, requires_grad=True)
        a.cummax(0)[0].backward(t.arange(5.0).double())
        return a.grad
    np.testing.assert_array_equal(grad(mg).numpy(), grad(torch).numpy())


ERRORS = {
    "flip_repeated": lambda t: x(t).flip([0, -2]),
    "repeat_negative": lambda t: x(t).repeat(2, -1, 1),
    "expand_leading_minus_one": lambda t: x(t).expand(-1, -1, -1),
    "expand_checks_last_dims_first": lambda t: x(t).expand(-1, 4, 4),
    "split_sizes": lambda t: x(t).split([1, 2], dim=1),
    "tensor_split_2d": lambda t: x(t).tensor_split(t.tensor([[1]]), dim=1),
    "tensor_split_float": lambda t: x(t).tensor_split(t.tensor([1.0]), dim=1),
    "ri_2d": lambda t: x(t).repeat_interleave(t.tensor([[1, 2, 3]]), dim=0),
    "ri_size": lambda t: x(t).repeat_interleave(t.tensor([1, 2]), dim=1),
    "ri_size_flat": lambda t: x(t).repeat_interleave(t.tensor([1, 2])),
    "ri_negative_int": lambda t: x(t).repeat_interleave(-1),
    "ri_negative": lambda t: x(t).repeat_interleave(t.tensor([1, -1, 1]), dim=0),
    "ri_float": lambda t: x(t).repeat_interleave(t.tensor([1.0, 2.0, 3.0]), dim=0),
    "ri_indices_2d": lambda t: t.repeat_interleave(t.tensor([[1, 2]])),
    "ri_indices_0d": lambda t: t.repeat_interleave(t.tensor(2)),
    "ri_indices_negative": lambda t: t.repeat_interleave(t.tensor([1, -2])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name], torch)


VIEWS_AS_DTYPE = {
    "float32": lambda t: t.arange(6, dtype=t.int32).reshape(2, 3).view(t.float32),
    "int16": lambda t: t.arange(6, dtype=t.int32).reshape(2, 3).view(t.int16),
    "uint8": lambda t: t.arange(6, dtype=t.int32).reshape(2, 3).view(t.uint8),
    "int64_from_int16": lambda t: t.ones(2, 4, dtype=t.int16).view(t.int64),
    "float64_bits": lambda t: t.tensor([1.5, -2.0], dtype=t.float64).view(t.int64),
    "of_a_leaf": lambda t: t.ones(2, requires_grad=True).view(t.int32),
}


@pytest.mark.parametrize("name", VIEWS_AS_DTYPE)
def test_view_as_dtype(name):
    got, expected = VIEWS_AS_DTYPE[name](mg), VIEWS_AS_DTYPE[name](torch)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.requires_grad == expected.requires_grad
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_view_as_dtype_shares_memory():
    def build(t):
        a = t.arange(6, dtype=t.int32).reshape(2, 3)
        a.view(t.float32)[0, 0] = 1.0
        return a
    np.testing.assert_array_equal(build(mg).numpy(), build(torch).numpy())


@pytest.mark.parametrize("call", [
    lambda t: t.arange(6, dtype=t.int32).reshape(2, 3).view(t.int64),
    lambda t: t.arange(6, dtype=t.int32).reshape(2, 3).T.view(t.int16),
    lambda t: t.tensor(1, dtype=t.int32).view(t.int16)])
def test_view_as_dtype_errors(call):
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(mg)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(r, with_replacement):
    def build(t):
        a = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        out = t.combinations(a, r=r, with_replacement=with_replacement)
        grad = t.autograd.grad((out * out).sum(), a, allow_unused=True)[0] if out.numel() \
            else None
        return out, grad
    (got, got_grad), (expected, expected_grad) = build(mg), build(torch)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    if expected_grad is not None:
        np.testing.assert_array_equal(got_grad.numpy(), expected_grad.numpy())


@pytest.mark.parametrize("call", [lambda t: t.combinations(t.zeros(2, 2)),
                                  lambda t: t.combinations(t.zeros(3), r=-1)])
def test_combinations_errors(call):
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(mg)
    assert str(got.value) == str(expected.value)
