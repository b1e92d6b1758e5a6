"""Tensor and node hooks: order, replacement gradients, removal, create_graph (vs PyTorch)."""
import numpy as np
import pytest

import minigrad as mg


def _events(L, create_graph=False, use_grad=False):
    """Register every kind of hook on a small graph and log when each fires."""
    log = []
    x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
    a = x * x
    b = a.sin()
    y = (b * 2.0).sum()
    a.register_hook(lambda g: log.append(("a.hook1", np.round(g.detach().numpy(), 6).tolist())))
    a.register_hook(lambda g: g * 10)
    a.retain_grad()
    a.register_hook(lambda g: log.append(("a.hook3", np.round(g.detach().numpy(), 6).tolist())))
    a.grad_fn.register_prehook(lambda gs: log.append(("a.grad_fn.pre", len(gs))))
    a.grad_fn.register_hook(lambda gi, go: log.append(("a.grad_fn.post", len(gi), len(go))))
    b.grad_fn.register_hook(lambda gi, go: log.append(("b.grad_fn.post",)))
    x.register_hook(lambda g: log.append(("x.hook", np.round(g.detach().numpy(), 6).tolist())))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("x.post_acc", t.grad is not None)))
    if use_grad:
        L.autograd.grad(y, x, create_graph=create_graph)
    else:
        y.backward(create_graph=create_graph)
    log.append(("a.grad", None if a.grad is None else np.round(a.grad.detach().numpy(), 6).tolist()))
    log.append(("x.grad", None if x.grad is None else np.round(x.grad.detach().numpy(), 6).tolist()))
    return log


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("use_grad", [False, True], ids=["backward", "autograd.grad"])
def test_hook_order_and_values_match_pytorch(create_graph, use_grad):
    torch = pytest.importorskip("torch")
    got = _events(mg, create_graph, use_grad)
    ref = _events(torch, create_graph, use_grad)
    assert got == ref


def test_hook_order_without_torch():
    log = _events(mg)
    names = [e[0] for e in log]
    assert names == ["b.grad_fn.post", "a.hook1", "a.hook3", "a.grad_fn.pre", "a.grad_fn.post",
                     "x.hook", "x.post_acc", "a.grad", "x.grad"]
    # the second hook multiplied by 10; retain_grad sees the hooked value
    assert log[2][1] == pytest.approx([10 * 2 * np.cos(v) for v in (1.0, 4.0, 9.0)], rel=1e-5)


def test_hooks_fire_once_per_backward_per_tensor():
    calls = []
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 3.0
    a.register_hook(lambda g: calls.append("a"))
    y = (a * a).sum() + a.sum()     # a used three times, its gradient summed first
    y.backward(create_graph=True)
    assert calls == ["a"]
    np.testing.assert_allclose(x.grad.detach().numpy(), 3.0 * (2 * 3.0 * np.array([1.0, 2.0]) + 1))


def test_remove_handle_and_context_manager():
    calls = []
    x = mg.tensor([1.0], requires_grad=True)
    h = x.register_hook(lambda g: calls.append(1))
    h.remove()
    h.remove()   # removing twice is harmless
    (x * 2).sum().backward()
    assert calls == []
    y = x * 2
    with y.grad_fn.register_prehook(lambda gs: calls.append(2)):
        pass
    y.sum().backward()
    assert calls == []


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mg.tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        mg.tensor([1.0]).retain_grad()
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_retains_grad_flag():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    assert not y.retains_grad
    y.retain_grad()
    assert y.retains_grad
    assert not x.retains_grad   # leaves keep .grad anyway


def test_node_prehook_replaces_grad_outputs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.grad_fn.register_prehook(lambda gs: (gs[0] * 0.5,))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])


def test_node_post_hook_replaces_grad_inputs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7.0,))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [7.0, 7.0])


def test_backward_inside_a_hook():
    # a hook that runs its own small backward: reentrant, and it works
    inner = mg.tensor([2.0], requires_grad=True)
    seen = []

    def hook(g):
        with mg.enable_grad():   # backward runs hooks in no-grad mode, as PyTorch does
            (inner * inner).sum().backward()
        seen.append(inner.grad.item())
        return g

    x = mg.tensor([1.0], requires_grad=True)
    y = x * 3
    y.register_hook(hook)
    y.sum().backward()
    assert seen == [4.0]
    assert x.grad.item() == 3.0


def test_reentrant_depth_is_bounded_with_a_clear_error():
    from minigrad.autograd.api import MAX_REENTRANT_DEPTH

    def recurse(g):
        with mg.enable_grad():
            z = mg.tensor([1.0], requires_grad=True)
            w = z * 2
            w.register_hook(recurse)
            w.sum().backward()
        return g

    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    y.register_hook(recurse)
    with pytest.raises(RuntimeError, match=f"limit of {MAX_REENTRANT_DEPTH}"):
        y.sum().backward()


def test_hooks_and_retain_grad_across_an_inplace_op_match_pytorch():
    # PyTorch: hooks registered before an in-place op see the old version's gradient,
    # hooks registered after see the new one; .grad of a retaining tensor is the new one's.
    torch = pytest.importorskip("torch")

    def run(L):
        log = []
        x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        b = x * 2
        b.retain_grad()
        b.register_hook(lambda g: log.append(("before", g.tolist())))
        b.mul_(3)
        b.register_hook(lambda g: log.append(("after", g.tolist())))
        base = x * 1
        v = base[1:]
        v.retain_grad()
        base.mul_(5)          # v's history is refreshed; its .grad follows
        (b * b).sum().backward(retain_graph=True)
        (v * v).sum().backward()
        return log, b.grad.tolist(), b.retains_grad, v.grad.tolist(), x.grad.tolist()

    assert run(mg) == run(torch)
