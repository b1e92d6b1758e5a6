"""minigrad.autograd.functional against torch.autograd.functional (reverse-mode parts;
the forward-mode ones are in test_forward.py)."""
import pytest

from tests.unit.func._both import compare, randn, same_error, tensor


def fns(L):
    return L.autograd.functional


def two_in_two_out(x, y):
    return x.unsqueeze(1) * y.tanh(), (x ** 2).sum()


# -------------------------------------------------------------- jacobian
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_single_and_tuple_inputs_and_outputs(vectorize):
    compare(lambda L: fns(L).jacobian(lambda x: x.exp() * x.sum(), randn(L, 3),
                                      vectorize=vectorize))
    compare(lambda L: fns(L).jacobian(two_in_two_out, (randn(L, 2), randn(L, 3, seed=1)),
                                      vectorize=vectorize))
    compare(lambda L: fns(L).jacobian(lambda x: (x.sin(),), randn(L, 2, 2),
                                      vectorize=vectorize))
    compare(lambda L: fns(L).jacobian(lambda x, y: x * 2, (randn(L, 2), randn(L, 2)),
                                      vectorize=vectorize))


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_create_graph_second_order(create_graph, vectorize):
    def program(L):
        x = randn(L, 3, requires_grad=True)
        jac = fns(L).jacobian(lambda x: x.sin() * x.sum(), x, create_graph=create_graph,
                              vectorize=vectorize)
        if not create_graph:
            return jac
        return jac, L.autograd.grad(jac.sum(), x)
    compare(program)


@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian_values_tuple_inputs_and_create_graph(vectorize):
    compare(lambda L: fns(L).hessian(lambda x: (x.tanh() ** 2).sum() * x[0], randn(L, 3),
                                     vectorize=vectorize))
    compare(lambda L: fns(L).hessian(lambda x, y: (x.sin() * y).sum(),
                                     (randn(L, 2), randn(L, 2, seed=1))))

    def program(L):
        x = randn(L, 2, requires_grad=True)
        h = fns(L).hessian(lambda x: (x ** 4).sum(), x, create_graph=True)
        return h, L.autograd.grad(h.sum(), x)
    compare(program)


# ------------------------------------------------------- vjp, vhp, hvp
def test_vjp_values_tuple_and_v_none():
    compare(lambda L: fns(L).vjp(two_in_two_out, (randn(L, 2), randn(L, 3, seed=1)),
                                 (randn(L, 2, 3, seed=2), tensor(L, 1.5))))
    compare(lambda L: fns(L).vjp(lambda x: (x ** 2).sum(), randn(L, 3)))


@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp(name):
    def f(x, y):
        return (x.sin() * y.exp()).sum()
    compare(lambda L: getattr(fns(L), name)(f, (randn(L, 3), randn(L, 3, seed=1)),
                                            (randn(L, 3, seed=2), randn(L, 3, seed=3))))
    compare(lambda L: getattr(fns(L), name)(lambda x: x ** 3, tensor(L, [2.0])))

    def second_order(L):
        x = randn(L, 3, requires_grad=True)
        v = randn(L, 3, seed=4, requires_grad=True)
        out, hv = getattr(fns(L), name)(lambda x: (x ** 3).sum(), x, v, create_graph=True)
        return out, hv, L.autograd.grad(hv.sum(), (x, v))
    compare(second_order)


def test_strict_false_fills_zeros_for_independent_inputs():
    compare(lambda L: fns(L).vjp(lambda x, y: x * 2, (randn(L, 2), randn(L, 2)),
                                 randn(L, 2)))
    compare(lambda L: fns(L).vhp(lambda x, y: (x ** 3).sum(), (randn(L, 2), randn(L, 2)),
                                 (randn(L, 2), randn(L, 2))))


# ---------------------------------------------------------------- errors
def constant(x):
    return x.detach() * 0


