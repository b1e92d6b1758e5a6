"""torch.index_reduce / Tensor.index_reduce(_): values, gradients and errors as PyTorch."""
import warnings

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

X = np.array([[2., 0., 3.], [1., -1., 4.], [0.5, 2., -3.]], dtype=np.float32)
SOURCE = np.array([[0., 3., 2., 3.], [5., 0., 2., 5.], [2., 0., 1e-12, 2.]], dtype=np.float32)
WEIGHT = np.arange(9, dtype=np.float32).reshape(3, 3)


def _run(lib, reduce, include_self):
    x = lib.tensor(X, requires_grad=True)
    source = lib.tensor(SOURCE, requires_grad=True)
    out = x.index_reduce(1, lib.tensor([2, 0, 2, 1]), source, reduce, include_self=include_self)
    (out * lib.tensor(WEIGHT)).sum().backward()
    return [t.detach().numpy() for t in (out, x.grad, source.grad)]


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_values_and_gradients_match_torch(reduce, include_self):
    with warnings.catch_warnings():   # (torch's index_reduce warns once that it is beta)
        warnings.simplefilter("ignore", UserWarning)
        want = _run(torch, reduce, include_self)
    for got, expected in zip(_run(minigrad, reduce, include_self), want):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_in_place_index_reduce_on_integers_matches_torch():
    def run(lib):
        x = lib.tensor([[5, 1], [-2, 9], [4, 4]])
        return x.index_reduce_(0, lib.tensor([0, 0, 2]), lib.tensor([[4, -7], [3, 1], [0, 8]]),
                               "mean", include_self=False).numpy()
    np.testing.assert_array_equal(run(minigrad), run(torch))


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_index_reduce_errors_match_torch():
    for lib in (minigrad, torch):
        with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean"):
            lib.zeros(3, 2).index_reduce(0, lib.tensor([0]), lib.ones(1, 2), "sum")
        with pytest.raises(RuntimeError, match="source tensor shape must match self"):
            lib.zeros(3, 2).index_reduce_(0, lib.tensor([0, 1]), lib.ones(2, 3), "prod")
        with pytest.raises(IndexError, match="Index is supposed to be a vector"):
            lib.zeros(3, 2).index_reduce(0, lib.tensor([[0, 1]]), lib.ones(2, 2), "prod")
