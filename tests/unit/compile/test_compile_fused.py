"""On a GPU namespace (CuPy; here its CPU stand-in, minigrad/_array/fake_cuda.py) the
compiled code runs each run of elementwise lines as one fused kernel (compile/fusion.py):
the results and gradients are eager's, and where fusing fails or differs the lines run
unfused, with the same results."""
import numpy as np
import pytest

import minigrad
from minigrad._array import fake_cuda, namespace_for


def _host(t):
    return None if t is None else t.detach().cpu().numpy()


def _close(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    tol = 1e-5 if expected.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


def _leaves(*arrays):
    return [minigrad.tensor(a, device="cuda", requires_grad=a.dtype.kind == "f") for a in arrays]


def _check(fn, *arrays, calls=3):
    """``fn`` compiled, called ``calls`` times (the first traces), against eager: the
    outputs, and the gradients of the sum of the float outputs."""
    compiled = minigrad.compile(fn)
    results = []
    for f in [fn] + [compiled] * calls:
        leaves = _leaves(*arrays)
        outs = f(*leaves)
        outs = outs if isinstance(outs, tuple) else (outs,)
        total = sum(o.sum() for o in outs if o.requires_grad)
        total.backward()
        results.append(([_host(o) for o in outs], [_host(t.grad) for t in leaves]))
    eager_outs, eager_grads = results[0]
    for outs, grads in results[1:]:
        for got, expected in zip(outs + grads, eager_outs + eager_grads):
            if expected is None:
                assert got is None
            else:
                _close(got, expected)


@pytest.fixture
def fuse_calls(fake_gpu, monkeypatch):
    """The namespace's ``fuse``, counting the segments it fuses and the calls they get."""
    xp = namespace_for("cuda")
    real, counts = xp.fuse, {"fused": 0, "calls": 0}

    def counting(*args, **kwargs):
        decorate = real(*args, **kwargs)

        def wrap(fn):
            fused = decorate(fn)
            counts["fused"] += 1

            def call(*a):
                counts["calls"] += 1
                return fused(*a)
            return call
        return wrap
    monkeypatch.setattr(xp, "fuse", counting)
    return counts


def _chain(x):
    y = x
    for _ in range(3):
        y = (y * 0.9 + 0.1).tanh().sin()
    return y


def test_a_chain_with_saved_values_runs_fused_and_matches_eager(fuse_calls):
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    _check(_chain, x)
    assert fuse_calls["fused"] >= 2   # the forward's run and the backward's
    assert fuse_calls["calls"] > fuse_calls["fused"]   # then called again, not re-fused


def test_several_outputs_of_one_run(fuse_calls):
    def f(x, y):
        a = (x * y).exp()
        b = (a - y).cos() * 2.0
        c = -(b / (x.abs() + 1.0))
        return a, c, b.tanh()
    rng = np.random.default_rng(1)
    _check(f, rng.standard_normal((4, 5)), rng.standard_normal((4, 5)))
    assert fuse_calls["calls"] > 0


def test_python_numbers_and_powers(fuse_calls):
    def f(x):
        return ((x ** 2) * 3 - 1.5).relu() / 2 + x.sigmoid() * 0.5
    _check(f, np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6))
    assert fuse_calls["calls"] > 0


def test_mixed_dtypes_promote_as_eager(fuse_calls):
    def f(x, y, k):
        a = (x * y).sin() + k        # float32 * float64 + int64: float64
        return a.tanh() * 2, (x * k).cos().exp()   # float32 * int64: float32
    rng = np.random.default_rng(2)
    _check(f, rng.standard_normal(8).astype(np.float32), rng.standard_normal(8),
           np.arange(8, dtype=np.int64))
    assert fuse_calls["calls"] > 0


def test_broadcasting_inputs(fuse_calls):
    def f(x, b, s):
        y = (x * s + b).tanh()
        return (y * y - b).exp()
    rng = np.random.default_rng(3)
    _check(f, rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((3, 1)))
    assert fuse_calls["calls"] > 0


