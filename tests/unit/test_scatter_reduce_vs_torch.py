"""scatter_reduce against torch: values and gradients (self and src, first and second
order) for every reduction, with and without include_self, repeated indices, ties for
amax/amin, zeros for prod; integer 'mean'; torch's error for an unknown reduction."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

SELF = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]
SRC = [[10.0, 0.0, 30.0], [40.0, 6.0, 60.0]]    # a zero (prod), a tie with self (amax/amin)
INDEX = [[0, 0, 2], [1, 1, 1]]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("src", [SRC, [[10.0, 0.0, 0.0], [40.0, 6.0, 6.0]]],
                         ids=["one zero", "two zeros and a tie"])
def test_values_and_gradients_as_torch(reduce, include_self, src):
    results = []
    for lib in (mg, torch):
        x = lib.tensor(SELF, dtype=lib.float64, requires_grad=True)
        s = lib.tensor(src, dtype=lib.float64, requires_grad=True)
        weights = lib.arange(8.0, dtype=lib.float64).view(2, 4)
        y = x.scatter_reduce(1, lib.tensor(INDEX), s, reduce, include_self=include_self)
        gx, gs = lib.autograd.grad((y * weights).sum(), (x, s), create_graph=True)
        results.append([y, gx, gs])
        second = (gx * gx).sum() + (gs * gs).sum()
        if second.requires_grad and (reduce != "prod" or src is SRC):
            # (torch refuses prod's second order where two zeros meet)
            results[-1] += lib.autograd.grad(second, (x, s), allow_unused=True)
    for mine, theirs in zip(*results):
        if theirs is None:
            assert mine is None or not mine.detach().numpy().any()
            continue
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("include_self", [True, False])
def test_integer_mean_floors_as_torch(include_self):
    args = (0, [0, 0], [2, 3], "mean")
    mine = mg.tensor([5, 7]).scatter_reduce(args[0], mg.tensor(args[1]), mg.tensor(args[2]),
                                            args[3], include_self=include_self)
    theirs = torch.tensor([5, 7]).scatter_reduce(args[0], torch.tensor(args[1]),
                                                 torch.tensor(args[2]), args[3],
                                                 include_self=include_self)
    assert mine.tolist() == theirs.tolist() and mine.dtype == mg.int64


def test_reduction_names_and_in_place_as_torch():
    """'max' and 'min' are torch's aliases of 'amax' and 'amin'; 'add' is refused."""
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, "
                                               "amax or amin, got add"):
            lib.zeros(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1), "add")
    for name in ("max", "min"):
        mine = mg.zeros(2).scatter_reduce(0, mg.tensor([0, 1]), mg.tensor([-1.0, 1.0]), name)
        theirs = torch.zeros(2).scatter_reduce(0, torch.tensor([0, 1]),
                                               torch.tensor([-1.0, 1.0]), name)
        assert mine.tolist() == theirs.tolist()
    x, t = mg.zeros(3), torch.zeros(3)
    x.scatter_reduce_(0, mg.tensor([1, 1]), mg.ones(2), "sum")
    t.scatter_reduce_(0, torch.tensor([1, 1]), torch.ones(2), "sum")
    assert x.tolist() == t.tolist()
