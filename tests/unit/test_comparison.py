"""minigrad.comparison: comparisons and logical ops by name, against torch."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

A = np.array([[1.0, 2.0, np.nan], [0.0, -1.0, 3.0]])
B = np.array([1.0, 2.5, np.nan])
CASES = [
    ("eq", ()), ("ne", ()), ("lt", ()), ("le", ()), ("gt", ()), ("ge", ()), ("greater", ()),
    ("less", ()), ("greater_equal", ()), ("less_equal", ()), ("not_equal", ()),
    ("logical_and", ()), ("logical_or", ()), ("logical_xor", ()), ("isclose", ()),
    ("isclose", (0.3, 0.0, True)),
]


def outcome(call):
    try:
        result = call()
    except Exception as exc:  # the type and message are what we compare
        return type(exc), str(exc)
    if hasattr(result, "numpy"):
        return str(result.dtype).split(".")[-1], result.numpy().tolist(), result.requires_grad
    return result


@pytest.mark.parametrize("name, extra", CASES)
def test_function_and_method_match_torch(name, extra):
    for args in [(A, B), (A, 2.0), (B, A[:, :2])]:
        t = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        m = [mg.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        assert (outcome(lambda: getattr(mg, name)(*m, *extra))
                == outcome(lambda: getattr(torch, name)(*t, *extra)))
        assert (outcome(lambda: getattr(m[0], name)(*m[1:], *extra))
                == outcome(lambda: getattr(t[0], name)(*t[1:], *extra)))


def test_equal_allclose_logical_not():
    x = [1.0, 2.0]
    for T in (torch, mg):
        assert T.equal(T.tensor(x), T.tensor(x)) is True
        assert T.equal(T.tensor(x), T.tensor([1.0])) is False
        assert T.allclose(T.tensor(x), T.tensor([1.0, 2.0 + 1e-7])) is True
        assert T.tensor(x).allclose(T.tensor([1.0, 2.1])) is False
    assert mg.logical_not(mg.tensor([0.0, 2.0])).tolist() == [True, False]


def test_isclose_dtype_mismatch_raises_as_torch():
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        torch.isclose(torch.ones(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="^Float did not match Double$"):
        mg.isclose(mg.ones(2), mg.ones(2, dtype=mg.float64))


def test_comparison_of_a_grad_tensor_has_no_graph():
    x = mg.ones(2, requires_grad=True)
    assert x.gt(0).requires_grad is False and x.gt(0).grad_fn is None


def test_type_as_and_where_methods():
    x = mg.tensor([1, 2])
    assert x.type_as(mg.ones(1, dtype=mg.float64)).dtype == mg.float64
    y = mg.tensor([1.0, 2.0]).where(mg.tensor([True, False]), mg.zeros(2))
    assert y.tolist() == [1.0, 0.0]


def test_default_device_is_cpu():
    mg.set_default_device("cpu")
    mg.set_default_device(None)
    assert mg.get_default_device() == mg.device("cpu")
    with pytest.raises(AssertionError, match="CUDA is not available"):
        mg.set_default_device("cuda")


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"])
def test_predicates_match_torch(name):
    values = [1.0, -0.0, np.nan, np.inf, -np.inf, -2.0]
    for dtype in ("float32", "float64", "int64"):
        data = np.array(values if dtype != "int64" else [1, 0, -3], dtype=dtype)
        expected = getattr(torch, name)(torch.tensor(data))
        for got in (getattr(mg, name)(mg.tensor(data)), getattr(mg.tensor(data), name)()):
            assert got.dtype == mg.bool and got.tolist() == expected.tolist()
