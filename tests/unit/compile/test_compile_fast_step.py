"""The compiled step's shortcuts (runtime._record_node, the generated guard's grad-mode
test, CompiledFunction.__call__'s latches) behave as eager mode: the errors of saved
inputs, grad mode per thread, inference mode."""
import threading

import numpy as np
import pytest

import minigrad


def leaf(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return minigrad.tensor(rng.uniform(0.5, 1.5, shape), requires_grad=True)


def product(x, w):
    return (x * w).sum()


def hot(fn, *args):
    """``fn`` compiled, called twice on ``args`` (its guard is then the generated one)."""
    compiled = minigrad.compile(fn)
    compiled(*args)
    compiled(*args)
    return compiled


def error_of(action):
    with pytest.raises(RuntimeError) as caught:
        action()
    return str(caught.value)


@pytest.mark.parametrize("leaf_requires_grad", [False, True])
def test_a_leaf_changed_in_place_gives_eager_modes_error(leaf_requires_grad):
    def message(fn):
        x = leaf(3)
        w = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64,
                            requires_grad=leaf_requires_grad)
        y = fn(x, w)
        with minigrad.no_grad():
            w.add_(1.0)
        return error_of(y.backward)
    compiled = hot(product, leaf(3), minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64,
                                                     requires_grad=leaf_requires_grad))
    assert message(compiled) == message(product)
    assert "is at version 1; expected version 0" in message(compiled)


def test_an_input_detached_in_place_gives_eager_modes_error():
    def message(fn):
        x, w = leaf(3), leaf(3, seed=1)
        h = x * 2.0                  # an input with history, which the backward reads
        y = fn(h, w)
        h.detach_()
        return error_of(y.backward)
    compiled = hot(product, leaf(3) * 2.0, leaf(3, seed=1))
    assert message(compiled) == message(product)


def test_an_inference_tensor_the_backward_reads_is_refused_as_in_eager_mode():
    def message(fn):
        with minigrad.inference_mode():
            w = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64)
        return error_of(lambda: fn(leaf(3), w))
    compiled = hot(product, leaf(3), minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64))
    assert message(compiled) == message(product)


def test_the_gradients_match_eager_mode_over_repeated_steps():
    compiled = minigrad.compile(lambda a, b: ((a + b) * b).sum())
    a, b = leaf(4), leaf(4, seed=1)
    for _ in range(3):
        compiled(a, b).backward()
        grads = a.grad._data.copy(), b.grad._data.copy()
        a.grad = b.grad = None
    ((a + b) * b).sum().backward()
    np.testing.assert_array_equal(grads[0], a.grad._data)
    np.testing.assert_array_equal(grads[1], b.grad._data)


def test_grad_mode_of_another_thread_is_its_own():
    compiled = hot(product, leaf(3), leaf(3, seed=1))
    x, w = leaf(3), leaf(3, seed=1)
    results, ready, done = {}, threading.Event(), threading.Event()

    def without_grad():
        with minigrad.no_grad():
            ready.set()
            results["thread"] = compiled(x, w)
            done.wait(10)

    thread = threading.Thread(target=without_grad)
    thread.start()
    ready.wait(10)
    results["main"] = compiled(x, w)   # while the other thread's grad mode is off
    done.set()
    thread.join()
    assert results["thread"].grad_fn is None
    assert results["main"].grad_fn is not None
    assert len(compiled._cache) == 2   # the thread's call had a guard of its own


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode", "enable_grad_inside"])
def test_a_hot_guard_follows_the_grad_mode(mode):
    compiled = hot(product, leaf(3), leaf(3, seed=1))
    x, w = leaf(3), leaf(3, seed=1)
    if mode == "no_grad":
        with minigrad.no_grad():
            out = compiled(x, w)
        assert out.grad_fn is None
        assert len(compiled._cache) == 2   # a guard of its own (the mode is in the key)
    elif mode == "inference_mode":
        with minigrad.inference_mode():
            out = compiled(x, w)
        assert out.grad_fn is None and out.is_inference()
        assert len(compiled._cache) == 2
    else:
        with minigrad.no_grad():
            compiled(x, w)             # compiled for grad mode off
            with minigrad.enable_grad():
                out = compiled(x, w)
        assert out.grad_fn is not None
        out.backward()
        np.testing.assert_array_equal(x.grad._data, w._data)

