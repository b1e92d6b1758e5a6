"""minigrad.func.vmap against torch.func.vmap: values, gradients, compositions, errors."""
from collections import namedtuple

import numpy as np
import pytest

import minigrad as mg
from tests.unit.func._both import LIBS, compare, randn, same_error, tensor, torch

Pair = namedtuple("Pair", "a b")


def dot(x, y):
    return (x * y).sum()


# --------------------------------------------------------------- values
@pytest.mark.parametrize("in_dims", [0, 1, -1, (0, 1), (-2, 1), (1, None)])
def test_in_dims(in_dims):
    compare(lambda L: L.func.vmap(lambda x, y: x * y.sin(), in_dims=in_dims)(
        randn(L, 3, 3), randn(L, 3, 3, seed=1)))


@pytest.mark.parametrize("out_dims", [0, 1, -1, (2,), -3])
def test_out_dims_of_one_output(out_dims):
    compare(lambda L: L.func.vmap(lambda x: x.t() @ x, out_dims=out_dims)(randn(L, 4, 2, 3)))


def test_pytree_inputs_with_nested_in_dims_and_a_none_prefix():
    def f(d, pair, scale):
        return d["w"] @ d["x"] * scale + pair[0] - pair[1].sum()

    def program(L):
        d = {"w": randn(L, 2, 3), "x": randn(L, 3, 5, seed=1)}
        pair = [randn(L, 5, 2, seed=2), randn(L, 4, seed=3)]
        return L.func.vmap(f, in_dims=({"w": None, "x": 1}, None, None))(d, pair, 2.0)
    compare(program)
    compare(lambda L: L.func.vmap(lambda p: p.a * p.b, in_dims=(Pair(0, None),))(
        Pair(randn(L, 3, 2), randn(L, 2, seed=1))))


def test_pytree_outputs_with_out_dims_prefix_and_none():
    def f(x):
        return {"sq": x ** 2, "rest": [x.sum(), Pair(x.exp(), x * 3)]}, x.shape[0]

    compare(lambda L: L.func.vmap(f, out_dims=({"sq": 1, "rest": 0}, None))(randn(L, 3, 2)))
    compare(lambda L: L.func.vmap(lambda x: (x, (x.cos(), x.sin())), out_dims=(0, 1))(
        randn(L, 3, 2)))


def test_kwargs_are_not_mapped():
    def f(x, *, scale):
        return x * scale
    compare(lambda L: L.func.vmap(f)(randn(L, 2, 3), scale=randn(L, 2, 3, seed=1)))


def test_an_output_not_depending_on_the_inputs_is_stacked_or_returned_as_is():
    def program(L):
        w = randn(L, 2, seed=4)
        x = randn(L, 3, 2)
        same = L.func.vmap(lambda x: w, out_dims=None)(x)
        assert same is w
        return L.func.vmap(lambda x: (w, L.ones(2)))(x), same
    compare(program)


def test_integer_and_scalar_outputs_and_a_batch_of_one():
    compare(lambda L: L.func.vmap(lambda x: x * 2)(L.arange(6).reshape(2, 3)))
    compare(lambda L: L.func.vmap(lambda x: x.max())(randn(L, 1, 4)))


def test_nested_vmap():
    compare(lambda L: L.func.vmap(L.func.vmap(dot))(randn(L, 2, 3, 4), randn(L, 2, 3, 4, seed=1)))
    compare(lambda L: L.func.vmap(L.func.vmap(dot, in_dims=(None, 0)), in_dims=(0, None))(
        randn(L, 2, 4), randn(L, 3, 4, seed=1)))
    compare(lambda L: L.func.vmap(L.func.vmap(lambda x: x.cumsum(0), in_dims=1, out_dims=1))(
        randn(L, 2, 3, 4)))


def test_empty_batch_gives_empty_outputs_and_gradients():
    def program(L):
        x = randn(L, 0, 3, requires_grad=True)
        out = L.func.vmap(lambda x: (x * 2, x.sum()), out_dims=(1, 0))(x)
        (out[0].sum() + out[1].sum()).backward()
        return out, x.grad
    compare(program)
    compare(lambda L: L.func.vmap(L.func.grad(lambda x: (x ** 2).sum()))(randn(L, 0, 3)))


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 5])
def test_chunk_size_changes_nothing(chunk_size):
    compare(lambda L: L.func.vmap(lambda x: x.softmax(0), chunk_size=chunk_size)(randn(L, 5, 3)))


