"""cross_entropy and nll_loss where there is nothing to sum, against torch: zero classes
(every target ignored, class probabilities, or a target out of bounds), empty batches, and
the sign of a zero ('sum' of class probabilities over no samples is -0.0 in torch, an
ignored sample's loss +0.0).  Values, signs of zeros, gradient shapes; eager and compiled.
(nan's sign bit is not compared: torch's differs between its own paths.)"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# input shape, target kind: "ignored" (-100 class indices), "probabilities", "class 0"
CASES = {
    "no classes, ignored": ((2, 0), "ignored"),
    "no classes, probabilities": ((2, 0), "probabilities"),
    "unbatched, no classes, ignored": ((0,), "ignored"),
    "unbatched, no classes, probabilities": ((0,), "probabilities"),
    "no samples": ((0, 3), "class 0"),
    "no samples, probabilities": ((0, 3), "probabilities"),
    "no samples, 3-D": ((0, 3, 2), "class 0"),
    "no samples, 3-D probabilities": ((0, 3, 2), "probabilities"),
    "no samples, no classes": ((0, 0), "class 0"),
    "no classes, 3-D probabilities": ((2, 0, 3), "probabilities"),
    "some ignored": ((3, 4), "ignored"),
}
OPTIONS = {"plain": {}, "label smoothing": {"label_smoothing": 0.1}, "class weights": "weight"}


def _target(lib, shape, kind):
    if kind == "probabilities":
        return lib.zeros(*shape, dtype=lib.float64)
    target_shape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    target = lib.full(target_shape, -100 if kind == "ignored" else 0, dtype=lib.int64)
    if shape == (3, 4):
        target[-1] = 2  # one sample kept
    return target


def _loss_and_grad(lib, fns, fn_name, shape, kind, options, reduction, compile):
    x = lib.tensor(np.linspace(-2, 2, int(np.prod(shape))).reshape(shape), requires_grad=True)
    if options == "weight":
        options = {"weight": lib.linspace(0.5, 2, shape[1 if len(shape) > 1 else 0],
                                          dtype=lib.float64)}
    fn = getattr(fns, fn_name)
    if compile and lib is mg:
        fn = mg.compile(fn)
    loss = fn(x, _target(lib, shape, kind), reduction=reduction, **options)
    grad, = lib.autograd.grad(loss.sum(), [x])
    return loss.detach().numpy(), grad.detach().numpy()


def _assert_same(mine, theirs):
    assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15)
    zeros = theirs == 0
    np.testing.assert_array_equal(np.signbit(mine[zeros]), np.signbit(theirs[zeros]))


def _loss_cases():
    """(loss, case, option): nll_loss takes class indices and no label smoothing."""
    return [(fn_name, case, option) for fn_name in ("cross_entropy", "nll_loss")
            for case in sorted(CASES) for option in sorted(OPTIONS)
            if fn_name == "cross_entropy"
            or CASES[case][1] != "probabilities" and option != "label smoothing"]


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fn_name, case, option", _loss_cases())
def test_nothing_to_sum_as_torch(fn_name, case, option, reduction, compile):
    shape, kind = CASES[case]
    mine, theirs = (_loss_and_grad(lib, fns, fn_name, shape, kind, OPTIONS[option], reduction,
                                   compile) for lib, fns in ((mg, F), (torch, TF)))
    for a, b in zip(mine, theirs):
        _assert_same(a, b)


@pytest.mark.parametrize("fn_name", ["cross_entropy", "nll_loss"])
def test_a_target_of_no_classes_is_out_of_bounds_as_torch(fn_name):
    caught = []
    for lib, fns in ((mg, F), (torch, TF)):
        with pytest.raises(IndexError) as info:
            getattr(fns, fn_name)(lib.zeros(2, 0), lib.tensor([0, -100]))
        caught.append(str(info.value))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fn_name", ["cross_entropy", "nll_loss"])
def test_spatial_input_of_no_classes_as_its_2d_form_in_torch(fn_name, reduction):
    """docs/divergences.md, spatial-no-classes: torch refuses an (N, 0, d) input of ignored
    class indices with a size mismatch between shapes it made up; minigrad gives what
    torch gives for the same samples as an (N * d, 0) input."""
    x = mg.zeros(2, 0, 3, dtype=mg.float64, requires_grad=True)
    mine = getattr(F, fn_name)(x, mg.full((2, 3), -100, dtype=mg.int64), reduction=reduction)
    grad, = mg.autograd.grad(mine.sum(), [x])
    flat = torch.zeros(6, 0, dtype=torch.float64)
    theirs = getattr(TF, fn_name)(flat, torch.full((6,), -100), reduction=reduction)
    _assert_same(mine.detach().numpy().reshape(-1), theirs.numpy().reshape(-1))
    assert grad.shape == x.shape
    with pytest.raises(RuntimeError, match="size mismatch"):
        getattr(TF, fn_name)(torch.zeros(2, 0, 3), torch.full((2, 3), -100))
