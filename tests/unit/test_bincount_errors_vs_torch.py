"""bincount refuses a non-integer input with PyTorch's NotImplementedError (checked before
the shape), and a bad shape or negative value with its RuntimeError."""
import pytest

import minigrad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1., 2.]),
    lambda lib: lib.tensor([[1.]]),
    lambda lib: lib.tensor([True, False]),
    lambda lib: lib.tensor([1.], dtype=lib.float64),
    lambda lib: lib.tensor([[1]]),
    lambda lib: lib.tensor([-1, 2]),
])
def test_bincount_errors_match_torch(make):
    def error(lib):
        with pytest.raises(Exception) as info:
            lib.bincount(make(lib))
        return type(info.value), str(info.value)
    assert error(minigrad) == error(torch)