def test_a_function_that_changes_its_input_in_place():
    def program(L):
        x = randn(L, 3, 2)
        out = L.func.vmap(lambda row: row.mul_(2))(x)
        return out, x
    compare(program)


def test_wraps_the_function():
    def named(x):
        """doc"""
        return x
    for L in (mg, torch):
        mapped = L.func.vmap(named)
        assert (mapped.__name__, mapped.__doc__, mapped.__wrapped__) == ("named", "doc", named)


# ------------------------------------------------------------- autograd
def test_backward_through_a_vmapped_result_reaches_inputs_and_closed_over_weights():
    def program(L):
        x = randn(L, 4, 3, requires_grad=True)
        w = randn(L, 3, 2, seed=1, requires_grad=True)
        out = L.func.vmap(lambda row: (row @ w).tanh(), out_dims=1)(x)
        (out ** 2).sum().backward()
        return out, x.grad, w.grad
    compare(program)


def test_second_order_through_vmap():
    def program(L):
        x = randn(L, 3, 2, requires_grad=True)
        y = L.func.vmap(lambda row: (row.sin() * row).sum())(x)
        g, = L.autograd.grad(y.sum(), x, create_graph=True)
        gg, = L.autograd.grad((g ** 2).sum(), x)
        return g, gg
    compare(program)


def per_sample_grads(L):
    """The per-sample-gradients recipe of PyTorch's torch.func tutorial."""
    net = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 2)).double()
    with L.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(randn(L, *p.shape, seed=10 + i))
    params = {k: v.detach() for k, v in net.named_parameters()}
    x, y = randn(L, 5, 3, seed=1), L.tensor([0, 1, 1, 0, 1])

    def loss(params, sample, target):
        logits = L.func.functional_call(net, params, (sample.unsqueeze(0),))
        return L.nn.functional.cross_entropy(logits, target.unsqueeze(0))
    return L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)


def test_per_sample_gradients_recipe():
    compare(per_sample_grads)


def test_per_sample_gradients_differentiated_again_reach_the_weights():
    def program(L):
        w = randn(L, 3, 2, requires_grad=True)

        def loss(w, sample):
            return ((sample @ w).tanh() ** 2).sum()
        g = L.func.vmap(L.func.grad(loss), in_dims=(None, 0))(w, randn(L, 4, 3, seed=1))
        (g ** 2).sum().backward()
        return g, w.grad
    compare(program)


def test_per_sample_gradients_are_the_loop_of_single_sample_gradients():
    net = mg.nn.Linear(3, 2).double()
    params = {k: v.detach() for k, v in net.named_parameters()}
    x = randn(mg, 4, 3)

    def loss(params, sample):
        return (mg.func.functional_call(net, params, (sample,)) ** 2).sum()
    batched = mg.func.vmap(mg.func.grad(loss), in_dims=(None, 0))(params, x)
    for i in range(4):
        single = mg.func.grad(loss)(params, x[i])
        for k in params:
            np.testing.assert_allclose(batched[k][i].numpy(), single[k].numpy(), rtol=1e-12)


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "hessian"])
def test_vmap_of_a_transform(transform):
    def f(x):
        return (x.sin() * x).sum() if transform in ("grad", "hessian") else x.sin() * x.sum()
    compare(lambda L: L.func.vmap(getattr(L.func, transform)(f))(randn(L, 3, 4)))


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd"])
def test_a_transform_of_vmap(transform):
    def program(L):
        inner = L.func.vmap(lambda row: (row.exp() * row[0]).sum())
        g = (lambda x: inner(x).sum()) if transform == "grad" else inner
        return getattr(L.func, transform)(g)(randn(L, 3, 4))
    compare(program)


def test_vjp_and_jvp_of_vmap():
    compare(lambda L: L.func.vjp(L.func.vmap(lambda r: r.tanh() * r.sum()), randn(L, 2, 3))[1](
        randn(L, 2, 3, seed=1)))
    compare(lambda L: L.func.jvp(L.func.vmap(lambda r: r.tanh() * r.sum()), (randn(L, 2, 3),),
                                 (randn(L, 2, 3, seed=1),)))


def test_jacobian_rows_by_vmap_over_autograd_grad():
    """The torch.func.vmap docstring's example: every vector-Jacobian product at once."""
    def program(L):
        x = randn(L, 4, requires_grad=True)
        y = x ** 2

        def get_vjp(v):
            return L.autograd.grad(y, x, v, retain_graph=True)
        return L.func.vmap(get_vjp)(L.eye(4, dtype=L.float64))
    compare(program, requires_grad=False)


