"""minigrad.autograd.forward_ad against torch.autograd.forward_ad: values, tangents, errors,
in-place ops and views, custom Function jvp, levels, forward-over-reverse, batched tangents."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfwAD = pytest.importorskip("torch.autograd.forward_ad")


def _arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _both(fn_mg, fn_torch, primals, tangents):
    """(primal, tangent) of fn's output in minigrad and in torch."""
    with fwAD.dual_level():
        out = fn_mg(*[fwAD.make_dual(mg.tensor(p), mg.tensor(t)) for p, t in zip(primals, tangents)])
        p, t = fwAD.unpack_dual(out)
        ours = (p.numpy(), None if t is None else t.numpy())
    with tfwAD.dual_level():
        out = fn_torch(*[tfwAD.make_dual(torch.tensor(p), torch.tensor(t))
                         for p, t in zip(primals, tangents)])
        p, t = tfwAD.unpack_dual(out)
        theirs = (p.numpy(), None if t is None else t.numpy())
    return ours, theirs


@pytest.mark.parametrize("name, fn", [
    ("chain", lambda m, x, w: m.tanh(m.exp(x * 0.3) * w + x).sum(-1)),
    ("matmul", lambda m, x, w: (x @ w).pow(2)),
    ("views", lambda m, x, w: x.transpose(0, 1).reshape(-1)[1:5] * w.t().reshape(-1)[:4]),
    ("reductions", lambda m, x, w: m.softmax(x, 1) + x.max(1, keepdim=True).values + w.mean()),
    ("linalg", lambda m, x, w: m.linalg.inv(w @ w.t() + 3 * m.eye(3) if m is mg else
                                             w @ w.t() + 3 * torch.eye(3, dtype=torch.float64))),
])
def test_values_and_tangents_match_torch(name, fn):
    primals = _arrays(0, (3, 3), (3, 3))
    tangents = _arrays(1, (3, 3), (3, 3))
    if name == "linalg":
        ours, theirs = _both(lambda x, w: mg.linalg.inv(w @ w.t() + 3 * mg.eye(3, dtype=mg.float64)),
                             lambda x, w: torch.linalg.inv(w @ w.t() + 3 * torch.eye(3, dtype=torch.float64)),
                             primals, tangents)
    else:
        ours, theirs = _both(lambda x, w: fn(mg, x, w), lambda x, w: fn(torch, x, w),
                             primals, tangents)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9, atol=1e-12)


def test_undefined_tangent_is_skipped_not_materialized():
    x, w = _arrays(2, (3,), (3,))
    with fwAD.dual_level():
        dual = fwAD.make_dual(mg.tensor(x), mg.tensor(w))
        constant = mg.tensor(w)
        out = dual * constant + constant.exp()
        assert fwAD.unpack_dual(constant.exp()).tangent is None
        np.testing.assert_allclose(fwAD.unpack_dual(out).tangent.numpy(), w * w)


def _errors(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type and message are what is compared
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("case", ["outside", "shape", "int tangent", "int primal", "nested",
                                  "exit without level"])
def test_errors_match_torch(case):
    def run(lib, fw):
        t = (lambda a: mg.tensor(a)) if lib is mg else (lambda a: torch.tensor(a))
        x = t(np.ones(3))
        if case == "outside":
            return _errors(lambda: fw.make_dual(x, x))
        if case == "exit without level":
            return _errors(lambda: fw.exit_dual_level())
        with fw.dual_level():
            if case == "shape":
                return _errors(lambda: fw.make_dual(x, t(np.ones(4))))
            if case == "int tangent":
                return _errors(lambda: fw.make_dual(x, t(np.ones(3, dtype=np.int64))))
            if case == "int primal":
                return _errors(lambda: fw.make_dual(t(np.ones(3, dtype=np.int64)), x))
            return _errors(lambda: fw.enter_dual_level())
    ours, theirs = run(mg, fwAD), run(torch, tfwAD)
    assert ours is not None and ours[0] is theirs[0]
    assert ours[1].replace("minigrad", "torch") == theirs[1], (ours, theirs)


def test_unpack_dual_is_a_named_pair_and_tangents_die_with_their_level():
    x = mg.tensor([1.0, 2.0])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, mg.tensor([3.0, 4.0]))
        unpacked = fwAD.unpack_dual(dual)
        assert type(unpacked).__name__ == "UnpackedDualTensor"
        assert unpacked._fields == ("primal", "tangent")
        assert fwAD.unpack_dual(unpacked.primal).tangent is None
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(dual).tangent is None
    with fwAD.dual_level():
        assert fwAD.unpack_dual(dual).tangent is None


