"""Common misuse against PyTorch: the exception type and message (and, where PyTorch
takes the call, the value): joins of a Tensor, index_add's shape checks, uint8 and
narrow integer index tensors, device strings, tensor() of strings and None, negative
sizes of the factories."""
import warnings

import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

X = np.arange(12.0).reshape(3, 4)

ERRORS = {
    "cat_tensor": lambda t: t.cat(t.tensor(X)),
    "stack_tensor": lambda t: t.stack(t.tensor(X)),
    "hstack_tensor": lambda t: t.hstack(t.tensor(X)),
    "index_add_count": lambda t: t.zeros(3, 2).index_add_(0, t.tensor([0, 1]), t.ones(1, 2)),
    "index_add_shape": lambda t: t.zeros(3, 2).index_add_(0, t.tensor([0]), t.ones(1, 3)),
    "index_add_ndim": lambda t: t.zeros(3, 2).index_add_(0, t.tensor([1]), t.ones(1, 1, 2)),
    "index_add_2d_index": lambda t: t.zeros(3, 2).index_add_(0, t.tensor([[0]]), t.ones(1, 2)),
    "index_add_dim": lambda t: t.zeros(3, 2).index_add_(1, t.tensor([1]), t.ones(3)),
    "index_add_0d_source": lambda t: t.zeros(3).index_add_(0, t.tensor([1]), t.tensor(2.0)),
    "int8_index": lambda t: t.tensor(X)[t.tensor([0, 1], dtype=t.int8)],
    "to_unknown": lambda t: t.tensor(X).to("foo"),
    "tensor_of_strings": lambda t: t.tensor(["a"]),
    "tensor_of_string": lambda t: t.tensor("a"),
    "tensor_mixed": lambda t: t.tensor([1, "a"]),
    "tensor_none": lambda t: t.tensor(None),
    "linspace_negative": lambda t: t.linspace(0, 1, -1),
    "logspace_negative": lambda t: t.logspace(0, 1, -1),
    "eye_negative": lambda t: t.eye(-1),
    "eye_negative_columns": lambda t: t.eye(2, -1),
    "full_none": lambda t: t.full((2,), None),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    # (to_unknown: PyTorch's message lists every device type it knows)
    assert_same_error(ERRORS[name], torch, message=name != "to_unknown")


CALLS = {
    "uint8_mask_rows": lambda t: t.tensor(X)[t.tensor([1, 0, 1], dtype=t.uint8)],
    "uint8_mask_columns": lambda t: t.tensor(X)[:, t.tensor([1, 0, 0, 1], dtype=t.uint8)],
    "int32_index": lambda t: t.tensor(X)[t.tensor([0, 2], dtype=t.int32), 1],
    "index_add_0d": lambda t: t.zeros(()).index_add_(0, t.tensor([0]), t.tensor(2.0)),
    "index_add_alpha": lambda t: t.zeros(3, 2).index_add_(1, t.tensor([1, 1]), t.ones(3, 2),
                                                          alpha=2),
}


@pytest.mark.parametrize("name", CALLS)
def test_values(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (uint8 masks: both warn they are deprecated)
        np.testing.assert_array_equal(CALLS[name](mg).numpy(), CALLS[name](torch).numpy())


def test_uint8_mask_warns():
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        mg.tensor(X)[mg.tensor([1, 0, 1], dtype=mg.uint8)]
