"""Loss arguments torch's kernels cannot differentiate (class weights, BCE weights,
soft_margin_loss's target): requiring their gradient is torch's RuntimeError as the loss
is made, naming the kernel and the argument; under no_grad the loss is made."""
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

