"""minigrad.compile on long elementwise chains, whose array backward multiplies the ops'
local factors together (compile/chains.py): gradients as eager minigrad's (and PyTorch's),
up to the rounding of another order of multiplication."""
import numpy as np
import pytest

import minigrad
from minigrad._array import fake_cuda
from minigrad.autograd import grad as autograd_grad


def leaf(*shape, seed=0, dtype=np.float64, low=0.5, high=1.5):
    rng = np.random.default_rng(seed)
    return minigrad.tensor(rng.uniform(low, high, shape).astype(dtype), requires_grad=True)


def levels(y, n=12):
    for _ in range(n):
        y = (y * 0.9 + 0.1).tanh().sin()
    return y


def many_ops(y):
    """Every kind of factor: products, quotients, negation, constants, identities."""
    for _ in range(6):
        y = y.exp() * 0.5          # grad * result, grad * other
        y = y / 3.0 - 0.25          # grad / other, identity
        y = -y.sigmoid()            # grad * result * (1 - result), -grad
        y = (y + 1).sqrt().abs()    # identity, grad / (2 * result), grad * sign(self)
        y = y.log().cos()           # grad / self, -(grad * sin(self))
    return y


def gradients(fn, inputs, compiled):
    for t in inputs:
        t.grad = None
    run = minigrad.compile(fn) if compiled else fn
    for _ in range(2 if compiled else 1):     # traced, then the generated code
        for t in inputs:
            t.grad = None
        run(*inputs).sum().backward()
    return [t.grad.numpy().copy() if t.grad is not None else None for t in inputs]


def assert_matches_eager(fn, inputs, rtol=1e-12):
    eager = gradients(fn, inputs, compiled=False)
    compiled = gradients(fn, inputs, compiled=True)
    for e, c in zip(eager, compiled):
        assert c.dtype == e.dtype and c.shape == e.shape
        np.testing.assert_allclose(c, e, rtol=rtol, atol=0)


@pytest.mark.parametrize("shape", [(16,), (3, 5), (), (16, 16)])   # (16, 16): in pieces
def test_chain_gradient_matches_eager(shape):
    assert_matches_eager(levels, [leaf(*shape)])


def test_chain_of_many_formulas_matches_eager():
    assert_matches_eager(many_ops, [leaf(16)])


def test_chain_matches_torch():
    torch = pytest.importorskip("torch")
    x = leaf(16)
    compiled = gradients(levels, [x], compiled=True)[0]
    t = torch.tensor(x.detach().numpy(), requires_grad=True)
    levels(t).sum().backward()
    np.testing.assert_allclose(compiled, t.grad.numpy(), rtol=1e-12)


def test_side_inputs_that_need_gradients():
    def fn(x, w, v):
        y = levels(x, 4) * w          # w needs its own gradient: the chain splits here
        y = levels(y, 4) / v
        return levels(y, 4)
    assert_matches_eager(fn, [leaf(16), leaf(16, seed=1), leaf(16, seed=2)])


def test_side_input_without_gradient_read_by_every_link():
    w = minigrad.tensor(np.random.default_rng(3).uniform(0.5, 1.5, 16))

    def fn(x):
        for _ in range(12):
            x = (x * w).sin()
        return x
    assert_matches_eager(fn, [leaf(16)])


def test_branch_in_the_middle():
    def fn(x):
        y = levels(x, 6)
        z = y.exp() + y.tanh() * y     # y's gradient comes from three places
        return levels(z, 6)
    assert_matches_eager(fn, [leaf(16)])


def test_chain_through_ops_that_are_not_links():
    def fn(x):
        y = levels(x, 5).clamp(-0.5, 0.5)            # a mask, not a factor
        y = levels(y, 5).sum(0, keepdim=True) * x    # a reduction and a broadcast
        return levels(y.expand(4, 16), 5)
    assert_matches_eager(fn, [leaf(16)])


def test_float32_chain():
    x = leaf(16, dtype=np.float32)
    assert_matches_eager(levels, [x], rtol=1e-5)
    assert_matches_eager(many_ops, [x], rtol=1e-5)


def test_constants_that_would_overflow_when_multiplied_out():
    def fn(x):
        for _ in range(12):
            x = (x * 1e30).sin() * 1e-30
        return x
    assert_matches_eager(fn, [leaf(16)])


def test_big_arrays_keep_the_op_by_op_backward():
    assert_matches_eager(levels, [leaf(64, 128)])


def test_intermediate_output_read_inside_and_outside():
    def fn(x):
        mid = levels(x, 6)
        return mid * 1.0, levels(mid, 6)     # mid's gradient: from outside and from the chain

    def loss(x):
        a, b = fn(x)
        return a * 0.5 + b
    assert_matches_eager(loss, [leaf(16)])
    x = leaf(16)
    compiled = minigrad.compile(fn)
    for _ in range(2):
        x.grad = None
        a, b = compiled(x)
        (a.sum() + b.sum()).backward()
    eager = leaf(16)
    a, b = fn(eager)
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), eager.grad.numpy(), rtol=1e-12)


