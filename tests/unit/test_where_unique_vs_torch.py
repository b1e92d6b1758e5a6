"""where with two Python numbers, unique with NaNs and a 0-d input, masked_fill's
refusal of a non-boolean mask: dtypes, values and messages against PyTorch."""
import numpy as np
import pytest

import minigrad as mg

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
    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(mg)
    assert str(got.value) == str(expected.value)
