"""PyTorch's type promotion for elementwise ops with several inputs (autograd/promotion.py):
result dtypes against torch, and gradients that come back in each input's own dtype."""
import numpy as np
import pytest

import minigrad

CASES = [  # (left, right) as (kind, dtype name): "t" a 1-d tensor, "z" a 0-d tensor, "s" a number
    (("t", "float32"), ("t", "int64")),
    (("t", "float32"), ("z", "float64")),
    (("t", "int64"), ("s", 2.5)),
    (("t", "int32"), ("t", "int64")),
    (("t", "bool"), ("t", "int32")),
    (("t", "uint8"), ("t", "int8")),
    (("t", "float32"), ("t", "float64")),
    (("z", "int64"), ("z", "float64")),
    (("z", "float32"), ("t", "int64")),
    (("t", "int64"), ("s", 3)),
    (("t", "float32"), ("s", 3)),
]
# (floating-only ops such as atan2 on two integer tensors still give numpy's float64; torch float32)
OPS = ["add", "sub", "mul", "maximum", "pow"]


def make(lib, kind, value):
    if kind == "s":
        return value
    dtype = getattr(lib, value)
    data = [1, 2, 3] if kind == "t" else 2
    return lib.tensor(data, dtype=dtype) if dtype is not getattr(lib, "bool") else \
        lib.tensor([True, False, True] if kind == "t" else True)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("left, right", CASES, ids=lambda case: f"{case[0]}-{case[1]}")
def test_result_dtype_is_pytorchs(op, left, right):
    torch = pytest.importorskip("torch")
    try:
        expected = getattr(torch, op)(make(torch, *left), make(torch, *right)).dtype
    except (RuntimeError, TypeError):
        pytest.skip("torch refuses this combination")
    got = getattr(minigrad, op)(make(minigrad, *left), make(minigrad, *right)).dtype
    assert str(got).split(".")[-1] == str(expected).split(".")[-1]


def test_gradients_come_back_in_each_inputs_dtype():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)                            # float32
    b = minigrad.tensor(3.0, dtype=minigrad.float64, requires_grad=True)           # 0-d float64
    y = a * b
    assert y.dtype == minigrad.float32
    y.sum().backward()
    assert a.grad.dtype == minigrad.float32 and b.grad.dtype == minigrad.float64
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(b.grad.numpy(), 3.0)


def test_where_promotes_its_values_not_its_condition():
    x = minigrad.tensor([1, 2, 3])
    out = minigrad.where(x > 1, minigrad.ones(3), x)
    assert out.dtype == minigrad.float32
    assert out.tolist() == [1.0, 1.0, 1.0]


NUMPY_SCALARS = [lambda L: L.ones(2) * np.float64(2.0), lambda L: L.ones(2) / np.sqrt(4.0),
                 lambda L: np.float64(1.0) - L.ones(2), lambda L: L.ones(2) ** np.float64(2),
                 lambda L: L.ones(2, dtype=L.int32) + np.int64(1),
                 lambda L: L.ones(2, dtype=L.int32) * np.float64(2.5),
                 lambda L: L.ones(2, dtype=L.float64) + np.float32(1.5)]


@pytest.mark.parametrize("case", range(len(NUMPY_SCALARS)))
def test_a_numpy_scalar_operand_is_a_number_as_in_torch(case):
    # attention's `scores / np.sqrt(d_k)` stays float32: numpy would promote to float64
    torch = pytest.importorskip("torch")
    ours, theirs = NUMPY_SCALARS[case](minigrad), NUMPY_SCALARS[case](torch)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert ours.tolist() == theirs.tolist()


JOINS = [lambda L: L.cat([L.ones(2), L.zeros(2, dtype=L.long)]),
         lambda L: L.concat([L.ones(2, dtype=L.int32), L.zeros(2, dtype=L.long)]),
         lambda L: L.stack([L.ones(2), L.zeros(2, dtype=L.float64)]),
         lambda L: L.hstack([L.ones(2), L.zeros(2, dtype=L.bool)]),
         lambda L: L.vstack([L.ones(2, dtype=L.float16), L.zeros(2, dtype=L.long)]),
         lambda L: L.cat((L.ones(1, dtype=L.bool), L.ones(1, dtype=L.uint8))),
         lambda L: L.concatenate([L.ones(1), L.ones(1, dtype=L.float64)], axis=0),
         lambda L: L.dstack([L.ones(1), L.ones(1, dtype=L.long)]),
         lambda L: L.column_stack([L.ones(1), L.ones(1, dtype=L.long)])]


@pytest.mark.parametrize("case", range(len(JOINS)))
def test_joining_tensors_of_several_dtypes_promotes_as_torch(case):
    # numpy's concatenate would make float32 with int64 float64
    torch = pytest.importorskip("torch")
    ours, theirs = JOINS[case](minigrad), JOINS[case](torch)
    assert repr(ours) == repr(theirs).replace("torch", "minigrad")


def test_a_joined_float32_tensor_gets_a_float32_gradient():
    x = minigrad.ones(2, requires_grad=True)
    minigrad.cat([x, minigrad.zeros(1, dtype=minigrad.long)]).sum().backward()
    assert x.grad.dtype == minigrad.float32 and x.grad.tolist() == [1.0, 1.0]
