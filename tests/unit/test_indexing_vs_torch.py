"""Indexing reads and writes that numpy and PyTorch read differently, against PyTorch:
integers mixed with advanced indices, 0-d integer tensors as keys, and the dtypes
a write accepts."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

X = np.arange(24.0).reshape(2, 3, 4)


def _both(build):
    return build(torch), build(mg)


def _raises_same(build):
    assert_same_error(build, torch, message=lambda m: m.replace("torch.", "minigrad."))


KEYS = {
    "int_slice_list": lambda t: (1, slice(None), [0, 1]),
    "int_none_list": lambda t: (1, None, [0, 1]),
    "ints_around_nones": lambda t: (0, None, [0, 1], None, 2),
    "tensor0d_slice_list": lambda t: (t.tensor(1), slice(None), [0, 1]),
    "list_int": lambda t: ([1, 0], slice(None), -1),
    "list_int_list": lambda t: ([0, 1], 2, [[1], [3]]),
    "mask_int": lambda t: (slice(None), t.tensor([True, False, True]), 3),
    "ellipsis_int_list": lambda t: (Ellipsis, 1, [2, 0]),
}


@pytest.mark.parametrize("name", KEYS)
def test_read_value_and_gradient(name):
    def build(t):
        x = t.tensor(X, requires_grad=True)
        y = x[KEYS[name](t)]
        (y * t.arange(y.numel(), dtype=t.float64).reshape(y.shape)).sum().backward()
        return y, x.grad
    (ty, tg), (my, mgrad) = _both(build)
    assert tuple(my.shape) == tuple(ty.shape)
    np.testing.assert_array_equal(my.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(mgrad.numpy(), tg.numpy())


@pytest.mark.parametrize("name", KEYS)
def test_write(name):
    def build(t):
        x = t.tensor(X).clone()
        shape = x[KEYS[name](t)].shape
        x[KEYS[name](t)] = -t.arange(int(np.prod(shape)), dtype=t.float64).reshape(shape)
        return x
    expected, got = _both(build)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_zero_dim_integer_tensor_key_is_a_view():
    def build(t):
        x = t.zeros(3, 4)
        row = x[t.tensor(1)]
        row += 1
        x[t.tensor(2), 1:] = t.tensor(5.0, dtype=t.float64)  # a basic write: copy_ converts
        return x
    expected, got = _both(build)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


MASK = [True, False, True]
CONVERTED_WRITES = {  # PyTorch's masked_fill shortcut, or a basic key's copy_
    "mask_0d": lambda t, x: x.__setitem__(t.tensor(MASK), t.tensor(1.0, dtype=t.float32)),
    "mask_1x1": lambda t, x: x.__setitem__(t.tensor(MASK), t.tensor([[1.0]], dtype=t.float32)),
    "mask_int": lambda t, x: x.__setitem__(t.tensor(MASK), t.tensor(2)),
    "slice_mask": lambda t, x: x.__setitem__((slice(None), t.tensor([True, False, True, True])),
                                             t.tensor(3.0, dtype=t.float32)),
    "true": lambda t, x: x.__setitem__(True, t.tensor([1.0, 2, 3, 4], dtype=t.float32)),
    "false": lambda t, x: x.__setitem__(False, t.tensor([1.0, 2.0])),
    "tensor0d": lambda t, x: x.__setitem__(t.tensor(0), t.tensor(4.0, dtype=t.float32)),
    "python_float_list": lambda t, x: x.__setitem__([0], 2.5),
    "index_put_mask": lambda t, x: x.index_put_((t.tensor(MASK),), t.tensor(1.0, dtype=t.float32)),
}


@pytest.mark.parametrize("name", CONVERTED_WRITES)
def test_writes_that_convert_the_value(name):
    def build(t):
        x = t.zeros(3, 4, dtype=t.float64)
        CONVERTED_WRITES[name](t, x)
        return x
    expected, got = _both(build)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


REFUSED_WRITES = {
    "list_0d": lambda t, x: x.__setitem__([0], t.tensor(1.0, dtype=t.float32)),
    "list_long": lambda t, x: x.__setitem__([0], t.tensor([1, 2, 3, 4])),
    "mask_rows": lambda t, x: x.__setitem__(t.tensor(MASK), t.tensor([1.0, 2, 3, 4],
                                                                     dtype=t.float32)),
    "int_list": lambda t, x: x.__setitem__((0, [1, 2]), t.tensor([1.0, 2.0], dtype=t.float32)),
    "index_put_accumulate": lambda t, x: x.index_put_((t.tensor(MASK),), t.tensor(1.0), True),
    "index_put_none": lambda t, x: x.index_put_((None, t.tensor([0])), t.tensor(1.0)),
    "index_put_int": lambda t, x: x.index_put_([t.tensor([0]), 1], t.tensor(1.0)),
    "function_index_put_none": lambda t, x: t.index_put(x, (t.tensor([0]), None),
                                                       t.tensor(1.0)),
    "list_value": lambda t, x: x.__setitem__(0, [1.0, 2.0, 3.0, 4.0]),
    "numpy_value": lambda t, x: x.__setitem__([0], np.arange(4.0)),
}


@pytest.mark.parametrize("name", REFUSED_WRITES)
def test_writes_refused(name):
    _raises_same(lambda t: REFUSED_WRITES[name](t, t.zeros(3, 4, dtype=t.float64)))