ERRORS = {
    "list input": lambda L: fns(L).jacobian(lambda x: x, [randn(L, 2)]),
    "tuple with a float": lambda L: fns(L).jacobian(lambda x, y: x, (randn(L, 2), 1.0)),
    "output a list": lambda L: fns(L).vjp(lambda x: [x], randn(L, 2), randn(L, 2)),
    "bad strategy": lambda L: fns(L).jacobian(lambda x: x, randn(L, 2), strategy="middle"),
    "forward-mode without vectorize": lambda L: fns(L).jacobian(
        lambda x: x, randn(L, 2), strategy="forward-mode"),
    "forward-mode with strict": lambda L: fns(L).jacobian(
        lambda x: x, randn(L, 2), strict=True, vectorize=True, strategy="forward-mode"),
    "forward-mode with create_graph": lambda L: fns(L).jacobian(
        lambda x: x, randn(L, 2), create_graph=True, vectorize=True, strategy="forward-mode"),
    "strict and vectorize": lambda L: fns(L).jacobian(lambda x: x * 2, randn(L, 2),
                                                      strict=True, vectorize=True),
    "strict: output independent": lambda L: fns(L).jacobian(constant, randn(L, 2),
                                                            strict=True),
    "strict: output independent of one input": lambda L: fns(L).jacobian(
        lambda x, y: x * 2, (randn(L, 2), randn(L, 2)), strict=True),
    "strict: jacobian constant with create_graph": lambda L: fns(L).jacobian(
        lambda x: x * 2, randn(L, 2), strict=True, create_graph=True),
    "hessian of a vector function": lambda L: fns(L).hessian(lambda x: x * x, randn(L, 2)),
    "hessian of a tuple function": lambda L: fns(L).hessian(lambda x: (x.sum(),), randn(L, 2)),
    "hessian strict of a linear function": lambda L: fns(L).hessian(
        lambda x: (x * 2).sum(), randn(L, 2), strict=True),
    "hessian bad strategy": lambda L: fns(L).hessian(lambda x: x.sum(), randn(L, 2),
                                                     outer_jacobian_strategy="x"),
    "vjp v None for a vector": lambda L: fns(L).vjp(lambda x: x * 2, randn(L, 2)),
    "vjp v of the wrong size": lambda L: fns(L).vjp(lambda x: x * 2, randn(L, 2), randn(L, 3)),
    "vjp v tuple too long": lambda L: fns(L).vjp(lambda x: (x, x), randn(L, 2), (randn(L, 2),)),
    "vjp v entry of the wrong size": lambda L: fns(L).vjp(
        lambda x: (x, x), randn(L, 2), (randn(L, 2), randn(L, 3))),
    "vjp v tuple for one output": lambda L: fns(L).vjp(lambda x: x, randn(L, 2),
                                                       (randn(L, 2), randn(L, 2))),
    "vjp strict independent": lambda L: fns(L).vjp(
        lambda x, y: x * 2, (randn(L, 2), randn(L, 2)), randn(L, 2), strict=True),
    "vjp strict output without grad": lambda L: fns(L).vjp(constant, randn(L, 2), randn(L, 2),
                                                           strict=True),
    "hvp v None": lambda L: fns(L).hvp(lambda x: x.sum(), randn(L, 2)),
    "hvp vector function": lambda L: fns(L).hvp(lambda x: x, randn(L, 2), randn(L, 2)),
    "vhp tuple function": lambda L: fns(L).vhp(lambda x: (x.sum(),), randn(L, 2), randn(L, 2)),
    "vhp strict linear": lambda L: fns(L).vhp(lambda x: (x * 2).sum(), randn(L, 2),
                                              randn(L, 2), strict=True),
    "hvp strict linear": lambda L: fns(L).hvp(lambda x: (x * 2).sum(), randn(L, 2),
                                              randn(L, 2), strict=True),
    "jvp v None": lambda L: fns(L).jvp(lambda x: x, randn(L, 2)),
    "jvp list input": lambda L: fns(L).jvp(lambda x: x, [randn(L, 2)], randn(L, 2)),
    "jvp v wrong size": lambda L: fns(L).jvp(lambda x: x, randn(L, 2), randn(L, 3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    same_error(ERRORS[name])
