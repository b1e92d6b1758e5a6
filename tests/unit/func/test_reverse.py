"""minigrad.func's reverse transforms (grad, grad_and_value, vjp, jacrev) against torch.func."""
import numpy as np
import pytest

import minigrad as mg
from tests.unit.func._both import LIBS, compare, randn, same_error, tensor, torch


def f_xy(x, y):
    return (x.sin() * y).sum() + (x * x).sum()


# ------------------------------------------------------------------ grad
@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0)])
def test_grad_argnums(argnums):
    compare(lambda L: L.func.grad(f_xy, argnums=argnums)(randn(L, 3), randn(L, 3, seed=1)))


def test_grad_and_value_with_kwargs_and_pytree_input():
    def f(params, x, *, scale):
        return ((params["w"] @ x + params["b"][0]).tanh() ** 2).sum() * scale

    def program(L):
        params = {"w": randn(L, 3, 4), "b": [randn(L, 3, seed=2)]}
        return L.func.grad_and_value(f)(params, randn(L, 4, seed=3), scale=2.0)
    compare(program)


def test_grad_has_aux_returns_aux_detached():
    def f(x):
        y = x.exp()
        return y.sum(), {"y": y, "pair": (y * 2,)}
    compare(lambda L: L.func.grad(f, has_aux=True)(randn(L, 3)))
    compare(lambda L: L.func.grad_and_value(f, has_aux=True)(randn(L, 3)))


def test_grad_of_unused_and_constant_inputs_is_zero():
    compare(lambda L: L.func.grad(lambda x, y: (x * 2).sum(), argnums=(0, 1))(
        randn(L, 2), randn(L, 3)))
    compare(lambda L: L.func.grad(lambda x: L.tensor(1.0, dtype=L.float64))(randn(L, 2)))


@pytest.mark.parametrize("outside", [False, True])
def test_grad_result_is_differentiable_exactly_when_the_input_requires_grad(outside):
    def program(L):
        x = randn(L, 3, requires_grad=outside)
        g = L.func.grad(lambda x: (x ** 3).sum())(x)
        if outside:  # the gradient keeps its history: differentiate it again
            return g, L.autograd.grad(g.sum(), x)
        return g
    compare(program)


def test_grad_under_no_grad_gives_no_history():
    def program(L):
        x = randn(L, 3, requires_grad=True)
        with L.no_grad():
            return L.func.grad(lambda x: (x ** 3).sum())(x)
    compare(program)


def test_grad_keeps_the_graph_of_a_tensor_it_closes_over():
    def program(L):
        w = randn(L, 3, requires_grad=True)
        g = L.func.grad(lambda x: (x.sin() * w).sum())(randn(L, 3, seed=5))
        (g * g).sum().backward()
        return g, w.grad
    compare(program)


def test_grad_of_grad_and_jacrev_of_jacrev():
    compare(lambda L: L.func.grad(L.func.grad(lambda x: x ** 3 * x.sin()))(tensor(L, 0.7)))
    compare(lambda L: L.func.jacrev(L.func.jacrev(lambda x: (x.tanh() ** 2).sum() * x))(
        randn(L, 3)))
    compare(lambda L: L.func.jacrev(L.func.grad(lambda x, y: (x * y.exp()).sum()), argnums=1)(
        randn(L, 2), randn(L, 2, seed=1)))


# ------------------------------------------------------------------- vjp
def test_vjp_of_pytree_outputs_called_twice():
    def f(x, y):
        return {"a": x * y, "b": (x.exp(), y.sum())}

    def program(L):
        x, y = randn(L, 3), randn(L, 3, seed=1)
        out, vjp_fn = L.func.vjp(f, x, y)
        cot = {"a": randn(L, 3, seed=2), "b": (randn(L, 3, seed=3), tensor(L, 2.0))}
        return out, vjp_fn(cot), vjp_fn(cot)
    compare(program)


def test_vjp_has_aux_and_differentiating_through_the_cotangent():
    def program(L):
        x = randn(L, 2, 3)
        out, vjp_fn, aux = L.func.vjp(lambda x: (x.tanh(), x.sum()), x, has_aux=True)
        v = randn(L, 2, 3, seed=4, requires_grad=True)
        g, = vjp_fn(v)
        (g ** 2).sum().backward()
        return out, aux, g, v.grad
    compare(program)


def test_vjp_create_graph_false_gives_no_history():
    def program(L):
        x = randn(L, 3, requires_grad=True)
        _, vjp_fn = L.func.vjp(lambda x: x.sin(), x)
        return vjp_fn(L.ones(3, dtype=L.float64), create_graph=False)
    compare(program)