def test_inplace_on_a_view_updates_the_base_tangent_as_torch():
    def run(lib, fw):
        t = (lambda a: mg.tensor(a)) if lib is mg else (lambda a: torch.tensor(a))
        results = []
        with fw.dual_level():
            base = fw.make_dual(t(np.arange(4.0)), t(np.ones(4)))
            view = base[1:3]
            view.mul_(fw.make_dual(t(np.full(2, 2.0)), t(np.full(2, 3.0))))
            results.append(fw.unpack_dual(base).tangent.numpy().copy())
            plain = t(np.zeros(4))
            plain[1:3].copy_(fw.make_dual(t(np.ones(2)), t(np.full(2, 5.0))))
            results.append(fw.unpack_dual(plain).tangent.numpy().copy())
            seen = base[::2]  # a view made before an in-place op on its base
            base.exp_()
            results.append(fw.unpack_dual(seen).tangent.numpy().copy())
            results.append(fw.unpack_dual(base.t() if base.ndim == 2 else base.view(2, 2)).tangent.numpy())
            root = t(np.zeros((4, 3)))
            transposed = root.t()  # a non-contiguous view, made before anything had a tangent
            transposed[1].copy_(fw.make_dual(t(np.ones(4)), t(np.arange(4.0))))
            results.append(fw.unpack_dual(transposed).tangent.numpy().copy())
            results.append(fw.unpack_dual(root[::2]).tangent.numpy().copy())
        return results
    for ours, theirs in zip(run(mg, fwAD), run(torch, tfwAD)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_custom_function_jvp_and_missing_jvp_as_torch():
    def run(lib, fw):
        base = mg.autograd.Function if lib is mg else torch.autograd.Function

        class Cube(base):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_forward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, grad):
                raise AssertionError("not used")

            @staticmethod
            def jvp(ctx, x_t):
                x, = ctx.saved_tensors
                return 3 * x ** 2 * x_t

        class NoJvp(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        t = (lambda a: mg.tensor(a)) if lib is mg else (lambda a: torch.tensor(a))
        with fw.dual_level():
            dual = fw.make_dual(t(np.array([1.0, 2.0])), t(np.array([1.0, 0.5])))
            tangent = fw.unpack_dual(Cube.apply(dual)).tangent.numpy()
            error = _errors(lambda: NoJvp.apply(dual))
            plain = NoJvp.apply(t(np.array([1.0])))  # no tangent: no jvp needed
        return tangent, error, plain.numpy()
    ours, theirs = run(mg, fwAD), run(torch, tfwAD)
    np.testing.assert_allclose(ours[0], theirs[0])
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2])


def test_forward_over_reverse_is_a_hessian_vector_product_as_torch():
    x0, v = _arrays(3, (4,), (4,))
    w = _arrays(4, (4, 4))[0]

    def grad_tangent(lib, fw, autograd):
        t = (lambda a, **k: mg.tensor(a, **k)) if lib is mg else (lambda a, **k: torch.tensor(a, **k))
        W = t(w)
        with fw.dual_level():
            x = fw.make_dual(t(x0, requires_grad=True), t(v))
            loss = (lib.tanh(W @ x) ** 2).sum()
            g, = autograd.grad(loss, x)
            return fw.unpack_dual(g).tangent.numpy()
    ours = grad_tangent(mg, fwAD, mg.autograd)
    theirs = grad_tangent(torch, tfwAD, torch.autograd)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_reverse_over_forward_differentiates_the_tangent():
    x0, v = _arrays(5, (3,), (3,))
    x = mg.tensor(x0, requires_grad=True)
    with fwAD.dual_level():
        y = fwAD.make_dual(x, mg.tensor(v)) ** 3
        tangent = fwAD.unpack_dual(y).tangent  # 3 x^2 v
        g, = mg.autograd.grad(tangent.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * x0 * v)


@pytest.mark.parametrize("name", ["tanh layer", "hessian terms", "shapes"])
def test_batched_tangents_equal_one_jvp_per_tangent(name):
    rng = np.random.default_rng(6)
    w, b = mg.tensor(rng.standard_normal((5, 4))), mg.tensor(rng.standard_normal(5))
    functions = {
        "tanh layer": lambda x: mg.tanh(w @ x + b),
        "hessian terms": lambda x: (mg.tanh(w @ x) ** 2).sum(),
        "shapes": lambda x: (x.reshape(2, 2).t() @ x.view(2, 2)).transpose(0, 1).sum(0).exp(),
    }
    fn = functions[name]
    x = mg.tensor(rng.standard_normal(4))
    basis = mg.eye(4, dtype=mg.float64)
    with fwAD.dual_level():
        batched = fwAD.unpack_dual(fn(fwAD._make_dual_batched(x, basis))).tangent
    columns = []
    for k in range(4):
        with fwAD.dual_level():
            columns.append(fwAD.unpack_dual(fn(fwAD.make_dual(x, basis[k]))).tangent.numpy())
    assert batched.shape == (4,) + tuple(fn(x).shape)
    np.testing.assert_allclose(batched.numpy(), np.stack(columns), rtol=1e-12, atol=1e-14)


def test_batched_level_refuses_tangents_of_another_batch_size():
    x = mg.tensor([1.0, 2.0])
    with fwAD.dual_level():
        fwAD._make_dual_batched(x, mg.ones(3, 2))
        with pytest.raises(RuntimeError, match="same batch size"):
            fwAD.make_dual(x, mg.ones(2))


def test_batched_forward_over_reverse_is_torch_func_hessian():
    rng = np.random.default_rng(8)
    w0, x0 = rng.standard_normal((6, 5)), rng.standard_normal(5)

    def loss(lib, w, x):
        h = lib.tanh(w @ x)
        return (h ** 2).sum() + (x.reshape(5, 1) * x).sum(0).exp().mean() + h[1:4].max()

    w = mg.tensor(w0)
    with fwAD.dual_level():
        x = fwAD._make_dual_batched(mg.tensor(x0, requires_grad=True), mg.eye(5, dtype=mg.float64))
        g, = mg.autograd.grad(loss(mg, w, x), x)
        ours = fwAD.unpack_dual(g).tangent.numpy()
    theirs = torch.func.hessian(lambda v: loss(torch, torch.tensor(w0), v))(torch.tensor(x0))
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-9, atol=1e-12)
