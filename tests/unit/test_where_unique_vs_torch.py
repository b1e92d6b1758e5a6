"""where with two Python numbers, unique with NaNs and a 0-d input, masked_fill's
refusal of a non-boolean mask: dtypes, values and messages against PyTorch."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

A = np.array([[3.0, -1.0, 2.0], [0.0, 5.0, 5.0]])


@pytest.mark.parametrize("pair", [(1.0, 0), (1, 0), (True, 0), (True, 0.5), (2, 1.5),
                                  (True, False), (np.float64(1.0), 0)])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_where_two_numbers_dtype(pair, default):
    def build(t):
        previous = t.get_default_dtype()
        t.set_default_dtype(getattr(t, default))
        try:
            return t.where(t.tensor(A) > 1, *pair)
        finally:
            t.set_default_dtype(previous)
    got, expected = build(mg), build(torch)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_unique_keeps_each_nan():
    data = [1.0, float("nan"), float("nan"), 1.0]
    got = mg.unique(mg.tensor(data), return_inverse=True, return_counts=True)
    expected = torch.unique(torch.tensor(data), return_inverse=True, return_counts=True)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e.numpy())


@pytest.mark.parametrize("call", [lambda t: t.unique(t.tensor(5), dim=0),
                                  lambda t: t.unique(t.tensor(5), dim=-1),
                                  lambda t: t.zeros(3).masked_fill(t.ones(3, dtype=t.int64), 1.0),
                                  lambda t: t.zeros(3).masked_fill(t.ones(3), 1.0)])
def test_errors(call):
    assert_same_error(call, torch)


UNIQUE_CONSECUTIVE = [([1, 1, 2, 2, 3, 1, 1, 2], {}), ([[1, 1], [1, 1], [2, 3]], {"dim": 0}),
                      ([[1, 1], [1, 1], [2, 3]], {"dim": 1}), ([[1, 1], [1, 2]], {}),
                      ([1.0, float("nan"), float("nan"), 1.0], {}), (5, {}), ([], {}),
                      ([[3.0, 1.0, 1.0], [3.0, 1.0, 1.0]], {"dim": -1})]


@pytest.mark.parametrize("data, kwargs", UNIQUE_CONSECUTIVE)
@pytest.mark.parametrize("method", [False, True])
def test_unique_consecutive(data, kwargs, method):
    def build(t):
        x = t.tensor(data)
        call = x.unique_consecutive if method else lambda **k: t.unique_consecutive(x, **k)
        return call(return_inverse=True, return_counts=True, **kwargs)
    for got, expected in zip(build(mg), build(torch)):
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_unique_consecutive_of_an_empty_dim():
    got = mg.unique_consecutive(mg.zeros(0, 3), dim=0, return_counts=True)
    expected = torch.unique_consecutive(torch.zeros(0, 3), dim=0, return_counts=True)
    assert [tuple(g.shape) for g in got] == [tuple(e.shape) for e in expected]


@pytest.mark.parametrize("call", [lambda t: t.unique_consecutive(t.tensor(5), dim=0),
                                  lambda t: t.unique_consecutive(t.tensor([1]), dim=1)])
def test_unique_consecutive_errors(call):
    with pytest.raises(IndexError) as expected:
        call(torch)
    with pytest.raises(IndexError) as got:
        call(mg)
    assert str(got.value) == str(expected.value)


NAN = float("nan")
NANMEDIAN_DATA = [[NAN] * 3, [1.0, NAN, 1.0], [3.0, 2.0, 1.0], [2.0, 2.0, NAN]]


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_nanmedian_dim(dim, keepdim):
    got = mg.tensor(NANMEDIAN_DATA).nanmedian(dim, keepdim=keepdim)
    expected = torch.tensor(NANMEDIAN_DATA).nanmedian(dim, keepdim=keepdim)
    np.testing.assert_array_equal(got.values.numpy(), expected.values.numpy())
    np.testing.assert_array_equal(got.indices.numpy(), expected.indices.numpy())


@pytest.mark.parametrize("data", [NANMEDIAN_DATA, [NAN, NAN], [1, 5, 2, 2], [[1.0, NAN, 2.0]]])
def test_nanmedian_all(data):
    got, expected = mg.nanmedian(mg.tensor(data)), torch.nanmedian(torch.tensor(data))
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("dim", [None, 1])
def test_nanmedian_gradients(dim):
    data = [[1.0, NAN, 1.0, 0.5], [3.0, 2.0, 1.0, 0.0]]

    def grad(t):
        a = t.tensor(data, requires_grad=True)
        out = a.nanmedian() if dim is None else a.nanmedian(dim)[0]
        return t.autograd.grad(out.sum(), a)[0]
    np.testing.assert_array_equal(grad(mg).numpy(), grad(torch).numpy())