# ---------------------------------------------------------------- jacrev
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacrev_blocks_for_several_inputs_and_outputs(argnums):
    def f(x, y):
        return x.unsqueeze(1) * y, (x.sin().sum(), [y.exp()])
    compare(lambda L: L.func.jacrev(f, argnums=argnums)(randn(L, 2), randn(L, 3, seed=1)))


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 100])
def test_jacrev_chunk_size_does_not_change_the_result(chunk_size):
    compare(lambda L: L.func.jacrev(lambda x: x.tanh() @ x.T, chunk_size=chunk_size)(
        randn(L, 3, 2)))


def test_jacrev_has_aux_scalar_input_and_independent_output():
    compare(lambda L: L.func.jacrev(lambda x: (x * 3, x.cos()), has_aux=True)(tensor(L, 0.5)))
    compare(lambda L: L.func.jacrev(lambda x: (x * 0 + 1).detach())(randn(L, 2)))


def test_jacrev_of_the_identity_and_of_a_leaf_output():
    compare(lambda L: L.func.jacrev(lambda x: x)(randn(L, 3)))
    compare(lambda L: L.func.jacrev(lambda x, y: y, argnums=(0, 1))(randn(L, 2), randn(L, 2)))


def test_jacrev_of_a_dict_input():
    compare(lambda L: L.func.jacrev(lambda d: d["a"] * d["b"].sum())(
        {"a": randn(L, 2), "b": randn(L, 3, seed=1)}))


def test_jacrev_of_a_tanh_layer_matches_torch_in_float32():
    def program(L):
        w = L.tensor(np.random.default_rng(0).standard_normal((8, 8)), dtype=L.float32)
        x = L.tensor(np.random.default_rng(1).standard_normal(8), dtype=L.float32)
        return L.func.jacrev(lambda x: (w @ x).tanh())(x)
    compare(program, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- errors
ERRORS = {
    "non-scalar output": lambda L: L.func.grad(lambda x: x * 2)(randn(L, 3)),
    "non-tensor output": lambda L: L.func.grad(lambda x: 1.0)(randn(L, 3)),
    "argnum out of range": lambda L: L.func.grad(lambda x: x.sum(), argnums=1)(randn(L, 3)),
    "negative argnum out of range": lambda L: L.func.grad(f_xy, argnums=-3)(randn(L, 3),
                                                                            randn(L, 3)),
    "argnums a list": lambda L: L.func.grad(f_xy, argnums=[0])(randn(L, 3), randn(L, 3)),
    "argnums empty": lambda L: L.func.grad(f_xy, argnums=())(randn(L, 3), randn(L, 3)),
    "argnums repeated": lambda L: L.func.grad(f_xy, argnums=(0, 0))(randn(L, 3), randn(L, 3)),
    "argnum not an int": lambda L: L.func.grad(f_xy, argnums=(0, 1.0))(randn(L, 3),
                                                                        randn(L, 3)),
    "non-tensor input": lambda L: L.func.grad(lambda x: x)(1.0),
    "has_aux without a pair": lambda L: L.func.grad(lambda x: x.sum(), has_aux=True)(
        randn(L, 3)),
    "non-tensor aux": lambda L: L.func.grad(lambda x: (x.sum(), 1.0), has_aux=True)(
        randn(L, 3)),
    "vjp non-tensor output": lambda L: L.func.vjp(lambda x: 1.0, randn(L, 3)),
    "vjp no output": lambda L: L.func.vjp(lambda x: (), randn(L, 3)),
    "vjp None output": lambda L: L.func.vjp(lambda x: None, randn(L, 3)),
    "vjp integer output": lambda L: L.func.vjp(lambda x: x.long(), randn(L, 3)),
    "vjp has_aux without a pair": lambda L: L.func.vjp(lambda x: x, randn(L, 3),
                                                       has_aux=True),
    "vjp cotangent structure": lambda L: L.func.vjp(lambda x: [x], randn(L, 3))[1](
        randn(L, 3)),
    "jacrev chunk_size": lambda L: L.func.jacrev(lambda x: x, chunk_size=0),
    "jacrev non-tensor input": lambda L: L.func.jacrev(lambda x: x)(2.0),
    "jacrev argnum out of range": lambda L: L.func.jacrev(lambda x: x, argnums=2)(randn(L, 3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch_func(name):
    same_error(ERRORS[name])


def test_integer_input_cannot_be_differentiated():
    for L in (mg, torch):
        with pytest.raises(RuntimeError, match="(?i)only Tensors of floating point dtype"):
            L.func.grad(lambda x: x.sum())(L.ones(3, dtype=L.int64))


@pytest.mark.parametrize("L", LIBS)
def test_wrappers_keep_the_function_name(L):
    def loss(x):
        return x.sum()
    for transform in (L.func.grad, L.func.grad_and_value, L.func.jacrev):
        assert transform(loss).__name__ == "loss"
