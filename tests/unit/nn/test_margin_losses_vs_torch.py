"""F.multi_margin_loss, F.multilabel_margin_loss and their modules against torch: values,
gradients, dtypes, and torch's exceptions in torch's order of checks.  Where minigrad
differs on purpose (docs/divergences.md, margin-loss-empty-and-second-order): the 'mean'
of an empty batch, and second derivatives, checked by finite differences."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck
from tests.unit.nn._torch_pair import raised

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 4))
Y = RNG.integers(0, 4, 5)
ROWS = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 2], [2, 2, -1, 0], [-1, 0, 0, 0]])
SPECIAL = np.array([[np.inf, 1, 2], [0, np.inf, 2], [0, np.nan, 2], [1, 0, 0.5]])  # ties too

CASES = {
    "p=1": ("multi_margin_loss", X, Y, {}),
    "p=2, margin": ("multi_margin_loss", X, Y, {"p": 2, "margin": 0.7}),
    "weights": ("multi_margin_loss", X, Y, {"weight": RNG.random(4)}),
    "p=2, weights": ("multi_margin_loss", X, Y, {"p": 2, "weight": RNG.random(4)}),
    "float32": ("multi_margin_loss", X.astype(np.float32), Y, {}),
    "1-d": ("multi_margin_loss", X[0], Y[0], {}),
    "1-d, (1,) target": ("multi_margin_loss", X[0], Y[:1], {}),
    "scalar": ("multi_margin_loss", np.array(0.5), np.array(0), {}),
    "inf, nan, ties": ("multi_margin_loss", SPECIAL, np.zeros(4, dtype=np.int64), {}),
    "labels": ("multilabel_margin_loss", X, ROWS, {}),
    "labels float32": ("multilabel_margin_loss", X.astype(np.float32), ROWS, {}),
    "labels 1-d": ("multilabel_margin_loss", X[0], ROWS[0], {}),
    "labels scalar": ("multilabel_margin_loss", np.array(0.5), np.array(0), {}),
    "labels scalar, none listed": ("multilabel_margin_loss", np.array(0.5), np.array(-1), {}),
    "labels ties": ("multilabel_margin_loss", np.array([[1.0, 0.0, 0.5]]), np.array([[0, -1, 1]]),
                    {}),
}


def _call(lib, fns, name, x, target, options):
    values = lib.tensor(x, requires_grad=True)
    options = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in options.items()}
    loss = getattr(fns, name)(values, lib.tensor(target), **options)
    return values, loss


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_value_gradient_and_dtype_as_torch(case, reduction):
    name, x, target, options = CASES[case]
    mine_x, mine = _call(mg, F, name, x, target, {**options, "reduction": reduction})
    their_x, theirs = _call(torch, TF, name, x, target, {**options, "reduction": reduction})
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(mine.shape) == tuple(theirs.shape)
    tol = 1e-6 if x.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)
    mine.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(mine_x.grad.numpy(), their_x.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name, target", [("multi_margin_loss", np.zeros(0, dtype=np.int64)),
                                          ("multilabel_margin_loss", np.zeros((0, 4), dtype=np.int64))])
def test_an_empty_batch_as_torch_and_a_sum_of_0_and_a_nan_mean(name, target):
    mine = getattr(F, name)(mg.zeros(0, 4), mg.tensor(target), reduction="none")
    theirs = getattr(TF, name)(torch.zeros(0, 4), torch.tensor(target), reduction="none")
    assert mine.shape == theirs.shape == (0,)
    # torch returns its uninitialised output buffer for 'sum' and 'mean' here: the sum of no
    # losses is 0, their mean nan (as mg.sum and mg.mean of an empty tensor)
    assert getattr(F, name)(mg.zeros(0, 4), mg.tensor(target), reduction="sum").item() == 0.0
    assert np.isnan(getattr(F, name)(mg.zeros(0, 4), mg.tensor(target)).item())


@pytest.mark.parametrize("case", ["p=1", "p=2, weights", "labels", "labels 1-d"])
def test_first_and_second_order_pass_gradcheck(case):
    """torch's backward of these losses is not differentiable; minigrad's second order is
    checked against finite differences (docs/divergences.md)."""
    name, x, target, options = CASES[case]
    options = {k: mg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in options.items()}

    def loss(values):
        return getattr(F, name)(values, mg.tensor(target), **options)
    values = mg.tensor(x * 0.3, requires_grad=True)   # away from the kinks at margin 0
    assert gradcheck(loss, (values,))
    assert gradgradcheck(loss, (values,))


BAD = {
    "p=3": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor(Y), p=3),
    "target out of range": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor([0, 2, 4, 1, 1])),
    "negative target": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor([0, 2, -1, 1, 1])),
    "target size": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor([0, 2])),
    "2-d target": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor(Y).reshape(5, 1)),
    "3-d input": lambda L, f: f.multi_margin_loss(L.tensor(X).reshape(5, 2, 2), L.tensor(Y)),
    "no classes": lambda L, f: f.multi_margin_loss(L.zeros(2, 0), L.zeros(2, dtype=L.int64)),
    "float target": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor(Y).double()),
    "int input": lambda L, f: f.multi_margin_loss(L.tensor(X).int(), L.tensor(Y)),
    "int input, int target": lambda L, f: f.multi_margin_loss(L.tensor(X).int(), L.tensor(Y).int()),
    "bool input": lambda L, f: f.multi_margin_loss(L.tensor(X).bool(), L.tensor(Y)),
    "weight size": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor(Y),
                                                    weight=L.ones(3, dtype=L.float64)),
    "weight dtype": lambda L, f: f.multi_margin_loss(L.tensor(X).float(), L.tensor(Y),
                                                     weight=L.ones(4, dtype=L.float64)),
    "weight 2-d": lambda L, f: f.multi_margin_loss(L.tensor(X), L.tensor(Y), weight=L.ones(4, 1)),
    "weight requires grad": lambda L, f: f.multi_margin_loss(
        L.tensor(X), L.tensor(Y), weight=L.ones(4, dtype=L.float64, requires_grad=True)),
    "numpy input": lambda L, f: f.multi_margin_loss(X, L.tensor(Y)),
    "labels target size": lambda L, f: f.multilabel_margin_loss(L.tensor(X), L.tensor(ROWS)[:, :3]),
    "labels 1-d target of a batch": lambda L, f: f.multilabel_margin_loss(L.tensor(X),
                                                                          L.tensor(ROWS[0])),
    "labels 2-d target of a vector": lambda L, f: f.multilabel_margin_loss(L.tensor(X[0]),
                                                                           L.tensor(ROWS[:1])),
    "labels out of range": lambda L, f: f.multilabel_margin_loss(L.tensor(X),
                                                                 L.tensor([[4, -1, 0, 0]] * 5)),
    "labels below -1": lambda L, f: f.multilabel_margin_loss(L.tensor(X),
                                                             L.tensor([[-2, -1, 0, 0]] * 5)),
    "labels float target": lambda L, f: f.multilabel_margin_loss(L.tensor(X), L.tensor(ROWS).double()),
    "labels int32 target": lambda L, f: f.multilabel_margin_loss(L.tensor(X), L.tensor(ROWS).int()),
    "labels int input": lambda L, f: f.multilabel_margin_loss(L.tensor(X).int(), L.tensor(ROWS)),
    "labels int input, float target": lambda L, f: f.multilabel_margin_loss(
        L.tensor(X).int(), L.tensor(ROWS).double()),
    "labels 3-d input": lambda L, f: f.multilabel_margin_loss(L.tensor(X).reshape(5, 2, 2),
                                                              L.tensor(ROWS)),
    "module p=3": lambda L, f: L.nn.MultiMarginLoss(p=3),
    "module 2-d weight": lambda L, f: L.nn.MultiMarginLoss(weight=L.ones(2, 2)),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_torchs_error(case):
    mine = raised(lambda: BAD[case](mg, F))
    theirs = raised(lambda: BAD[case](torch, TF))
    assert theirs[0] is not None
    assert mine == theirs


def test_a_bad_reduction_raises_torchs_error_with_the_choices():
    for name, target in (("multi_margin_loss", Y), ("multilabel_margin_loss", ROWS)):
        with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
            getattr(F, name)(mg.tensor(X), mg.tensor(target), reduction="bad")
        with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
            getattr(TF, name)(torch.tensor(X), torch.tensor(target), reduction="bad")


def test_the_modules_as_torchs():
    weight = RNG.random(4)
    pairs = [(mg.nn.MultiMarginLoss(p=2, margin=0.5, weight=mg.tensor(weight), reduction="sum"),
              torch.nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor(weight),
                                       reduction="sum"), Y),
             (mg.nn.MultiLabelMarginLoss(reduction="none"),
              torch.nn.MultiLabelMarginLoss(reduction="none"), ROWS)]
    for mine, theirs, target in pairs:
        assert repr(mine) == repr(theirs)
        assert sorted(mine.state_dict()) == sorted(theirs.state_dict())
        np.testing.assert_allclose(mine(mg.tensor(X), mg.tensor(target)).numpy(),
                                   theirs(torch.tensor(X), torch.tensor(target)).numpy(),
                                   rtol=1e-12)