# ----------------------------------------------------------- randomness
RANDOM_OPS = {
    "rand": lambda L, x: x + L.rand(3, dtype=L.float64),
    "randn_like": lambda L, x: x * L.randn_like(x),
    "dropout": lambda L, x: L.nn.functional.dropout(x, 0.5),
    "normal_": lambda L, x: x.clone().normal_(),
    "randint": lambda L, x: x + L.randint(0, 5, (3,)),
}


@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
def test_a_random_op_raises_in_error_mode(op):
    same_error(lambda L: L.func.vmap(lambda x: RANDOM_OPS[op](L, x))(randn(L, 4, 3)))


@pytest.mark.parametrize("outer, inner", [("error", "different"), ("same", "error")])
def test_error_mode_at_any_level_raises(outer, inner):
    same_error(lambda L: L.func.vmap(L.func.vmap(lambda x: x + L.rand(()), randomness=inner),
                                     randomness=outer)(randn(L, 2, 3)))


def test_error_mode_allows_reading_the_generator_state():
    compare(lambda L: L.func.vmap(lambda x: x + L.get_rng_state()[:3].double())(
        L.zeros(2, 3, dtype=L.float64)) * 0)


@pytest.mark.parametrize("L", LIBS)
@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
def test_same_randomness_every_slice_sees_the_same_numbers(L, op):
    x = L.zeros(4, 3, dtype=L.float64) + 1
    L.manual_seed(0)
    out = L.func.vmap(lambda x: RANDOM_OPS[op](L, x), randomness="same")(x)
    after = L.rand(2)
    L.manual_seed(0)
    plain, plain_after = RANDOM_OPS[op](L, x[0]), L.rand(2)
    for row in out:   # each is the unmapped call's draw, and the stream moved as by one
        assert L.equal(row, plain)
    assert L.equal(after, plain_after)


@pytest.mark.parametrize("L", LIBS)
def test_different_randomness_draws_as_one_batched_draw(L):
    L.manual_seed(0)
    out = L.func.vmap(lambda x: x + L.rand(3, dtype=L.float64), randomness="different")(
        L.zeros(4, 3, dtype=L.float64))
    after = L.rand(2)
    L.manual_seed(0)
    assert L.equal(out, L.rand(4, 3, dtype=L.float64))
    assert L.equal(after, L.rand(2))


@pytest.mark.parametrize("L", LIBS)
def test_nested_same_and_different(L):
    rows = L.func.vmap(L.func.vmap(lambda x: x + L.rand(()), randomness="different"),
                       randomness="same")(L.zeros(3, 4))
    assert all(L.equal(row, rows[0]) for row in rows)
    assert len(set(rows[0].tolist())) == 4
    cols = L.func.vmap(L.func.vmap(lambda x: x + L.rand(()), randomness="same"),
                       randomness="different")(L.zeros(3, 4))
    assert all(len(set(row.tolist())) == 1 for row in cols)
    assert len(set(cols[:, 0].tolist())) == 3


def test_the_generator_is_restored_after_an_error():
    before = mg.get_rng_state()
    with pytest.raises(RuntimeError):
        mg.func.vmap(lambda x: x + mg.rand(3))(mg.zeros(2, 3))
    assert mg.equal(mg.get_rng_state(), before)
    mg.rand(3)   # draws again


# --------------------------------------------------------------- errors
def f2(x, y):
    return x * y


