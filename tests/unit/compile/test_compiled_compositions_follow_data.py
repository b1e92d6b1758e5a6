"""nn.functional compositions under minigrad.compile follow the data of every call.

A composition that made a mask from its inputs' values in Python (``x._data > 0``) had the
mask of the first call frozen into the generated code: later calls gave that call's
selection (threshold, celu, prelu, smooth_l1_loss, huber_loss, kl_div, poisson_nll_loss's
Stirling term, hinge and cosine embedding losses, nll_loss, attention masks).  Masks are
now Tensor comparisons, which the tracer records, and checks on values (a class target's
range of the margin losses) break the graph, so they run on every call; nll_loss's class
range and binary_cross_entropy's [0, 1] are checked in their kernels, which the generated
code calls.

Each case compiles the function, calls it on one input and then on another, and compares
the second call's value and input gradients with eager minigrad's on the same input.
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.compile import GraphBreak


def _x(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape or (3, 4))


def _signs(seed, *shape):
    return np.sign(_x(seed, *shape)) + (_x(seed, *shape) == 0)


def _classes(seed, n=3, classes=4):
    return np.random.default_rng(seed).integers(0, classes, n)


_MHA = {}


def _attention(q, mask):
    if not _MHA:
        mg.manual_seed(0)
        _MHA["module"] = mg.nn.MultiheadAttention(4, 1, dtype=mg.float64)
    return _MHA["module"](q, q, q, attn_mask=mask)[0]


# name: (function, inputs for a seed: (array, requires_grad) pairs)
CASES = {
    "threshold": (lambda x: F.threshold(x, 0.1, 20.0), lambda s: [(_x(s), True)]),
    "celu": (F.celu, lambda s: [(_x(s), True)]),
    "prelu": (F.prelu, lambda s: [(_x(s), True), (np.array([0.25]), True)]),
    "normalize": (F.normalize, lambda s: [(_x(s) * (_x(s + 7) > 0), True)]),
    "smooth_l1_loss": (F.smooth_l1_loss, lambda s: [(_x(s), True), (_x(s + 10), False)]),
    "huber_loss": (F.huber_loss, lambda s: [(_x(s), True), (_x(s + 10), False)]),
    "kl_div": (lambda x, t: F.kl_div(x, t, reduction="batchmean"),
               lambda s: [(_x(s), True), (_x(s + 10), False)]),
    "poisson_nll_loss full": (lambda x, t: F.poisson_nll_loss(x, t, full=True),
                              lambda s: [(_x(s), True), (np.abs(_x(s + 10)) * 3, True)]),
    "hinge_embedding_loss": (F.hinge_embedding_loss,
                             lambda s: [(_x(s), True), (_signs(s + 10), False)]),
    "cosine_embedding_loss": (F.cosine_embedding_loss,
                              lambda s: [(_x(s), True), (_x(s + 5), True),
                                         (_signs(s + 10, 3), False)]),
    "nll_loss": (F.nll_loss, lambda s: [(_x(s), True), (_classes(s), False)]),
    "nll_loss, weights, 'none'": (lambda x, t, w: F.nll_loss(x, t, weight=w, reduction="none"),
                                  lambda s: [(_x(s), True), (_classes(s), False),
                                             (np.abs(_x(s, 4)), False)]),
    "multi_margin_loss": (F.multi_margin_loss, lambda s: [(_x(s), True), (_classes(s), False)]),
    "multilabel_margin_loss": (F.multilabel_margin_loss,
                               lambda s: [(_x(s), True), (np.array([[s % 4, -1, 0, 0]] * 3), False)]),
    "scaled_dot_product_attention, bool mask": (
        lambda q, m: F.scaled_dot_product_attention(q, q, q, attn_mask=m),
        lambda s: [(_x(s, 1, 3, 4), True), (_x(s + 10, 3, 3) > 0, False)]),
    "MultiheadAttention, bool mask": (
        _attention, lambda s: [(_x(s, 3, 1, 4), True), (_x(s + 10, 3, 3) > 0.5, False)]),
}


# compiled whole (fullgraph=True) since the seventh round: each made a tensor outside the
# recorded ops (a numpy mask, a clamp on the data, a first use through .detach()/.data)
WHOLE = {
    "one_hot": (lambda x, t: x * F.one_hot(t, 4), lambda s: [(_x(s), True), (_classes(s), False)]),
    "scaled_dot_product_attention, causal": (
        lambda q: F.scaled_dot_product_attention(q, q * 2, q, is_causal=True),
        lambda s: [(_x(s, 2, 3, 4), True)]),
    "cosine_similarity": (F.cosine_similarity, lambda s: [(_x(s), True), (_x(s + 5), True)]),
    "cosine_similarity, clamped norms": (lambda x, t: F.cosine_similarity(x, t, eps=0.5),
                                        lambda s: [(_x(s) * 0.1, True), (_x(s + 5), True)]),
    "detach of an argument": (lambda x: x.detach() * x, lambda s: [(_x(s), True)]),
    "detach of a slice": (lambda x: x[:, 1].detach().sign() * x[:, 0],
                          lambda s: [(_x(s), True)]),
    ".data of an argument": (lambda x: x.data * x, lambda s: [(_x(s), True)]),
    "nll_loss": (F.nll_loss, lambda s: [(_x(s), True), (_classes(s), False)]),
    "binary_cross_entropy": (lambda x, t: F.binary_cross_entropy(x.sigmoid(), t),
                             lambda s: [(_x(s), True), (np.abs(_x(s + 3)) / 3, False)]),
}


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_compiles_whole_and_follows_each_calls_data(name):
    fn, make = WHOLE[name]
    _assert_follows_data(mg.compile(fn, fullgraph=True), fn, make)


def _run(fn, inputs):
    tensors = [mg.tensor(a, requires_grad=g) for a, g in inputs]
    out = fn(*tensors)
    out.sum().backward()
    return out.detach().numpy(), [t.grad.numpy() if t.requires_grad else None for t in tensors]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_compiled_composition_follows_each_calls_data(name):
    fn, make = CASES[name]
    _assert_follows_data(mg.compile(fn), fn, make)


def _assert_follows_data(compiled, fn, make):
    """The compiled call on new data gives eager's value and input gradients."""
    _run(compiled, make(1))
    value, grads = _run(compiled, make(2))
    expected, expected_grads = _run(fn, make(2))
    np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads, expected_grads):
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_binary_cross_entropy_checks_its_input_on_every_compiled_call():
    """Its check is in its kernel (binary_cross_entropy_elements): it compiles, and the
    generated code checks every call's values."""
    compiled = mg.compile(lambda x: F.binary_cross_entropy(x, mg.full_like(x, 0.5)),
                          fullgraph=True)
    inside = np.random.default_rng(0).random((3, 4))
    compiled(mg.tensor(inside, requires_grad=True))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        compiled(mg.tensor(inside * 3, requires_grad=True))


def test_nll_loss_checks_its_target_on_every_compiled_call():
    """Its check is in its kernel (the nll_loss op): it compiles, and checks every call."""
    compiled = mg.compile(F.nll_loss, fullgraph=True)
    x = mg.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    compiled(x, mg.tensor([0, 1, 2]))
    with pytest.raises(IndexError, match="Target 9 is out of bounds"):
        compiled(x, mg.tensor([0, 1, 9]))


def test_fullgraph_names_the_check_that_breaks_the_graph():
    compiled = mg.compile(F.gaussian_nll_loss, fullgraph=True)
    with pytest.raises(GraphBreak, match="gaussian_nll_loss checks that var is not negative"):
        compiled(mg.tensor([0.25, 0.5]), mg.tensor([0.0, 1.0]), mg.tensor([1.0, 2.0]))
