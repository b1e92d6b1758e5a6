"""minigrad.compile on big programs (from 65,536 elements): the backward's pooled matmul
gradients, where(mask, 0, grad) as a product, and loss.backward()'s ones not multiplied,
each against eager minigrad (bit for bit) with the aliasing cases they must refuse."""
import numpy as np
import pytest

import minigrad


def leaf(*shape, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return minigrad.tensor(rng.uniform(-1.0, 1.0, shape).astype(dtype), requires_grad=True)


def compiled_state(fn):
    return "eager" if fn.source().startswith("# not compiled") else "compiled"


def eager_grads(fn, tensors):
    for t in tensors:
        t.grad = None
    fn(*tensors).backward()
    grads = [t.grad._data.copy() for t in tensors]
    for t in tensors:
        t.grad = None
    return grads


def assert_same(got, expected):
    for a, e in zip(got, expected):
        np.testing.assert_array_equal(a, e)


# ------------------------------------------------------------------ pooled matmul gradients
def mlp_loss(x, w1, b1, w2):
    return ((x @ w1 + b1).relu() @ w2).tanh().sum()


def mlp_tensors():
    return (minigrad.tensor(np.random.default_rng(9).normal(size=(64, 300))),
            leaf(300, 256), leaf(256, seed=1), leaf(256, 100, seed=2))


def test_pooled_gradients_match_eager_step_after_step():
    x, *params = mlp_tensors()
    g = minigrad.compile(mlp_loss)
    for _ in range(4):
        expected = eager_grads(lambda *p: mlp_loss(x, *p), params)
        g(x, *params).backward()
        assert_same([p.grad._data for p in params], expected)
        with minigrad.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
    assert compiled_state(g) == "compiled"


@pytest.mark.parametrize("hold", ["tensor", "array", "view"])
def test_a_gradient_still_held_is_never_written_over(hold):
    x, *params = mlp_tensors()
    g = minigrad.compile(mlp_loss)
    g(x, *params).backward()
    held = []
    for _ in range(3):
        for p in params:
            p.grad = None
        g(x, *params).backward()
        grad = params[0].grad
        kept = {"tensor": grad, "array": grad._data, "view": grad[:10]}[hold]
        data = kept if hold == "array" else kept._data
        held.append((data, data.copy()))
        with minigrad.no_grad():
            params[0] += 0.5     # the next gradient differs
    for data, value in held:
        np.testing.assert_array_equal(data, value)


def test_accumulated_gradients_and_hooks_match_eager():
    x, *params = mlp_tensors()
    g = minigrad.compile(mlp_loss)
    expected = [2 * e for e in eager_grads(lambda *p: mlp_loss(x, *p), params)]
    for _ in range(2):    # no zeroing: the second adds into the first
        g(x, *params).backward()
    assert_same([p.grad._data for p in params], expected)
    seen = []
    params[0].register_hook(lambda grad: seen.append(grad._data.copy()))   # the engine runs
    for p in params:
        p.grad = None
    for _ in range(2):
        g(x, *params).backward()
    assert_same([p.grad._data for p in params], expected)
    assert len(seen) == 2 and np.array_equal(seen[0], seen[1])


def test_retained_graph_backward_twice_matches_eager():
    x, *params = mlp_tensors()
    g = minigrad.compile(mlp_loss)
    g(x, *params)
    out = g(x, *params)
    out.backward(retain_graph=True)
    first = [p.grad._data.copy() for p in params]
    for p in params:
        p.grad = None
    out.backward()
    assert_same([p.grad._data for p in params], first)
    assert_same(first, eager_grads(lambda *p: mlp_loss(x, *p), params))


# ------------------------------------------------------------------ where(mask, 0, grad)
def test_relu_backward_keeps_zeros_where_the_gradient_is_inf():
    x = leaf(70_000)

    def f(x):
        return x.relu().sqrt().sum()   # sqrt's gradient at relu's zeros is inf: inf * 0 is NaN
    g = minigrad.compile(f)
    for _ in range(2):
        x.grad = None
        g(x).backward()
    expected = eager_grads(f, [x])[0]
    g(x).backward()
    np.testing.assert_array_equal(x.grad._data, expected)
    assert (x.grad._data[x._data <= 0] == 0).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_and_clamp_backward_match_eager(dtype):
    x = leaf(300, 300, dtype=dtype)

    def f(x):
        return ((x * 3.0).relu() * x + x.clamp(-0.5, 0.5).exp()).mean()
    g = minigrad.compile(f)
    for _ in range(3):
        x.grad = None
        g(x).backward()
        got = x.grad._data.copy()
        assert_same([got], eager_grads(f, [x]))


# ------------------------------------------------------------------ loss.backward()'s ones
@pytest.mark.parametrize("fn, y_shape", [
    (lambda x, y: (x * y).sum(), (300, 300)),
    (lambda x, y: (x * x).sum() + (y * 3.0).sum(), (300,)),
    (lambda x, y: (x.sin() * x.exp() + x ** 3).sum() + y.exp().sum(), (300,)),
    (lambda x, y: (x * y.reshape(-1, 1)).sum(), (300,)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_gradients_match_eager_and_alias_nothing(fn, y_shape, dtype):
    x, y = leaf(300, 300, dtype=dtype), leaf(*y_shape, seed=1, dtype=dtype)
    before = x._data.copy(), y._data.copy()
    g = minigrad.compile(fn)
    for _ in range(3):
        expected = eager_grads(fn, [x, y])
        g(x, y).backward()
        assert_same([x.grad._data, y.grad._data], expected)
        with minigrad.no_grad():
            x.grad.add_(1.0)      # a gradient that is another tensor's array would show it
            y.grad.add_(1.0)
        assert np.array_equal(x._data, before[0]) and np.array_equal(y._data, before[1])
        x.grad = y.grad = None
    assert compiled_state(g) == "compiled"


def test_exp_gradient_with_retain_graph_and_a_given_gradient_match_eager():
    x = leaf(70_000)

    def f(x):
        return x.exp().sum()
    expected = eager_grads(f, [x])[0]
    g = minigrad.compile(f)
    g(x)
    out = g(x)
    out.backward(retain_graph=True)          # the gradient is exp(x): the saved result
    with minigrad.no_grad():
        x.grad.mul_(0.0)                     # must not reach the saved value
    out.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad._data, expected)
    x.grad = None
    out.backward(minigrad.tensor(2.0))       # not the shared ones: multiplied
    np.testing.assert_array_equal(x.grad._data, 2.0 * expected)


def test_into_writes_into_a_second_operand_only_when_it_is_a_temporary():
    from minigrad.compile.runtime import into
    ones = np.broadcast_to(np.float64(2.0), (5,))      # a first operand it cannot write into
    held = np.arange(5.0)
    for ufunc in (np.add, np.multiply, np.subtract):
        out = into(ufunc, ones, held, 0)
        np.testing.assert_array_equal(out, ufunc(2.0, np.arange(5.0)))
        np.testing.assert_array_equal(held, np.arange(5.0))
        np.testing.assert_array_equal(into(ufunc, ones, np.arange(5.0) * 3.0, 0),
                                      ufunc(2.0, np.arange(5.0) * 3.0))


# ------------------------------------------------------------------ relu's forward in place
@pytest.mark.parametrize("fn", [
    lambda x: (x * 1.0).relu(),                     # into the dead product (-0.0 stays in it)
    lambda x: (x - 0.25).relu(),
    lambda x: (x * 1.0).clamp(min=0.0, max=0.5),    # maximum, then minimum, in place
    lambda x: x.relu(),                             # x is the caller's: never written
], ids=["relu", "relu-of-difference", "clamp", "relu-of-input"])
def test_relu_forward_in_place_matches_eager_and_keeps_inputs(fn):
    x = leaf(70_000)
    with minigrad.no_grad():
        x[:1000] = -0.0                               # relu(-0.0) is +0.0: operand order kept
    before = x._data.copy()
    g = minigrad.compile(lambda x: fn(x) * 2.0)
    for _ in range(2):   # the first call traces, the second runs the generated code
        got, expected = g(x)._data, (fn(x) * 2.0)._data
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
        np.testing.assert_array_equal(x._data, before)
    assert_same(eager_grads(lambda x: g(x).sum(), [x]),
                eager_grads(lambda x: (fn(x) * 2.0).sum(), [x]))
    assert compiled_state(g) == "compiled"
