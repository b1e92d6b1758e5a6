"""index_fill, index_copy and masked_scatter (functions, methods, in-place) against
PyTorch: values, first and second order gradients, and the errors of misuse."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

A = np.arange(12.0).reshape(3, 4)
MASK = [[True, False, True, False], [False] * 4, [True] * 4]


def _grads(lib, build, *arrays):
    """The output, the gradients of a weighted sum, and the gradients of their squares."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = build(lib, *xs)
    w = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    first = lib.autograd.grad((y * w).sum(), xs, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in first), xs, allow_unused=True)
    return [y, *first, *second]


def _fill(t, a, b):
    return (a * a).index_fill(1, t.tensor([0, 2]), (b * b).sum())


def _copy(t, a, b):
    return (a * a).index_copy(1, t.tensor([2, 0]), b * b)


def _copy_inplace(t, a, b):
    y = a * 1
    y.index_copy_(0, t.tensor([1]), b)
    return y * a


def _scatter(t, a, b):
    return (a * a).masked_scatter(t.tensor([True, False, True, True]), b * b)


def _scatter_inplace(t, a, b):
    y = a * 1
    y.masked_scatter_(t.tensor(MASK), b)
    return y * a


CASES = {"index_fill": (_fill, A, [1.0, 2.0]), "index_copy": (_copy, A, np.ones((3, 2)) * 3),
         "index_copy_": (_copy_inplace, A, np.ones((1, 4))),
         "masked_scatter": (_scatter, A, np.arange(13.0)),
         "masked_scatter_": (_scatter_inplace, A, np.arange(8.0))}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    build, *arrays = CASES[name]
    for got, expected in zip(_grads(mg, build, *arrays), _grads(torch, build, *arrays)):
        if expected is None:
            assert got is None or not got.numpy().any()
        else:
            np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(),
                                       rtol=1e-12)


def x(t, dtype=None):
    return t.tensor(A, dtype=dtype)


CALLS = {
    "fill_negative": lambda t: x(t).index_fill(-1, t.tensor([-1]), 1.5),
    "fill_int_truncates": lambda t: x(t, t.int64).index_fill(0, t.tensor([1]), 2.7),
    "fill_0d_index": lambda t: t.index_fill(x(t), 1, t.tensor(1), t.tensor(2.0)),
    "fill_other_dtype_value": lambda t: x(t, t.float32).index_fill(1, t.tensor([1]),
                                                                    t.tensor(2.0)),
    "copy_repeats_last_wins": lambda t: x(t).index_copy(1, t.tensor([0, 0]),
                                                        t.arange(6.0).reshape(3, 2).double()),
    "copy_function": lambda t: t.index_copy(x(t), 0, t.tensor([2, 0]), t.ones(2, 4).double()),
    "scatter_broadcast": lambda t: x(t).masked_scatter(t.tensor([[[True]], [[False]]]),
                                                       t.arange(24.0).double()),
    "scatter_function": lambda t: t.masked_scatter(x(t), t.tensor(MASK),
                                                   t.arange(6.0).reshape(2, 3).double()),
}


@pytest.mark.parametrize("name", CALLS)
def test_values(name):
    np.testing.assert_array_equal(CALLS[name](mg).numpy(), CALLS[name](torch).numpy())


ERRORS = {
    "fill_float_index": lambda t: x(t).index_fill(1, t.tensor([0.0]), 1.5),
    "fill_2d_index": lambda t: x(t).index_fill(1, t.tensor([[0]]), 1.5),
    "fill_out_of_range": lambda t: x(t).index_fill(1, t.tensor([5]), 1.5),
    "fill_1d_value": lambda t: x(t).index_fill(1, t.tensor(1), t.tensor([2.0])),
    "fill_bad_dim": lambda t: x(t).index_fill(2, t.tensor([1]), 1.0),
    "copy_count": lambda t: x(t).index_copy(1, t.tensor([0, 2]), t.ones(3, 3).double()),
    "copy_dtype": lambda t: x(t).index_copy(1, t.tensor([0, 2]), t.ones(3, 2)),
    "copy_out_of_range": lambda t: x(t).index_copy(1, t.tensor([0, 5]), t.ones(3, 2).double()),
    "copy_negative": lambda t: x(t).index_copy(1, t.tensor([0, -1]), t.ones(3, 2).double()),
    "copy_int32_index": lambda t: x(t).index_copy(1, t.tensor([0, 2], dtype=t.int32),
                                                  t.ones(3, 2).double()),
    "copy_dims": lambda t: x(t).index_copy(0, t.tensor([1]), t.ones(4).double()),
    "scatter_too_few": lambda t: x(t).masked_scatter(t.tensor(MASK), t.arange(3.0).double()),
    "scatter_dtype": lambda t: x(t).masked_scatter(t.tensor(MASK), t.arange(12.0)),
    "scatter_float_mask": lambda t: x(t).masked_scatter(t.tensor(MASK).double(),
                                                        t.arange(12.0).double()),
    "scatter_shape": lambda t: x(t).masked_scatter(t.tensor([True] * 5), t.arange(12.0).double()),
    "scatter_number": lambda t: x(t).masked_scatter(t.tensor(MASK), 1.0),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name], torch)
