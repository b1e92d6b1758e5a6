"""Loss arguments torch's kernels cannot differentiate (class weights, BCE weights,
soft_margin_loss's target): requiring their gradient is torch's RuntimeError as the loss
is made, naming the kernel and the argument; under no_grad the loss is made.  The class
weights of class-probability targets do get a gradient (first and second order), as torch's."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _float(lib, *shape, grad=False):
    values = np.linspace(0.1, 0.9, int(np.prod(shape))).reshape(shape)
    return lib.tensor(values, requires_grad=grad)


CASES = {
    "bce weight": lambda L, Fn: Fn.binary_cross_entropy(
        _float(L, 3), _float(L, 3), weight=_float(L, 3, grad=True)),
    "bce_with_logits weight": lambda L, Fn: Fn.binary_cross_entropy_with_logits(
        _float(L, 3), _float(L, 3), weight=_float(L, 3, grad=True)),
    "bce_with_logits pos_weight": lambda L, Fn: Fn.binary_cross_entropy_with_logits(
        _float(L, 3), _float(L, 3), pos_weight=_float(L, 3, grad=True)),
    "bce_with_logits both": lambda L, Fn: Fn.binary_cross_entropy_with_logits(
        _float(L, 3), _float(L, 3), weight=_float(L, 3, grad=True),
        pos_weight=_float(L, 3, grad=True)),
    "nll_loss weight": lambda L, Fn: Fn.nll_loss(
        _float(L, 2, 3), L.tensor([0, 2]), weight=_float(L, 3, grad=True)),
    "nll_loss 3-D weight": lambda L, Fn: Fn.nll_loss(
        _float(L, 2, 3, 4), L.zeros(2, 4, dtype=L.int64), weight=_float(L, 3, grad=True)),
    "cross_entropy weight": lambda L, Fn: Fn.cross_entropy(
        _float(L, 2, 3), L.tensor([0, 2]), weight=_float(L, 3, grad=True)),
    "cross_entropy 4-D weight, smoothing": lambda L, Fn: Fn.cross_entropy(
        _float(L, 2, 3, 2, 2), L.zeros(2, 2, 2, dtype=L.int64), weight=_float(L, 3, grad=True),
        label_smoothing=0.1),
    "soft_margin target": lambda L, Fn: Fn.soft_margin_loss(_float(L, 3), _float(L, 3, grad=True)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_gradient_torch_cannot_give_is_refused_as_torch(case):
    caught = []
    for lib, fns in ((mg, F), (torch, TF)):
        with pytest.raises(RuntimeError) as info:
            CASES[case](lib, fns)
        caught.append(str(info.value))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("case", sorted(CASES))
def test_under_no_grad_the_loss_is_made_as_torch(case):
    with mg.no_grad():
        mine = CASES[case](mg, F)
    with torch.no_grad():
        theirs = CASES[case](torch, TF)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)



@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape, smoothing", [((2, 3), 0.0), ((2, 3, 2), 0.2), ((3,), 0.1)],
                         ids=str)
def test_class_probabilities_take_a_weight_gradient_as_torch(shape, smoothing, reduction,
                                                             compile):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape), rng.random(shape),
              rng.random(shape[1] if len(shape) > 1 else shape[0]) + 0.5]
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        x, t, w = (lib.tensor(a, requires_grad=True) for a in arrays)
        fn = mg.compile(fns.cross_entropy) if compile and lib is mg else fns.cross_entropy
        loss = fn(x, t, weight=w, reduction=reduction, label_smoothing=smoothing)
        firsts = lib.autograd.grad((loss * loss).sum(), [x, t, w], create_graph=True)
        seconds = lib.autograd.grad(sum((g * g).sum() for g in firsts), [x, t, w])
        results.append([loss, *firsts, *seconds])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
