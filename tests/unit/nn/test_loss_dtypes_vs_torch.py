"""Losses with inputs of mixed dtypes against torch: the result's dtype (PyTorch computes
binary_cross_entropy_with_logits in place in ``1 - target``, soft_margin_loss in place in a
tensor like the input), the gradients' dtypes and values, eager and compiled, and torch's
errors where the in-place result cannot hold the value (float into int, bool)."""
import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

F32, F64 = np.float32, np.float64


def _data(dtypes, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal(4) * 3
    targets = rng.random(4)
    extras = rng.random(4) + 0.5
    return [a.astype(d) for a, d in zip((logits, targets, extras, extras * 2), dtypes)]


def _assert_same(mine, theirs, tol):
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                               atol=tol)


BCE_DTYPES = list(itertools.product((F32, F64), (F32, F64), (None, F32, F64), (None, F32, F64)))


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("dtypes", BCE_DTYPES, ids=lambda d: "-".join(
    "no" if t is None else t.__name__ for t in d))
def test_bce_with_logits_dtypes_as_torch(dtypes, reduction, compile):
    input_dtype, target_dtype, weight_dtype, pos_dtype = dtypes
    arrays = _data([input_dtype, target_dtype, weight_dtype or F64, pos_dtype or F64])
    options = {"reduction": reduction}
    if weight_dtype is not None:
        options["weight"] = arrays[2]
    if pos_dtype is not None:
        options["pos_weight"] = arrays[3]
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        x, t = (lib.tensor(a, requires_grad=True) for a in arrays[:2])
        extra = {k: lib.tensor(v) for k, v in options.items() if k != "reduction"}
        fn = mg.compile(fns.binary_cross_entropy_with_logits) if compile and lib is mg \
            else fns.binary_cross_entropy_with_logits
        loss = fn(x, t, reduction=reduction, **extra)
        results.append([loss, *lib.autograd.grad(loss.sum(), [x, t])])
    tol = 1e-5 if F32 in dtypes else 1e-12
    for mine, theirs in zip(*results):
        _assert_same(mine, theirs, tol)


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtypes", [(F32, F64), (F64, F32), (F32, F32), (F32, np.int64),
                                    (np.float16, F64)], ids=str)
def test_soft_margin_loss_keeps_the_input_dtype_as_torch(dtypes, reduction, compile):
    x, t = np.array([-1.5, 0.25, 2.0]), np.array([1.0, -1.0, 1.0])
    x, t = x.astype(dtypes[0]), t.astype(dtypes[1])
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        tx = lib.tensor(x, requires_grad=True)
        fn = mg.compile(fns.soft_margin_loss) if compile and lib is mg else fns.soft_margin_loss
        loss = fn(tx, lib.tensor(t), reduction=reduction)
        results.append([loss, *lib.autograd.grad(loss.sum(), [tx])])
    tol = 1e-12 if dtypes == (F64, F32) else 2e-3 if np.float16 in dtypes else 1e-6
    for mine, theirs in zip(*results):
        _assert_same(mine, theirs, tol)


