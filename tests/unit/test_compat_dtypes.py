"""Integer and bool inputs to floating ops give the default dtype, as PyTorch 2.13.

numpy computes sin(int64) in float64 and sin(bool) in float16; PyTorch gives
torch.get_default_dtype() (float32).  Ops that reject integers in PyTorch (mean, std,
var, nanmean, norm) raise its RuntimeError with its message.
"""
import re

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

DTYPES = ["int64", "int32", "bool"]


def _unary_entries():
    """Every `op(Tensor self) -> Tensor` entry of derivatives.yaml that both libraries have."""
    names = set()
    with open("derivatives.yaml", encoding="utf-8") as f:
        for line in f:
            m = re.match(r"- name: (\w+)\(Tensor self\) -> Tensor", line)
            if m and hasattr(torch, m.group(1)) and hasattr(mg, m.group(1)):
                names.add(m.group(1))
    return sorted(names)


def _pair(values, dtype):
    return torch.tensor(values, dtype=getattr(torch, dtype)), mg.tensor(np.array(values, dtype=dtype))


def _run(fn, x):
    try:
        return fn(x), None
    except Exception as exc:  # compared below: the same exception type, or the same dtype
        return None, exc


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", _unary_entries())
def test_unary_op_dtype_matches_torch(name, dtype):
    tx, mx = _pair([[1, 2], [3, 1]], dtype)
    expected, texc = _run(getattr(torch, name), tx)
    if texc is not None:
        pytest.skip(f"torch refuses {name}({dtype}): {texc}")  # integer-refusal errors: not this test
    got, mexc = _run(getattr(mg, name), mx)
    assert mexc is None, f"{name}({dtype}) raised {mexc!r}; torch gives {expected.dtype}"
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], name
    if expected.dtype.is_floating_point:
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, equal_nan=True)


BINARY = {
    "div": lambda m, a, b: m.div(a, b),
    "div_rounding_none": lambda m, a, b: m.div(a, b, rounding_mode=None),
    "div_floor_stays_int": lambda m, a, b: m.div(a, b, rounding_mode="floor"),
    "truediv": lambda m, a, b: a / b,
    "truediv_int": lambda m, a, b: a / 2,
    "rtruediv": lambda m, a, b: 2 / a,
    "mul_float": lambda m, a, b: a * 0.5,
    "pow_float": lambda m, a, b: a ** 0.5,
    "atan2": lambda m, a, b: m.atan2(a, b),
    "xlogy": lambda m, a, b: m.xlogy(a, b),
    "copysign": lambda m, a, b: m.copysign(a, b),
    "logit": lambda m, a, b: m.logit(a),
    "polygamma": lambda m, a, b: m.polygamma(1, a),
    "logsumexp": lambda m, a, b: m.logsumexp(a, 0),
    "trapezoid": lambda m, a, b: m.trapezoid(a),
    "clamp_float": lambda m, a, b: m.clamp(a, 1.5),
    "clamp_int": lambda m, a, b: m.clamp(a, 2),
    "mean_dtype": lambda m, a, b: m.mean(a, dtype=m.float64),
    "expit": lambda m, a, b: m.special.expit(a),
    "sigmoid_F": lambda m, a, b: m.nn.functional.sigmoid(a),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_int_inputs_to_floating_ops(name):
    fn = BINARY[name]
    (ta, ma), (tb, mb) = _pair([1, 2, 7], "int64"), _pair([2, 1, 3], "int64")
    expected, got = fn(torch, ta, tb), fn(mg, ma, mb)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_default_dtype_float64_is_followed():
    previous = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.sin(mg.tensor([1, 2])).dtype == mg.float64
        assert (mg.tensor([1, 2]) / 2).dtype == mg.float64
    finally:
        mg.set_default_dtype(previous)


REFUSED = {
    "mean": lambda m, a: m.mean(a),
    "mean_dim": lambda m, a: a.mean(0),
    "mean_int_dtype": lambda m, a: a.float().mean(dtype=m.int64),
    "nanmean": lambda m, a: m.nanmean(a),
    "std": lambda m, a: a.std(),
    "var": lambda m, a: a.var(),
    "norm": lambda m, a: a.norm(),
    "vector_norm": lambda m, a: m.linalg.vector_norm(a),
}


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_integer_reductions_raise_like_torch(name, dtype):
    tx, mx = _pair([1, 0, 1], dtype)
    with pytest.raises(RuntimeError) as texc:
        REFUSED[name](torch, tx)
    with pytest.raises(RuntimeError) as mexc:
        REFUSED[name](mg, mx)
    assert str(mexc.value) == str(texc.value)


INPLACE = {
    "sqrt_": lambda x: x.sqrt_(),
    "sin_": lambda x: x.sin_(),
    "div_": lambda x: x.div_(2),
    "itruediv": lambda x: x.__itruediv__(2),
    "add_float": lambda x: x.add_(0.5),
    "mul_float": lambda x: x.mul_(1.5),
}


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_floating_result_into_integers_raises_like_torch(name, dtype):
    tx, mx = _pair([1, 4], dtype)
    with pytest.raises(RuntimeError) as texc:
        INPLACE[name](tx)
    with pytest.raises(RuntimeError) as mexc:
        INPLACE[name](mx)
    assert str(mexc.value) == str(texc.value)
    assert mx.tolist() == [1, 4] if dtype == "int64" else mx.tolist() == [True, True]


@pytest.mark.parametrize("op", [lambda x: x.add_(2), lambda x: x.mul_(3), lambda x: x.floor_divide_(2),
                                lambda x: x.copy_(mg.tensor([0.5, 2.5]) if isinstance(x, mg.Tensor)
                                                  else torch.tensor([0.5, 2.5])),
                                lambda x: x.fill_(2.5)])
def test_inplace_results_that_fit_stay_allowed(op):
    tx, mx = _pair([1, 4], "int64")
    op(tx)
    op(mx)
    assert mx.tolist() == tx.tolist() and mx.dtype == mg.int64