def test_hook_on_an_intermediate_output():
    def fn(x):
        mid = levels(x, 6)
        return mid, levels(mid, 6)

    def run(compiled):
        x, seen = leaf(16), []
        body = minigrad.compile(fn) if compiled else fn
        for _ in range(2 if compiled else 1):
            x.grad, seen[:] = None, []
            mid, out = body(x)
            mid.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2)
            (out.sum() + mid.sum()).backward()
        return x.grad.numpy(), seen[0]
    eager, compiled = run(False), run(True)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-12)
    np.testing.assert_allclose(compiled[1], eager[1], rtol=1e-12)


def test_second_order_through_a_chain():
    def second(fn_x, x):
        g, = autograd_grad([fn_x(x).sum()], [x], create_graph=True)
        h, = autograd_grad([(g * g).sum()], [x])
        return g.detach().numpy().copy(), h.numpy().copy()
    compiled = minigrad.compile(levels)
    x = leaf(16)
    eager = second(levels, x)
    for _ in range(2):
        got = second(compiled, x)
        for e, c in zip(eager, got):
            np.testing.assert_allclose(c, e, rtol=1e-12)


def test_gradients_with_nan_and_inf_factors():
    def fn(x):
        for _ in range(12):
            x = (x.log() * 0.5).exp()    # log of a negative: nan; of zero: -inf
        return x
    x = minigrad.tensor(np.array([-1.0, 0.0, 0.5, np.inf]), requires_grad=True)
    with np.errstate(all="ignore"):
        eager = gradients(fn, [x], compiled=False)[0]
        compiled = gradients(fn, [x], compiled=True)[0]
    np.testing.assert_array_equal(np.isnan(compiled), np.isnan(eager))
    finite = np.isfinite(eager)
    np.testing.assert_allclose(compiled[finite], eager[finite], rtol=1e-12)
    np.testing.assert_array_equal(compiled[~finite & ~np.isnan(eager)],
                                  eager[~finite & ~np.isnan(eager)])


def test_factors_that_cancel_level_by_level():
    def fn(x):
        for _ in range(50):
            x = (x + 40.0).exp().log() - 40.0    # exp's factor ~e^40, log's 1 / e^40
        return x
    assert_matches_eager(fn, [leaf(16)])


def test_chain_on_a_device_stays_there():
    side = {"w": minigrad.tensor(np.linspace(0.5, 1.5, 16))}

    def fn(x):
        for _ in range(12):
            x = (x * side["w"]).sin()    # a side value every link reads (xp.power)
        return levels(x, 6)              # stacked values (xp.concatenate, multiply.reduce)
    was_installed = fake_cuda.is_installed()   # (MINIGRAD_TEST_DEVICE=fake_cuda installs it)
    fake_cuda.install()
    try:
        x = leaf(16)
        expected = gradients(fn, [x], compiled=False)[0]
        side["w"] = side["w"].to("cuda")
        on_device = minigrad.tensor(x.detach().numpy(), device="cuda", requires_grad=True)
        compiled = minigrad.compile(fn)
        for _ in range(2):
            on_device.grad = None
            compiled(on_device).sum().backward()
        assert isinstance(on_device.grad._data, fake_cuda.FakeCudaArray)
        np.testing.assert_allclose(on_device.grad.numpy(force=True), expected, rtol=1e-12)
    finally:
        if not was_installed:
            fake_cuda.uninstall()


CHAIN_STEPS = [lambda x, w: x.tanh(), lambda x, w: x.sin(), lambda x, w: x.cos() * 0.9,
               lambda x, w: (x * 0.3).exp(), lambda x, w: -x, lambda x, w: x.sigmoid(),
               lambda x, w: x * 0.5 + 0.25, lambda x, w: x / 1.5, lambda x, w: x * w,
               lambda x, w: x / (w * w + 1), lambda x, w: x.relu() + 0.1,
               lambda x, w: x.sin() + x.tanh()]


@pytest.mark.parametrize("seed", range(12))
def test_random_chains_match_eager(seed):
    rng = np.random.default_rng(seed)
    picks = rng.integers(len(CHAIN_STEPS), size=60)
    weights = rng.choice(len(CHAIN_STEPS), size=len(CHAIN_STEPS))   # favour a few steps
    picks = weights[picks]

    def fn(x, w):
        for pick in picks:
            x = CHAIN_STEPS[pick](x, w)
        return x
    x = leaf(16, seed=seed, low=-1.0, high=1.0)
    w = minigrad.tensor(rng.uniform(0.5, 1.5, 16), requires_grad=bool(seed % 2))
    eager = gradients(fn, [x, w], compiled=False)
    compiled = gradients(fn, [x, w], compiled=True)
    for e, c in zip(eager, compiled):
        assert (c is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(c, e, rtol=1e-12, atol=1e-12 * np.abs(e).max())