ERRORS = {
    "bce_with_logits int64 target": ("binary_cross_entropy_with_logits", F32, np.int64),
    "bce_with_logits bool target": ("binary_cross_entropy_with_logits", F32, np.bool_),
    "soft_margin int64 input": ("soft_margin_loss", np.int64, F32),
    "soft_margin int64 input and target": ("soft_margin_loss", np.int64, np.int64),
    "soft_margin bool input": ("soft_margin_loss", np.bool_, F32),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_losses_refuse_what_the_in_place_result_cannot_hold_as_torch(case):
    fn_name, input_dtype, target_dtype = ERRORS[case]
    x, t = np.ones(3, dtype=input_dtype), np.ones(3, dtype=target_dtype)
    caught = []
    for lib, fns in ((mg, F), (torch, TF)):
        with pytest.raises(RuntimeError) as info:
            getattr(fns, fn_name)(lib.tensor(x), lib.tensor(t))
        caught.append(str(info.value))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("fn_name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("shapes", [((3,), (2,)), ((3, 2), (2,)), ((), (1,))], ids=str)
def test_bce_size_mismatch_messages_as_torch(fn_name, shapes):
    caught = []
    for lib, fns in ((mg, F), (torch, TF)):
        x, t = lib.full(shapes[0], 0.5), lib.full(shapes[1], 0.5)
        with pytest.raises(ValueError) as info:
            getattr(fns, fn_name)(x, t)
        caught.append(str(info.value))
    assert caught[0] == caught[1].replace("torch.Size", "minigrad.Size")


HUBER_MIXED = [(F32, F64), (F64, F32), (F32, np.int64), (F32, np.float16)]


def _huber(lib, fns, x, t, grads, compile, **options):
    """huber_loss and its backward: the loss, then the gradients or the backward's error."""
    tx, tt = lib.tensor(x, requires_grad=grads[0]), lib.tensor(t, requires_grad=grads[1])
    fn = mg.compile(fns.huber_loss) if compile and lib is mg else fns.huber_loss
    loss = fn(tx, tt, **options)
    try:
        loss.sum().backward()
    except RuntimeError as error:
        return loss, str(error)
    return loss, [tx.grad, tt.grad]


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("weight", [None, F32, F64], ids=str)
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)], ids=str)
@pytest.mark.parametrize("dtypes", HUBER_MIXED, ids=str)
def test_huber_loss_of_mixed_dtypes_as_torch(dtypes, grads, weight, compile):
    """The loss has the input's dtype; the backward raises torch's error (its kernel takes
    one dtype): naming the target's dtype where the input needs a gradient, else the input's."""
    if grads[1] and dtypes[1] == np.int64:
        pytest.skip("an int64 target cannot require a gradient")
    x = np.array([-2.5, 0.25, 1.0]).astype(dtypes[0])
    t = np.array([0.0, 1.0, -1.0]).astype(dtypes[1])
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        options = {} if weight is None else {"weight": lib.tensor(np.ones(3, weight) * 2)}
        results.append(_huber(lib, fns, x, t, grads, compile, reduction="none", **options))
    (mine, mine_error), (theirs, their_error) = results
    _assert_same(mine, theirs, 1e-3 if np.float16 in dtypes else 1e-6)
    assert isinstance(their_error, str) and mine_error == their_error


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("fn_name", ["huber_loss", "smooth_l1_loss", "mse_loss", "l1_loss"])
def test_mixed_dtype_losses_without_gradients_as_torch(fn_name, compile):
    """Forward only (huber's backward would raise): each loss's dtype and value."""
    x, t = np.array([-2.5, 0.25, 1.0], F32), np.array([0.0, 1.0, -1.0], F64)
    fn = mg.compile(getattr(F, fn_name)) if compile else getattr(F, fn_name)
    _assert_same(fn(mg.tensor(x), mg.tensor(t)), getattr(TF, fn_name)(torch.tensor(x),
                                                                     torch.tensor(t)), 1e-6)


@pytest.mark.parametrize("fn_name", ["smooth_l1_loss", "mse_loss", "l1_loss"])
def test_other_regression_losses_promote_mixed_dtypes_as_torch(fn_name):
    x, t = np.array([-2.5, 0.25, 1.0], F32), np.array([0.0, 1.0, -1.0], F64)
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        tx, tt = lib.tensor(x, requires_grad=True), lib.tensor(t, requires_grad=True)
        loss = getattr(fns, fn_name)(tx, tt)
        results.append([loss, *lib.autograd.grad(loss, [tx, tt])])
    for mine, theirs in zip(*results):
        _assert_same(mine, theirs, 1e-6)


def test_huber_loss_refuses_an_int64_input_of_a_float_target_as_torch():
    x, t = np.array([1, 2, 3]), np.array([0.5, 1.0, 2.0], F32)
    with pytest.raises(RuntimeError) as mine:
        F.huber_loss(mg.tensor(x), mg.tensor(t))
    with pytest.raises(RuntimeError) as theirs:
        TF.huber_loss(torch.tensor(x), torch.tensor(t))
    assert str(mine.value) == str(theirs.value)


def test_soft_margin_loss_stays_finite_where_torchs_overflows():
    """docs/divergences.md, soft-margin-overflow: torch computes log1p(exp(-y x)) as written
    (inf once exp overflows); minigrad's softplus gives the finite value and gradient,
    and torch's own where its exp does not overflow."""
    x = np.array([-100.0, -50.0, 3.0], F32)
    t = np.ones(3, F32)
    mx = mg.tensor(x, requires_grad=True)
    loss = F.soft_margin_loss(mx, mg.tensor(t), reduction="none")
    loss.sum().backward()
    margin = -x.astype(F64)
    expected = np.maximum(margin, 0) + np.log1p(np.exp(-np.abs(margin)))
    np.testing.assert_allclose(loss.detach().numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(mx.grad.numpy(), -1 / (1 + np.exp(-margin)), rtol=1e-6)
    theirs = TF.soft_margin_loss(torch.tensor(x), torch.tensor(t), reduction="none")
    assert np.isinf(theirs[0].item())
    np.testing.assert_allclose(loss.detach().numpy()[1:], theirs.numpy()[1:], rtol=1e-6)
