"""cross_entropy and nll_loss against torch where the targets are unusual: every target
ignored ('mean' divides by a zero weight: the loss is nan, the gradient 0), targets of the
wrong shape or dtype (torch's exception type and message, in torch's order of checks),
a (1,) target of a 1-D input, a negative label_smoothing.  Eager and compiled, first and
second order."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _logits(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape) * 2


def _both(fn_name, x, target, **options):
    """(minigrad loss, torch loss, minigrad input, torch input) for float64 logits ``x``."""
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    mine = getattr(F, fn_name)(mx, mg.tensor(target), **options)
    theirs = getattr(TF, fn_name)(tx, torch.tensor(target), **options)
    return mine, theirs, mx, tx


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)


ALL_IGNORED = {
    "2-D": ((3, 4), [-100, -100, -100], {}),
    "2-D, ignore_index a class": ((3, 4), [2, 2, 2], {"ignore_index": 2}),
    "2-D, class weights": ((3, 4), [-100, -100, -100], {"weight": [1.0, 2.0, 0.5, 1.0]}),
    "2-D, label smoothing": ((3, 4), [-100, -100, -100], {"label_smoothing": 0.2}),
    "3-D": ((2, 3, 4), [[-100] * 4] * 2, {}),
    "1-D": ((4,), -100, {}),
    "some zero weights kept": ((3, 4), [0, 1, -100], {"weight": [0.0, 0.0, 1.0, 1.0]}),
}


def _options(options, lib):
    if "weight" not in options:
        return options
    return {**options, "weight": lib.tensor(np.array(options["weight"]))}


@pytest.mark.parametrize("fn_name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("case", sorted(ALL_IGNORED))
def test_all_ignored_targets_grads_as_torch(fn_name, reduction, case):
    shape, target, options = ALL_IGNORED[case]
    if fn_name == "nll_loss" and "label_smoothing" in options:
        pytest.skip("nll_loss has no label smoothing")
    x, y = _logits(shape), np.array(target)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    results = []
    for lib, fns, value in ((mg, F, mx), (torch, TF, tx)):
        loss = getattr(fns, fn_name)(value, lib.tensor(y), reduction=reduction,
                                     **_options(options, lib))
        (g,) = lib.autograd.grad(loss, value, create_graph=True)
        results.append((loss, g))
        if fn_name == "cross_entropy":  # (nll_loss's gradient is constant in its input)
            results[-1] += lib.autograd.grad((g * g.detach()).sum() + g.sum(), value)
    for mine, theirs in zip(results[0][1:], results[1][1:]):
        _close(mine, theirs)
    np.testing.assert_equal(results[0][0].item(), results[1][0].item())  # 'mean': nan, both


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_all_ignored_compiled_grads_as_torch(reduction):
    x, y = _logits((3, 4)), np.array([-100, -100, -100])

    def loss_of(value, target):
        return F.cross_entropy(value, target, reduction=reduction)

    mx = mg.tensor(x, requires_grad=True)
    mg.compile(loss_of)(mx, mg.tensor(y)).backward()
    tx = torch.tensor(x, requires_grad=True)
    TF.cross_entropy(tx, torch.tensor(y), reduction=reduction).backward()
    _close(mx.grad, tx.grad)


def _target(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return np.full(shape, 0.25, dtype=dtype)
    return np.zeros(shape, dtype=dtype)


# (input shape, target shape, target dtype, options): each raises in torch
BAD_TARGETS = {
    "2-D input, (N, 1) target": ((3, 4), (3, 1), np.int64, {}),
    "2-D input, (N, C) int target": ((3, 4), (3, 4), np.int64, {}),
    "2-D input, (N, C) int32 target": ((3, 4), (3, 4), np.int32, {}),
    "2-D input, (N, 1) float target": ((3, 4), (3, 1), np.float32, {}),
    "2-D input, (N, 1) target, weights": ((3, 4), (3, 1), np.int64, {"weight": (4,)}),
    "2-D input, (N, 1) target, smoothing": ((3, 4), (3, 1), np.int64, {"label_smoothing": 0.1}),
    "2-D input, short batch": ((3, 4), (2,), np.int64, {}),
    "2-D input, long batch": ((3, 4), (4,), np.int64, {}),
    "2-D input, 0-d target": ((3, 4), (), np.int64, {}),
    "empty 2-D input, 0-d target": ((0, 4), (), np.int64, {}),
    "2-D input, float (N,) target": ((3, 4), (3,), np.float64, {}),
    "2-D input, float (M, C) target": ((3, 4), (2, 4), np.float32, {}),
    "2-D input, int32 target": ((3, 4), (3,), np.int32, {}),
    "2-D input, bool target": ((3, 4), (3,), np.bool_, {}),
    "2-D input, wrong weights": ((3, 4), (3,), np.int64, {"weight": (3,)}),
    "2-D input, int32 target, wrong weights": ((3, 4), (3,), np.int32, {"weight": (3,)}),
    "2-D input, 2-D weights": ((3, 4), (3,), np.int64, {"weight": (1, 4)}),
    "1-D input, 0-d float target": ((4,), (), np.float32, {}),
    "1-D input, (2,) target": ((4,), (2,), np.int64, {}),
    "1-D input, (0,) target": ((4,), (0,), np.int64, {}),
    "1-D input, (1, 1) target": ((4,), (1, 1), np.int64, {}),
    "1-D input, (1,) target, smoothing": ((4,), (1,), np.int64, {"label_smoothing": 0.1}),
    "0-d input, 0-d int target": ((), (), np.int64, {}),
    "0-d input, 0-d float target": ((), (), np.float64, {}),
    "0-d input, 1-D target": ((), (1,), np.int64, {}),
    "3-D input, wrong spatial size": ((2, 3, 4), (2, 3), np.int64, {}),
    "3-D input, 1-D target": ((2, 3, 4), (2,), np.int64, {}),
    "3-D input, extra target dim": ((2, 3, 4), (2, 4, 1), np.int64, {}),
    "3-D input, wrong batch": ((2, 3, 4), (3, 4), np.int64, {}),
    "3-D input, float target": ((2, 3, 4), (2, 4), np.float32, {}),
    "3-D input, uint8 target": ((2, 3, 4), (2, 4), np.uint8, {}),
    "3-D input, int32 target": ((2, 3, 4), (2, 4), np.int32, {}),
    "3-D input, wrong weights": ((2, 3, 4), (2, 4), np.int64, {"weight": (4,)}),
    "3-D input, wrong float target": ((2, 3, 4), (2, 3, 5), np.float32, {}),
    "4-D input, 2-D target": ((2, 3, 4, 5), (2, 5), np.int64, {}),
    "4-D input, wrong spatial size": ((2, 3, 4, 5), (2, 4, 6), np.int64, {}),
    "4-D input, 4-D target": ((2, 3, 4, 5), (2, 4, 5, 1), np.int64, {}),
    "4-D input, uint8 target": ((2, 3, 4, 5), (2, 4, 5), np.uint8, {}),
    "5-D input, missing target dim": ((2, 3, 4, 5, 1), (2, 4, 5), np.int64, {}),
    "probabilities, ignore_index": ((3, 4), (3, 4), np.float64, {"ignore_index": 1}),
    "probabilities, wrong weights": ((3, 4), (3, 4), np.float64, {"weight": (3,)}),
    "probabilities, smoothing past 1": ((3, 4), (3, 4), np.float64, {"label_smoothing": 1.5}),
    "indices, smoothing past 1": ((3, 4), (3,), np.int64, {"label_smoothing": 1.5}),
    "bad shape, smoothing past 1": ((3, 4), (2,), np.int64, {"label_smoothing": 1.5}),
    "two targets past the classes": ((3, 4), [0, 9, 7], np.int64, {}),
    "past the classes after an ignored one": ((3, 4), [0, -100, 7], np.int64, {}),
}


def _raise_both(fn_name, input_shape, target, options):
    options = dict(options)
    if "weight" in options:
        weight = np.ones(options.pop("weight"))
    else:
        weight = None
    caught = []
    for lib, fns in ((mg, F), (torch, TF)):
        w = None if weight is None else lib.tensor(weight)
        with pytest.raises(Exception) as info:
            getattr(fns, fn_name)(lib.tensor(_logits(input_shape)), lib.tensor(target), weight=w,
                                  **options)
        caught.append(info.value)
    return caught


def _nll_loss_case(case):
    """nll_loss takes the cases of cross_entropy but those of its own arguments (smoothing,
    probabilities) and of its log_softmax (a 0-d or float input)."""
    return not any(word in case for word in ("smoothing", "probabilities", "0-d input", "float"))


@pytest.mark.parametrize("fn_name, case",
                         [("cross_entropy", c) for c in sorted(BAD_TARGETS)]
                         + [("nll_loss", c) for c in sorted(BAD_TARGETS) if _nll_loss_case(c)])
def test_bad_targets_raise_as_torch(fn_name, case):
    input_shape, target_shape, dtype, options = BAD_TARGETS[case]
    if isinstance(target_shape, list):
        target = np.array(target_shape, dtype=dtype)
    else:
        target = _target(target_shape, dtype)
    mine, theirs = _raise_both(fn_name, input_shape, target, options)
    assert type(mine) is type(theirs)
    assert str(mine) == str(theirs)


def test_nll_loss_of_a_0d_input_raises_as_torch():
    mine, theirs = _raise_both("nll_loss", (), np.array(0), {})
    assert type(mine) is type(theirs) and str(mine) == str(theirs)


@pytest.mark.parametrize("fn_name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_1d_input_with_a_1_element_target_as_torch(fn_name, reduction):
    """torch reads a (1,) target of a (C,) input as its 0-d class.  (torch's backward then
    refuses, 'size mismatch (got input: [4], target: [1])'; minigrad gives the gradient of
    the 0-d target's loss instead.)"""
    x = _logits((4,))
    mine, theirs, mx, _ = _both(fn_name, x, np.array([2]), reduction=reduction)
    assert mine.shape == tuple(theirs.shape) == ()
    _close(mine, theirs)
    mine.backward()
    _, zero_d, _, tx = _both(fn_name, x, np.array(2), reduction=reduction)
    zero_d.backward()
    _close(mx.grad, tx.grad)


@pytest.mark.parametrize("fn_name", ["cross_entropy", "nll_loss"])
def test_1d_input_with_a_1_element_target_passes_gradcheck(fn_name):
    """docs/divergences.md, cross-entropy-unbatched-target: the gradient torch refuses is the
    loss's own, first and second order, by finite differences."""
    target = mg.tensor(np.array([2]))
    x = mg.tensor(_logits((4,)), requires_grad=True)

    def loss(x):
        return getattr(F, fn_name)(x.log_softmax(0) if fn_name == "nll_loss" else x, target)
    assert mg.autograd.gradcheck(loss, (x,))
    assert mg.autograd.gradgradcheck(loss, (x,))


@pytest.mark.parametrize("target", [np.array([0, 3, 1]), np.full((3, 4), 0.25)],
                         ids=["indices", "probabilities"])
def test_negative_label_smoothing_is_ignored_as_torch(target):
    x = _logits((3, 4))
    mine, theirs, mx, tx = _both("cross_entropy", x, target, label_smoothing=-0.5)
    _close(mine, theirs)
    mine.backward()
    theirs.backward()
    _close(mx.grad, tx.grad)


def test_uint8_targets_of_a_2d_input_as_torch():
    x = _logits((3, 4))
    mine, theirs, mx, tx = _both("cross_entropy", x, np.array([0, 3, 1], dtype=np.uint8))
    _close(mine, theirs)
    mine.backward()
    theirs.backward()
    _close(mx.grad, tx.grad)


@pytest.mark.parametrize("case", ["2-D input, (N, 1) target", "2-D input, short batch",
                                  "2-D input, (N, C) int target", "3-D input, wrong spatial size"])
def test_compiled_bad_targets_raise_as_torch(case):
    input_shape, target_shape, dtype, _ = BAD_TARGETS[case]
    x, target = _logits(input_shape), _target(target_shape, dtype)
    compiled = mg.compile(lambda value, t: F.cross_entropy(value, t))
    with pytest.raises(Exception) as mine:
        compiled(mg.tensor(x, requires_grad=True), mg.tensor(target))
    with pytest.raises(Exception) as theirs:
        TF.cross_entropy(torch.tensor(x), torch.tensor(target))
    assert type(mine.value) is type(theirs.value)
    assert str(mine.value) == str(theirs.value)
