"""Gradients captured at a compiled region's outputs (``autograd.grad(loss, [mid])``,
``backward(inputs=[mid])``), where the region reads the output itself: the captured
gradient is the whole one, the part from inside the region included, as in eager mode
and PyTorch (CompiledBackward.whole_gradients)."""
import numpy as np
import pytest

import minigrad


def read_once(x):                      # y is read inside: its gradient has two parts
    y = x.sin()
    return [y], (y * y).sum()


def read_chain(x):                     # two outputs read inside, the second from the first
    y1 = x.sin()
    y2 = y1.cos()
    return [y1, y2], (y1 * y2).sum() + y1.sum()


def read_twice(x):                     # two outputs read inside, independently
    y1 = x.sin()
    y2 = x.cos()
    return [y1, y2], (y1 * y2 * y2).sum()


def read_outside_only(x):              # y is not read inside: the engine's usual path
    y = x.sin()
    return [y], (x * x).sum()


BODIES = [read_once, read_chain, read_twice, read_outside_only]
X0 = np.random.default_rng(3).uniform(0.5, 1.5, 5)


def loss_of(mids, z):
    """Each output used outside the region as well."""
    return z + sum(((k + 1) * m * m).sum() for k, m in enumerate(mids))


def numpy_of(grads):
    return [None if g is None else g.detach().numpy().copy() for g in grads]


def wrt_mids(lib, body):
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    return numpy_of(lib.autograd.grad(loss_of(mids, z), mids))


def wrt_mids_and_x(lib, body):
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    return numpy_of(lib.autograd.grad(loss_of(mids, z), [*mids, x]))


def wrt_mids_from_inside_alone(lib, body):
    """The region's own output as the root: no gradient from outside at all."""
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    return numpy_of(lib.autograd.grad(z, mids, allow_unused=True))


def backward_inputs_mids(lib, body):
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    loss_of(mids, z).backward(inputs=mids)   # (fills the non-leaf outputs' .grad)
    assert x.grad is None
    return numpy_of([m.grad for m in mids])


def second_order(lib, body):
    """Gradients of a function of the captured gradients, with respect to the outputs
    themselves and to the region's input."""
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    found = lib.autograd.grad(loss_of(mids, z), mids, create_graph=True)
    h = sum((g * g * g).sum() for g in found)
    return numpy_of(found) + numpy_of(lib.autograd.grad(h, [*mids, x], allow_unused=True))


def second_order_with_x(lib, body):
    """create_graph capturing the outputs and the input in one call."""
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    found = lib.autograd.grad(loss_of(mids, z), [*mids, x], create_graph=True)
    h = sum((g * g).sum() for g in found)
    return numpy_of(found) + numpy_of(lib.autograd.grad(h, [x]))


def retained_twice(lib, body):
    x = lib.tensor(X0, requires_grad=True)
    mids, z = body(x)
    loss = loss_of(mids, z)
    first = lib.autograd.grad(loss, mids, retain_graph=True)
    return numpy_of(first) + numpy_of(lib.autograd.grad(loss, [*mids, x]))


CASES = [wrt_mids, wrt_mids_and_x, wrt_mids_from_inside_alone, backward_inputs_mids,
         second_order, second_order_with_x, retained_twice]


def assert_same(mine, theirs):
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("body", BODIES, ids=lambda b: b.__name__)
def test_captured_output_gradient_matches_eager_and_torch(body, case):
    expected = case(minigrad, body)
    compiled = minigrad.compile(body)
    for _ in range(3):                                  # traced, then the generated code
        assert_same(case(minigrad, compiled), expected)
    torch = pytest.importorskip("torch")
    assert_same(expected, case(torch, body))


@pytest.mark.parametrize("lib_name", ["minigrad", "torch"])
def test_an_output_the_root_does_not_reach_follows_allow_unused(lib_name):
    lib = pytest.importorskip(lib_name)
    body = minigrad.compile(read_twice) if lib is minigrad else read_twice
    for _ in range(3):
        x = lib.tensor(X0, requires_grad=True)
        (y1, y2), z = body(x)
        elsewhere = (x * 2).sum()                       # reads neither output
        with pytest.raises(RuntimeError, match="appears to not have been used"):
            lib.autograd.grad(elsewhere, [y1], retain_graph=True)
        none, = lib.autograd.grad(elsewhere, [y1], allow_unused=True, retain_graph=True)
        assert none is None
        zeros, = lib.autograd.grad(elsewhere, [y1], materialize_grads=True)
        np.testing.assert_array_equal(zeros.detach().numpy(), np.zeros(5))


@pytest.mark.parametrize("lib_name", ["minigrad", "torch"])
def test_a_second_call_through_a_freed_graph_raises(lib_name):
    lib = pytest.importorskip(lib_name)
    body = minigrad.compile(read_once) if lib is minigrad else read_once
    for _ in range(3):
        x = lib.tensor(X0, requires_grad=True)
        mids, z = body(x)
        loss = loss_of(mids, z)
        lib.autograd.grad(loss, mids)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            lib.autograd.grad(loss, mids)


def test_a_capture_after_the_region_ran_and_was_freed_raises():
    compiled = minigrad.compile(read_once)
    for _ in range(3):
        x = minigrad.tensor(X0, requires_grad=True)
        (y,), z = compiled(x)
        (z + y.sum()).backward()                        # the region's node is freed
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            minigrad.autograd.grad(z * 2, [y])
        found, = minigrad.autograd.grad(y.sum() * 2, [y])  # nothing from inside: as eager
        np.testing.assert_array_equal(found.numpy(), np.full(5, 2.0))


def hooked_capture(body, with_x):
    """A hook (tripling the gradient) and retain_grad on the read output, captured:
    (the captured gradients, what the hook saw, y.grad)."""
    x = minigrad.tensor(X0, requires_grad=True)
    (y,), z = body(x)
    seen = []
    y.register_hook(lambda g: seen.append(g.detach().numpy().copy()) or g * 3)
    y.retain_grad()
    found = minigrad.autograd.grad(loss_of([y], z), [y, x] if with_x else [y])
    return numpy_of(found), seen, y.grad.numpy()


@pytest.mark.parametrize("with_x", [False, True], ids=["output", "output-and-input"])
def test_hooks_on_a_captured_output_run_once_on_its_whole_gradient(with_x):
    expected_found, expected_seen, expected_grad = hooked_capture(read_once, with_x)
    compiled = minigrad.compile(read_once)
    for _ in range(3):
        found, seen, grad = hooked_capture(compiled, with_x)
        assert len(seen) == 1
        assert_same(found + seen + [grad], expected_found + expected_seen + [expected_grad])
