"""Forward-mode transforms (minigrad.func.jvp/jacfwd/hessian/linearize and
autograd.functional's jvp and forward-mode strategies) against torch.

They need ``minigrad.autograd.forward_ad``; without it they are skipped, and the
transforms raise a clear NotImplementedError (tested at the end, always).
"""
import importlib

import pytest

import minigrad as mg
from minigrad.autograd import _dual_support
from tests.unit.func._both import compare, randn, same_error, tensor

try:
    importlib.import_module("minigrad.autograd.forward_ad")
    HAVE_FORWARD_AD = True
except ImportError:
    HAVE_FORWARD_AD = False

needs_forward_ad = pytest.mark.skipif(
    not HAVE_FORWARD_AD, reason="minigrad.autograd.forward_ad is not in this build yet "
    "(forward-mode AD is another branch); these run once it is merged")


def f_xy(x, y):
    return x.sin() * y + (x * x).sum(), y.exp()


# ------------------------------------------------------------------- jvp
@needs_forward_ad
def test_jvp_tuple_outputs_pytrees_and_has_aux():
    compare(lambda L: L.func.jvp(f_xy, (randn(L, 3), randn(L, 3, seed=1)),
                                 (randn(L, 3, seed=2), randn(L, 3, seed=3))))
    compare(lambda L: L.func.jvp(lambda d: d["a"] * d["b"][0], ({"a": randn(L, 2),
                                                                  "b": [randn(L, 2, seed=1)]},),
                                 ({"a": randn(L, 2, seed=2), "b": [randn(L, 2, seed=3)]},)))
    compare(lambda L: L.func.jvp(lambda x: (x.exp(), {"aux": x * 2}), (randn(L, 2),),
                                 (randn(L, 2, seed=1),), has_aux=True))


@needs_forward_ad
def test_jvp_of_an_independent_output_is_zero():
    compare(lambda L: L.func.jvp(lambda x: L.ones(2, dtype=L.float64), (randn(L, 2),),
                                 (randn(L, 2),)))


@needs_forward_ad
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacfwd_matches_torch(argnums):
    compare(lambda L: L.func.jacfwd(f_xy, argnums=argnums)(randn(L, 3), randn(L, 3, seed=1)))


@needs_forward_ad
def test_jacfwd_has_aux_and_a_tanh_layer():
    compare(lambda L: L.func.jacfwd(lambda x: (x.sin(), x.cos()), has_aux=True)(randn(L, 3)))

    def layer(L):
        w = randn(L, 6, 6)
        return L.func.jacfwd(lambda x: (w @ x).tanh())(randn(L, 6, seed=1))
    compare(layer)


@needs_forward_ad
def test_jacfwd_runs_the_function_once_for_all_basis_tangents():
    calls = []

    def f(x):
        calls.append(1)
        return x.sin() * x.sum()
    mg.func.jacfwd(f)(randn(mg, 5))
    assert len(calls) == 1


@needs_forward_ad
def test_hessian_forward_over_reverse_matches_torch():
    compare(lambda L: L.func.hessian(lambda x: (x.tanh() ** 2).sum() * x[0])(randn(L, 4)))

    def tanh_layer(L):
        w = randn(L, 5, 5)
        return L.func.hessian(lambda x: ((w @ x).tanh() ** 2).sum())(randn(L, 5, seed=1))
    compare(tanh_layer)
    compare(lambda L: L.func.hessian(lambda x, y: (x.sin() * y.exp()).sum(), argnums=(0, 1))(
        randn(L, 2), randn(L, 2, seed=1)))


@needs_forward_ad
def test_reverse_over_forward_and_a_hessian_differentiated_outside():
    f = (lambda x: (x.tanh() ** 2).sum() * x[0])
    compare(lambda L: L.func.jacrev(L.func.jacfwd(f))(randn(L, 3)))
    compare(lambda L: L.func.grad(lambda x: L.func.jvp(
        lambda y: y.sin() * y, (x,), (randn(L, 3, seed=2),))[1].sum())(randn(L, 3)))

    def jvp_of_an_input_that_requires_grad(L):
        x = randn(L, 3, requires_grad=True)
        out, tangent = L.func.jvp(lambda y: y.exp() * y, (x,), (randn(L, 3, seed=2),))
        return out, tangent, L.autograd.grad(tangent.sum(), x)
    compare(jvp_of_an_input_that_requires_grad)

    def hessian_through_a_weight_that_requires_grad(L):
        w = randn(L, 4, 4, requires_grad=True)
        h = L.func.hessian(lambda x: ((w @ x).tanh() ** 2).sum())(randn(L, 4, seed=3))
        return h, L.autograd.grad(h.sum(), w)
    compare(hessian_through_a_weight_that_requires_grad)


# ------------------------------------------ jacrev: all rows in one backward
@needs_forward_ad
def test_jacrev_takes_one_backward_for_all_rows(monkeypatch):
    from minigrad.autograd import functional
    calls = []
    real = functional._api.grad
    monkeypatch.setattr(functional._api, "grad", lambda *a, **k: calls.append(1) or real(*a, **k))
    w = randn(mg, 5, 4)
    mg.func.jacrev(lambda x: (w @ x).tanh())(randn(mg, 4, seed=1))
    assert len(calls) == 1
    mg.autograd.functional.jacobian(lambda x: (w @ x).tanh(), randn(mg, 4), vectorize=True)
    assert len(calls) == 2


def scaled_sin(L):
    """A custom Function: its backward is user code, so jacrev takes a backward per row."""
    class ScaledSin(L.autograd.Function):
        @staticmethod
        def forward(x):
            return x.sin() * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * x.cos() * 3
    return ScaledSin.apply