def test_comparisons_and_where(fuse_calls):
    def f(x, y):
        m = (x > y) & (x < 1.0)
        return minigrad.where(m, (x * y).sin(), (x - y).cos() * 2)
    rng = np.random.default_rng(4)
    _check(f, rng.standard_normal(16), rng.standard_normal(16))


def test_a_detached_output_stays_a_view_of_its_input(fuse_calls):
    def f(x):
        d = x.detach()
        return d, (d * 2.0).sin().exp()
    compiled = minigrad.compile(f)
    for _ in range(3):
        x = minigrad.tensor(np.arange(4.0), device="cuda", requires_grad=True)
        d, _ = compiled(x)
        d.add_(1.0)   # writes into x, as eager's detach
        np.testing.assert_array_equal(_host(x), np.arange(4.0) + 1.0)
    assert fuse_calls["calls"] > 0


def test_when_fusing_raises_the_lines_run_unfused_for_good(fake_gpu, monkeypatch):
    xp = namespace_for("cuda")
    tries = []

    def failing(*args, **kwargs):
        def wrap(fn):
            def call(*a):
                tries.append(fn)
                raise NotImplementedError("this kernel cannot be fused")
            return call
        return wrap
    monkeypatch.setattr(xp, "fuse", failing)
    x = np.random.default_rng(5).standard_normal(50)
    _check(_chain, x, calls=2)
    first = len(tries)
    assert first >= 1   # (the forward's run at least)
    _check(_chain, x, calls=2)   # a new compiled function: its own segments, tried once
    compiled = minigrad.compile(_chain)
    for _ in range(4):
        compiled(*_leaves(x)).sum().backward()
    assert len(tries) == 3 * first   # each segment tried once, then plain for good


def test_fused_results_of_another_dtype_are_not_used(fake_gpu, monkeypatch):
    xp = namespace_for("cuda")
    real = xp.fuse

    def widening(*args, **kwargs):   # a fuse that computes in float64
        decorate = real(*args, **kwargs)

        def wrap(fn):
            fused = decorate(fn)

            def call(*a):
                out = fused(*a)
                return tuple(o.astype(np.float64) for o in out) if isinstance(out, tuple) \
                    else out.astype(np.float64)
            return call
        return wrap
    monkeypatch.setattr(xp, "fuse", widening)
    _check(_chain, np.random.default_rng(6).standard_normal(40).astype(np.float32))


def test_on_numpy_the_compiled_chain_matches_eager():
    x = np.random.default_rng(7).standard_normal(100).astype(np.float32)
    compiled = minigrad.compile(_chain)
    for _ in range(3):
        a, b = (minigrad.tensor(x, requires_grad=True) for _ in range(2))
        compiled(a).sum().backward()
        _chain(b).sum().backward()
        _close(a.grad.numpy(), b.grad.numpy())


# ---------------------------------------------------------------- the stand-in's fuse
def test_fake_fuse_broadcasts_outputs_and_refuses_what_is_not_elementwise():
    xp = fake_cuda.xp
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    b = xp.asarray(np.float64(2.0))
    fused = xp.fuse(kernel_name="k")(lambda a, b: (xp.tanh(a * b), b + 1))
    first, second = fused(a, b)
    np.testing.assert_allclose(first.get(), np.tanh(np.arange(6.0).reshape(2, 3) * 2))
    assert second.shape == (2, 3)   # every output at the arguments' broadcast shape, as CuPy
    with pytest.raises(AttributeError):
        xp.fuse(lambda a: a.reshape(3, 2))(a)
    with pytest.raises(TypeError):
        xp.fuse(lambda a: xp.add.reduce(a))(a)
    with pytest.raises(TypeError):
        xp.fuse(lambda a: xp.concatenate([a, a]))(a)
    with pytest.raises(TypeError):
        xp.fuse(lambda a: 1.0)(a)