ERRORS = {
    "in_dims shorter than args": lambda L, x: L.func.vmap(f2, in_dims=(0,))(x, x),
    "in_dims nested deeper than args": lambda L, x: L.func.vmap(f2, in_dims=((0, 0), 0))(x, x),
    "in_dims a list": lambda L, x: L.func.vmap(f2, in_dims=[0, 0])(x, x),
    "in_dims None": lambda L, x: L.func.vmap(f2, in_dims=None)(x, x),
    "in_dims a float": lambda L, x: L.func.vmap(f2, in_dims=0.5)(x, x),
    "in_dim a string": lambda L, x: L.func.vmap(f2, in_dims=(0, "a"))(x, x),
    "in_dims tuple for a list": lambda L, x: L.func.vmap(lambda l: l[0], in_dims=((0, None),))(
        [x, x]),
    "in_dims tuple for a namedtuple": lambda L, x: L.func.vmap(
        lambda p: p.a, in_dims=((0, None),))(Pair(x, x)),
    "in_dims dict keys": lambda L, x: L.func.vmap(lambda d: d["x"], in_dims=({"z": 0},))(
        {"x": x}),
    "in_dim out of range": lambda L, x: L.func.vmap(f2, in_dims=(2, 0))(x, x),
    "negative in_dim out of range": lambda L, x: L.func.vmap(f2, in_dims=(-3, 0))(x, x),
    "a 0-d input": lambda L, x: L.func.vmap(lambda a: a)(x.sum()),
    "sizes differ": lambda L, x: L.func.vmap(f2, in_dims=(0, 1))(x, x[:, :2]),
    "all in_dims None": lambda L, x: L.func.vmap(f2, in_dims=(None, None))(x, x),
    "no inputs": lambda L, x: L.func.vmap(lambda: x)(),
    "mapping a float": lambda L, x: L.func.vmap(f2)(x, 2.0),
    "mapping None": lambda L, x: L.func.vmap(lambda a, b: a)(x, None),
    "returns an int": lambda L, x: L.func.vmap(lambda a: (a, 3))(x),
    "returns None": lambda L, x: L.func.vmap(lambda a: None)(x),
    "batched output with out_dims None": lambda L, x: L.func.vmap(lambda a: a, out_dims=None)(x),
    "computed output with out_dims None": lambda L, x: L.func.vmap(
        lambda a: (a, a.exp()), out_dims=(0, None))(x),
    "out_dims a string": lambda L, x: L.func.vmap(lambda a: a, out_dims="a")(x),
    "out_dims with a float": lambda L, x: L.func.vmap(lambda a: a, out_dims=(0, 1.5))(x),
    "out_dims too long": lambda L, x: L.func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x),
    "out_dims tuple for one tensor": lambda L, x: L.func.vmap(lambda a: a, out_dims=(0, 0))(x),
    "out_dims list for a tuple": lambda L, x: L.func.vmap(lambda a: (a, a), out_dims=[0, 1])(x),
    "out_dim out of range": lambda L, x: L.func.vmap(lambda a: a, out_dims=3)(x),
    "negative out_dim out of range": lambda L, x: L.func.vmap(lambda a: a.sum(), out_dims=-2)(x),
    "bad randomness": lambda L, x: L.func.vmap(f2, randomness="foo"),
    "chunk_size 0": lambda L, x: L.func.vmap(f2, chunk_size=0),
    "a partial's name": lambda L, x: L.func.vmap(__import__("functools").partial(f2, y=x[0]),
                                                  in_dims=(5,))(x),
    "a module's name": lambda L, x: L.func.vmap(L.nn.Linear(4, 2).double(), in_dims=(5,))(x),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(case):
    same_error(lambda L: ERRORS[case](L, randn(L, 3, 4)))


def test_dict_in_dims_are_taken_in_their_own_key_order_as_torch():
    """torch pairs a dict prefix's entries with the inputs' leaves in the prefix's key order."""
    compare(lambda L: L.func.vmap(lambda d: d["x"] * d["y"], in_dims=({"y": None, "x": 0},))(
        {"x": randn(L, 3, 4), "y": randn(L, 4, seed=1)}))


# -------------------------------- where a loop is more permissive (docs/divergences.md)
def test_values_read_in_python_give_what_a_loop_gives():
    """docs/divergences.md, vmap-loop: torch refuses .item() and an `if` on a mapped value;
    minigrad gives the loop's values, and gradients that pass gradcheck."""
    x = randn(mg, 4, 3, requires_grad=True)

    def branch(row):
        return row.sin() * row[0] if row.sum() > 0 else row.exp()

    def f(row):
        return row * round(row.sum().item()) + branch(row)
    assert {bool(row.sum() > 0) for row in x} == {True, False}   # both branches taken
    assert mg.equal(mg.func.vmap(f)(x), mg.stack([f(row) for row in x]))
    assert mg.autograd.gradcheck(mg.func.vmap(branch), (x,))
    with pytest.raises(RuntimeError, match="calling .item()"):
        torch.func.vmap(f)(torch.from_numpy(x.detach().numpy()))
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        torch.func.vmap(branch)(torch.from_numpy(x.detach().numpy()))


def test_outputs_that_cannot_be_stacked_raise_torchs_errors():
    x = tensor(mg, [[1.0, -1.0], [1.0, 1.0]])
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        mg.func.vmap(lambda r: r if r.sum() > 0 else (r, r))(x)
    with pytest.raises(RuntimeError, match="dynamic shape"):
        mg.func.vmap(lambda r: r[r > 0])(x)
    with pytest.raises(RuntimeError, match="dynamic shape"):
        torch.func.vmap(lambda r: r[r > 0])(torch.from_numpy(x.numpy()))
