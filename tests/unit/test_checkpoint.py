"""Checkpointing: same gradients as the plain run, recomputation, memory, nesting."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential

MODES = pytest.mark.parametrize("use_reentrant", [True, False], ids=["reentrant", "non_reentrant"])


def block(h, w):
    return h + mg.tanh(h @ w) * mg.sigmoid(h)


def _params(n=4, width=3, seed=0):
    rng = np.random.default_rng(seed)
    return [mg.tensor(rng.standard_normal((width, width)), requires_grad=True) for _ in range(n)]


@MODES
def test_gradients_identical_to_plain_run(use_reentrant):
    x0 = np.random.default_rng(1).standard_normal((2, 3))
    results = []
    for ckpt in (False, True):
        ws = _params()
        x = mg.tensor(x0, requires_grad=True)
        h = x
        for w in ws:
            h = checkpoint(block, h, w, use_reentrant=use_reentrant) if ckpt else block(h, w)
        (h * h).sum().backward()
        results.append([x.grad.numpy()] + [w.grad.numpy() for w in ws])
    for got, ref in zip(*results):
        np.testing.assert_array_equal(got, ref)


@MODES
def test_nested_checkpoints(use_reentrant):
    ws = _params(2)
    x = mg.tensor([[0.1, -0.2, 0.3]], dtype=mg.float64, requires_grad=True)

    def outer(h):
        h = checkpoint(block, h, ws[0], use_reentrant=use_reentrant)
        return checkpoint(block, h, ws[1], use_reentrant=use_reentrant)

    checkpoint(outer, x, use_reentrant=use_reentrant).sum().backward()
    got = [x.grad.numpy().copy()] + [w.grad.numpy().copy() for w in ws]
    for t in [x] + ws:
        t.grad = None
    block(block(x, ws[0]), ws[1]).sum().backward()
    for g, t in zip(got, [x] + ws):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-14)


def test_non_reentrant_works_with_autograd_grad_and_kwargs():
    w = _params(1)[0]
    x = mg.tensor([[0.5, 0.1, -0.3]], dtype=mg.float64, requires_grad=True)
    out = checkpoint(lambda h, *, weight: block(h, weight), x, weight=w, use_reentrant=False)
    gx, = mg.autograd.grad(out.sum(), x)
    ref, = mg.autograd.grad(block(x, w).sum(), x)
    np.testing.assert_allclose(gx.numpy(), ref.numpy(), rtol=1e-14)
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        checkpoint(lambda h, *, weight: h, x, weight=w, use_reentrant=True)


def test_rng_state_is_replayed():
    def noisy(h):
        return h * mg.rand(3, dtype=mg.float64)

    mg.manual_seed(0)
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    out = checkpoint(noisy, x, use_reentrant=True)
    noise = out.detach().numpy() / np.array([1.0, 2.0, 3.0])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), noise, rtol=1e-14)


@MODES
def test_double_backward_through_checkpoint_is_a_clear_error(use_reentrant):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    out = checkpoint(lambda h: (h ** 3).sum(), x, use_reentrant=use_reentrant)
    with pytest.raises(RuntimeError, match="cannot be differentiated twice"):
        mg.autograd.grad(out, x, create_graph=True)


def test_checkpoint_sequential():
    ws = _params(6)
    x = mg.tensor([[0.2, 0.4, -0.1]], dtype=mg.float64, requires_grad=True)
    fns = [lambda h, w=w: block(h, w) for w in ws]
    checkpoint_sequential(fns, 3, x).sum().backward()
    got = x.grad.numpy().copy()
    x.grad = None
    h = x
    for f in fns:
        h = f(h)
    h.sum().backward()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-14)


def test_saved_activation_peak_drops_at_least_5x():
    from tools.bench_checkpoint import run
    report = run()
    for mode in ("reentrant", "non_reentrant"):
        assert report[mode]["identical_grads"], mode
        assert report[mode]["peak_ratio"] >= 5.0, (mode, report)
    assert report["reentrant"]["saved_ratio"] >= 5.0, report
