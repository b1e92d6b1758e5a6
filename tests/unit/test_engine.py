"""The backward engine: ordering, accumulation, None gradients, errors, higher order."""
import gc
import weakref

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import grad


def leaf(values):
    return mg.tensor(values, requires_grad=True)


def test_talk_example_gives_7_and_2():
    x1, x2 = leaf(2.0), leaf(3.0)
    y = x1 * (x1 + x2)
    y.backward()
    assert x1.grad.item() == 7.0 and x2.grad.item() == 2.0


def test_a_100000_op_chain_backwards_without_recursion():
    x = leaf([1.0])
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_gradients_for_one_input_are_summed_over_its_uses():
    x = leaf([1.0, 2.0])
    (x * x + x * 3.0 + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([1.0, 2.0]) + 4)


def test_leaf_grad_accumulates_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_accumulated_grads_of_two_leaves_do_not_alias():
    a, b = leaf([1.0]), leaf([1.0])
    (a + b).sum().backward()
    a.grad.data += 10
    assert b.grad.item() == 1.0


def test_unused_input_is_none_with_allow_unused_and_an_error_without():
    a, b = leaf([1.0]), leaf([2.0])
    out = (a * a).sum()
    da, db = grad(out, [a, b], retain_graph=True, allow_unused=True)
    assert da.item() == 2.0 and db is None
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(out, [a, b])


def test_node_whose_incoming_gradients_are_all_none_is_skipped():
    x = leaf([1.0, 2.0])
    z = x.exp()
    w = z * 2.0
    ran = []
    z.grad_fn.register_prehook(lambda grads: ran.append("exp"))
    w.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (None, None))  # "known zero"
    w.sum().backward()
    assert ran == [] and x.grad is None


def test_backward_twice_without_retain_graph_raises_pytorchs_message():
    x = leaf([1.0, 2.0])
    y = (x.exp()).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x.exp()).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]))


def test_graph_without_saved_tensors_can_run_twice_like_pytorch():
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_implicit_gradient_of_a_non_scalar_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_explicit_gradient_for_a_non_scalar():
    x = leaf([1.0, 2.0])
    (x * 2).backward(mg.tensor([1.0, 10.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 20.0])


def test_backward_of_a_tensor_that_does_not_require_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        mg.tensor([1.0]).sum().backward()


def test_grad_does_not_touch_dot_grad():
    x = leaf([3.0])
    (dx,) = grad((x * x).sum(), x)
    assert dx.item() == 6.0 and x.grad is None


def test_second_order_with_create_graph():
    x = leaf(3.0)
    (dx,) = grad(x ** 3, x, create_graph=True)
    (ddx,) = grad(dx, x)
    assert dx.item() == 27.0 and ddx.item() == 18.0


def test_create_graph_backward_keeps_a_differentiable_grad():
    x = leaf([1.0, 2.0])
    (x ** 2).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (gx,) = grad(x.grad.sum(), x)
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])


def test_grad_with_respect_to_an_intermediate_tensor():
    x = leaf([1.0, 2.0])
    h = x * 3
    out = (h * h).sum()
    dh, dx = grad(out, [h, x])
    np.testing.assert_allclose(dh.numpy(), 2 * h.detach().numpy())
    np.testing.assert_allclose(dx.numpy(), 18 * x.detach().numpy())


def test_float32_leaves_get_float32_gradients_even_through_float64_math():
    x = mg.tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    (x * mg.tensor([2.0, 2.0])).sum().backward()   # the product is float64
    assert x.grad.dtype == np.float32


def test_backward_inputs_accumulates_only_into_the_given_leaves():
    a, b = leaf([1.0]), leaf([2.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.item() == 2.0 and b.grad is None


@pytest.mark.parametrize("inputs", ["y", "y and x"])
def test_backward_inputs_on_a_non_leaf_that_retains_grad_accumulates_once(inputs):
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        loss = (y * y).sum()
        wanted = [y] if inputs == "y" else [y, x]
        loss.backward(inputs=wanted, retain_graph=True)
        loss.backward(inputs=wanted)                     # .grad accumulates across calls
        grads.append([None if t.grad is None else np.asarray(t.grad.tolist()) for t in (y, x)])
    for ours, theirs in zip(*grads):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs)


def test_graph_is_freed_by_reference_counting_alone():
    gc.disable()
    try:
        x = leaf(np.ones(3))
        y = (x.exp() * 2).sigmoid()      # exp and sigmoid save their result
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None, "a saved output must not keep its own node alive"
    finally:
        gc.enable()


def test_engine_runs_the_notebook_simple_example():
    a = mg.tensor([0.0171, 0.1633, 0.5833, 0.3794], requires_grad=True)
    b = mg.tensor([0.3774, 0.6308, 0.5239, 0.1387], requires_grad=True)
    da, db = grad(((a + b) * b).sum(), [a, b])
    np.testing.assert_allclose(da.numpy(), b.detach().numpy())
    np.testing.assert_allclose(db.numpy(), (a + 2 * b).detach().numpy())


def test_a_user_supplied_gradient_is_never_aliased_by_grad():
    a = leaf([1.0, 2.0])
    g = mg.tensor([5.0, 6.0])
    a.backward(g)
    (a + 0.0).backward(g)          # add passes the gradient array through unchanged
    a.grad.data += 1
    assert g.tolist() == [5.0, 6.0] and a.grad.tolist() == [11.0, 13.0]


def test_fresh_gradients_are_not_copied_but_are_still_private():
    a, b = leaf([1.0]), leaf([2.0])
    (a * b).sum().backward()
    a.grad.data += 1
    assert b.grad.item() == 1.0 and a.grad.item() == 3.0