@needs_forward_ad
def test_jacrev_through_a_custom_function_a_hook_and_inside_jacfwd():
    compare(lambda L: L.func.jacrev(lambda x: scaled_sin(L)(x) * x.sum())(randn(L, 3)))

    def hooked(L):
        def f(x):
            y = x.exp()
            y.register_hook(lambda g: g * 2)
            return y * x
        return L.func.jacrev(f)(randn(L, 3))
    compare(hooked)
    compare(lambda L: L.func.jacfwd(L.func.jacrev(lambda x: x.sin() * x.sum()))(randn(L, 3)))
    compare(lambda L: L.autograd.functional.jacobian(
        lambda x: (x.unsqueeze(1) * x).tanh(), randn(L, 3), create_graph=True, vectorize=True))


@needs_forward_ad
def test_linearize_matches_jvp():
    def program(L):
        out, jvp_fn = L.func.linearize(lambda x: (x.sin(), x.exp().sum()), randn(L, 3))
        return out, jvp_fn(randn(L, 3, seed=1)), jvp_fn(randn(L, 3, seed=2))
    compare(program)


@needs_forward_ad
def test_functional_jvp_jacobian_and_hessian_by_forward_mode():
    def fns(L):
        return L.autograd.functional
    compare(lambda L: fns(L).jvp(f_xy, (randn(L, 3), randn(L, 3, seed=1)),
                                 (randn(L, 3, seed=2), randn(L, 3, seed=3))))
    compare(lambda L: fns(L).jvp(lambda x: x ** 3, tensor(L, [2.0])))
    compare(lambda L: fns(L).jacobian(f_xy, (randn(L, 3), randn(L, 3, seed=1)),
                                      vectorize=True, strategy="forward-mode"))
    compare(lambda L: fns(L).hessian(lambda x: (x.tanh() ** 3).sum(), randn(L, 3),
                                     vectorize=True, outer_jacobian_strategy="forward-mode"))


@needs_forward_ad
def test_functional_jvp_create_graph_is_differentiable():
    def program(L):
        x = randn(L, 3, requires_grad=True)
        v = randn(L, 3, seed=1, requires_grad=True)
        out, jv = L.autograd.functional.jvp(lambda x: x.sin() * x, x, v, create_graph=True)
        return out, jv, L.autograd.grad(jv.sum(), (x, v))
    compare(program)


FORWARD_ERRORS = {
    "jvp primals not a tuple": lambda L: L.func.jvp(lambda x: x, randn(L, 2), randn(L, 2)),
    "jvp structures differ": lambda L: L.func.jvp(lambda x: x, (randn(L, 2),),
                                                  (randn(L, 2), randn(L, 2))),
    "jvp no primals": lambda L: L.func.jvp(lambda: 1, (), ()),
    "jvp float tangent": lambda L: L.func.jvp(lambda x: x, (randn(L, 2),), (1.0,)),
    "jvp strict": lambda L: L.func.jvp(lambda x: L.ones(2), (randn(L, 2),), (randn(L, 2),),
                                       strict=True),
    "jvp has_aux without a pair": lambda L: L.func.jvp(lambda x: x, (randn(L, 2),),
                                                       (randn(L, 2),), has_aux=True),
    "jacfwd randomness": lambda L: L.func.jacfwd(lambda x: x, randomness="x")(randn(L, 2)),
    "jacfwd non-tensor input": lambda L: L.func.jacfwd(lambda x: x)(1.0),
    "linearize tangent shape": lambda L: L.func.linearize(lambda x: x.sin(), randn(L, 3))[1](
        randn(L, 2)),
    "linearize tangent dtype": lambda L: L.func.linearize(lambda x: x.sin(), randn(L, 3))[1](
        randn(L, 3).float()),
    "linearize tangent structure": lambda L: L.func.linearize(lambda x: x.sin(), randn(L, 3))[
        1](randn(L, 3), randn(L, 3)),
}


@needs_forward_ad
@pytest.mark.parametrize("name", list(FORWARD_ERRORS))
def test_forward_errors_as_torch(name):
    same_error(FORWARD_ERRORS[name])


# ------------------------------------------------- without forward_ad
@pytest.fixture
def no_forward_ad(monkeypatch):
    monkeypatch.setattr(_dual_support, "_module", None)


@pytest.mark.parametrize("call", [
    lambda: mg.func.jvp(mg.sin, (randn(mg, 2),), (randn(mg, 2),)),
    lambda: mg.func.jacfwd(mg.sin)(randn(mg, 2)),
    lambda: mg.func.hessian(lambda x: x.sum())(randn(mg, 2)),
    lambda: mg.func.linearize(mg.sin, randn(mg, 2)),
    lambda: mg.autograd.functional.jvp(mg.sin, randn(mg, 2), randn(mg, 2)),
    lambda: mg.autograd.functional.jacobian(mg.sin, randn(mg, 2), vectorize=True,
                                            strategy="forward-mode"),
], ids=["jvp", "jacfwd", "hessian", "linearize", "functional.jvp", "forward-mode jacobian"])
def test_without_forward_ad_forward_transforms_say_so(no_forward_ad, call):
    with pytest.raises(NotImplementedError, match="forward-mode AD .*forward_ad"):
        call()


def test_without_forward_ad_reverse_transforms_still_work(no_forward_ad):
    compare(lambda L: L.func.jacrev(L.func.grad(lambda x: (x ** 3).sum()))(randn(L, 3)))
