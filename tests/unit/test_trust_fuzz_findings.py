"""Regression tests for the differential fuzzer's findings (tools/fuzz.py, issue 10).

Each test runs a program under minigrad and, where installed, PyTorch, and checks
the same values, gradients, dtypes or exception under both.
"""
import warnings

import numpy as np
import pytest

import minigrad as mg

try:
    import torch
except ImportError:
    torch = None

LIBS = [pytest.param(mg, id="minigrad")] + ([pytest.param(torch, id="torch")] if torch else [])
INF, NAN = float("inf"), float("nan")


def f64(L, values, **kw):
    return L.tensor(values, dtype=L.float64, **kw)


# ------------------------------------------------------- silent inf and nan
@pytest.mark.parametrize("L", LIBS)
def test_arithmetic_on_inf_and_nan_warns_nothing(L):
    """inf - inf, inf * 0, sin(inf), a sum over inf and -inf: nan, silently."""
    x = f64(L, [INF, -INF, 0.0, NAN], requires_grad=True)
    y = f64(L, [INF, -INF, INF, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        outs = [x - y, x + x.flip(0), x * 0, x.sin(), x.cos(), x.sum(), x.cumsum(0),
                x.reshape(2, 2) @ y.reshape(2, 2), x.logsumexp(0), L.softmax(x, 0),
                L.addcmul(x, x, y, value=0.5), x.lerp(y, 0.3), x.prod(), x.var(), x.std()]
        loss = sum((o.sum() for o in outs), f64(L, 0.0))
        (g,) = L.autograd.grad(loss, x, create_graph=True)
        g.sum().backward()
    assert np.isnan(outs[0].detach().numpy()[0]) and np.isnan(outs[5].item())


# ------------------------------------------------ formulas at their edge points
def _first_and_second(L, fn, *values):
    """fn's value, gradient and Hessian-vector product (ones) at ``values``, as lists
    (None where the gradient has no graph)."""
    xs = [f64(L, v, requires_grad=True) for v in values]
    out = fn(L, *xs)
    grads = L.autograd.grad(out.sum(), xs, create_graph=True, allow_unused=True)
    first = [None if g is None else g.tolist() for g in grads]
    live = [g.sum() for g in grads if g is not None and g.requires_grad]
    second = None
    if live:
        second = [None if h is None else h.tolist()
                  for h in L.autograd.grad(sum(live), xs, allow_unused=True)]
    return out.tolist(), first, second


def _same(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    return bool(np.allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))  # inf's sign counts


EDGES = {
    # copysign at self == 0: gradient 0, and PyTorch's NaN second order there
    "copysign": (lambda L, x, y: x.copysign(y), [0.0, -0.0, 4.0, -2.0], [1.0, -1.0, -3.0, 0.0]),
    "copysign_self": (lambda L, x: x.copysign(x), [0.0, -0.0, 4.0, -2.0]),
    # a number exponent 0: a constant zero gradient (no NaN from 0 * x**-1 at 0)
    "pow_0": (lambda L, x: x ** 0, [0.0, -0.0, 2.0]),
    # -0.0 ** -0.5 is 1 / sqrt(-0.0) = -inf as PyTorch computes it
    "pow_half": (lambda L, x: x.pow(0.5), [0.0, -0.0, 4.0, -2.0]),
    "pow_minus_half": (lambda L, x: x ** -0.5, [0.0, -0.0, 4.0]),
    # norms at a zero slice: gradient 0, second order NaN as PyTorch's
    "norm_fro": (lambda L, x: x.norm(dim=0), [[0.0, 1.0, 0.0], [0.0, -2.0, 3.0]]),
    "norm_3": (lambda L, x: x.norm(p=3, dim=0), [[0.0, 1.0, 0.0], [0.0, -2.0, 3.0]]),
    "norm_1.5": (lambda L, x: x.norm(p=1.5, dim=1), [[0.0, 0.0, 0.0], [0.0, -2.0, 3.0]]),
    "norm_0.5": (lambda L, x: x.norm(p=0.5, dim=0), [[0.0, 1.0, 0.0], [0.0, -2.0, 3.0]]),
    "vector_norm": (lambda L, x: L.linalg.vector_norm(x, dim=1), [[0.0, 0.0], [3.0, 4.0]]),
    "matrix_norm": (lambda L, x: L.linalg.matrix_norm(x), [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]]),
    # sign(NaN) is 0 in PyTorch (numpy: NaN)
    "sign_nan": (lambda L, x: x.sign(), [NAN, -1.0, 0.0, 2.0]),
    # division by 0: PyTorch's -grad * (self / other / other), first and second order
    "div_by_zero": (lambda L, x, y: x / y, [1.0, 0.0, -1.0, 1.0, 3.0], [0.0, 0.0, -0.0, -0.0, 1e-200]),
    # tensor ** tensor at base 0: PyTorch selects after the log (NaN second order)
    "pow_tensor_base_0": (lambda L, x, y: x ** y, [0.0, 0.0, 2.0, -1.0, 0.0], [0.0, 2.0, 0.5, 2.0, -1.0]),
    "pow_number_base_0": (lambda L, y: 0.0 ** y, [0.0, 2.0, -1.0]),
    # max()/min() of a tensor with a NaN: the gradient goes to the NaNs only
    "max_nan": (lambda L, x: x.max() * 3, [[NAN, 0.83], [NAN, -1.0]]),
    "min_nan": (lambda L, x: x.atan().min(), [[NAN, 0.83]]),
    "max_ties": (lambda L, x: x.max(), [[1.0, 3.0], [3.0, 0.0]]),
    # var/std without degrees of freedom: PyTorch's inf/NaN factor, a constant (second order 0)
    "var_0d": (lambda L, x: x.var(), 1.5),
    "var_0d_dim": (lambda L, x: x.var(dim=0), 1.5),
    "var_single": (lambda L, x: x.var(), [2.0]),
    "var_correction": (lambda L, x: x.var(correction=3), [1.0, 2.0, 3.0]),
    "std_correction": (lambda L, x: x.std(correction=3), [1.0, 2.0, 3.0]),
    "var_dim_correction": (lambda L, x: x.var(dim=1, correction=3), [[1.0, 2.0, 3.0]]),
}


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_point_values_and_derivatives_match_torch(name):
    fn, *values = EDGES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # var/std: "degrees of freedom is <= 0"
        ours, theirs = _first_and_second(mg, fn, *values), _first_and_second(torch, fn, *values)
    for label, a, b in zip(("value", "gradient", "second order"), ours, theirs):
        assert _same(a, b), f"{name} {label}: minigrad {a} / torch {b}"


# ------------------------------------------------ errors as PyTorch raises them
def _outcome(L, program):
    """The shape of what ``program(L)`` returns, or its exception type and message (the
    library's name in the message read as "torch")."""
    try:
        out = program(L)
    except Exception as exc:  # noqa: BLE001 -- the exception is what is compared
        return type(exc).__name__, str(exc).splitlines()[0].replace("minigrad.", "torch.")
    return "ok", None if out is None else tuple(out.shape)


def _assign(key, value_shape, shape=(2, 4, 3), mask=False):
    def program(L):
        y = L.zeros(*shape, dtype=L.float64)
        k = y > -1 if mask else key
        y[k] = L.zeros(*value_shape, dtype=L.float64)
    return program


def _copy(shape, src_shape):
    return lambda L: L.zeros(*shape, dtype=L.float64).copy_(L.zeros(*src_shape, dtype=L.float64))


def _inplace_on(make_target, make_source, op="sub_"):
    def program(L):
        x = L.arange(12.0, dtype=L.float64).reshape(3, 4) * 1
        return getattr(make_target(x), op)(make_source(x))
    return program


ERRORS = {
    # x.copy_(src): src must broadcast to x without growing it
    "copy_grows": _copy((1, 4, 3), (2, 4, 3)),
    "copy_grows_dim": _copy((2, 1, 4), (1, 2, 4)),
    "copy_more_dims": _copy((3,), (3, 3)),
    "copy_mismatch": _copy((2, 3), (4,)),
    # x[basic key] = value: PyTorch's setitem expands value (leading 1s dropped)
    "setitem_grows": _assign(slice(1, 2, 2), (2, 4, 3)),
    "setitem_more_dims": _assign(0, (2, 4, 3)),
    "setitem_mismatch": _assign((0, 0), (4,)),
    "setitem_leading_ones": _assign((0, 0), (1, 1, 3)),
    "setitem_empty": _assign(None, (0,)),
    # x[advanced key] = value: index_put's shape check
    "index_put_mismatch": _assign([0, 1], (3, 4, 3)),
    "index_put_mask_2d_value": _assign(None, (24, 1), mask=True),
    "index_put_mask_count": _assign(None, (5,), mask=True),
    # reshape to a shape of another size
    "reshape_to_0d": lambda L: L.zeros(3).reshape(()),
    "reshape_inferred": lambda L: L.zeros(3).reshape((2, -1)),
    # a 0-d tensor takes dim 0 and -1 only
    "cumsum_0d_dim_1": lambda L: L.tensor(1.0).cumsum(1),
    "cumprod_0d_dim_-2": lambda L: L.tensor(1.0).cumprod(-2),
    "median_0d_dim_1": lambda L: L.tensor(1.0).median(dim=1)[0],
    # writing memory that the op also reads, in part: refused; the same memory: fine
    "overlap_shifted": _inplace_on(lambda x: x[1:], lambda x: x[:-1]),
    "overlap_row_of_self": _inplace_on(lambda x: x, lambda x: x[0]),
    "overlap_unsqueezed_row": _inplace_on(lambda x: x[0, None], lambda x: x[0]),
    "overlap_same_memory": _inplace_on(lambda x: x[0, None], lambda x: x[:1]),
    "overlap_strided_too_hard": _inplace_on(lambda x: x[:, ::2], lambda x: x[:, 1::2]),
    "overlap_copy_of_self": _inplace_on(lambda x: x[1], lambda x: x.reshape(-1)[4:8], "copy_"),
    "overlap_disjoint": _inplace_on(lambda x: x[0], lambda x: x[1]),
    "overlap_index_put_self": lambda L: _index_put_self(L, L.tensor([0, 1])),
    "overlap_index_put_mask_self": lambda L: _index_put_self(L, "mask"),
    "overlap_index_put_one_value": lambda L: _index_put_self(L, "mask", one=True),
    "overlap_setitem_expanded_self": lambda L: _setitem_self(L, lambda y: y[None]),
}


def _index_put_self(L, key, one=False):
    y = L.arange(4.0, dtype=L.float64) * 1
    value = y[:1] if one else y[:2]
    y[y > 1 if isinstance(key, str) else key] = value


def _setitem_self(L, view):
    y = L.arange(4.0, dtype=L.float64) * 1
    view(y)[...] = y


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    ours, theirs = _outcome(mg, ERRORS[name]), _outcome(torch, ERRORS[name])
    if ours[0] in ("ok", "IndexError") and name.startswith(("cumsum", "cumprod", "median")):
        ours = (ours[0], theirs[1]) if ours[0] == theirs[0] else ours  # message: op-prefixed
    assert ours == theirs


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("key", [
    (Ellipsis, Ellipsis), (slice(1, None, 2), Ellipsis, Ellipsis), (Ellipsis, -1, Ellipsis),
    (Ellipsis, None, Ellipsis), (Ellipsis, 0, Ellipsis, Ellipsis), (0, Ellipsis, 0, Ellipsis)])
def test_several_ellipses_index_as_in_torch(key):
    got = [L.arange(24.0).reshape(2, 3, 4)[key] for L in (mg, torch)]
    assert tuple(got[0].shape) == tuple(got[1].shape)
    assert got[0].tolist() == got[1].tolist()
    y = mg.zeros(2, 3, 4)
    y[key] = 1.0  # through the same key reading
    assert y.sum().item() == got[1].numel()


@pytest.mark.parametrize("L", LIBS)
def test_comparing_with_a_string_none_or_list_is_pythons_fallback(L):
    t = L.tensor([1, 2])
    assert (t == "a") is False and (t != "a") is True
    assert (t == None) is False and (t == [1, 2]) is False  # noqa: E711 -- the operator itself
    with pytest.raises(TypeError, match="'<' not supported"):
        t < "a"  # noqa: B015
    assert (t == np.int64(1)).tolist() == [True, False]


# ------------------------------------------------------------------ signed zeros
SIGNED_ZERO_OPS = {
    "relu": lambda L, x, z: L.relu(x),
    "clamp_min": lambda L, x, z: L.clamp(x, min=0.0),
    "clamp_max": lambda L, x, z: L.clamp(x, max=0.0),
    "clamp_tensor": lambda L, x, z: L.clamp(x, min=z),
    "clamp_crossed": lambda L, x, z: x.clamp(min=0.5, max=-0.5),
    "maximum": lambda L, x, z: L.maximum(x, z),
    "maximum_swapped": lambda L, x, z: L.maximum(z, x),
    "minimum": lambda L, x, z: L.minimum(x, z),
    "minimum_swapped": lambda L, x, z: L.minimum(z, x),
    "max_other": lambda L, x, z: x.max(z),
    "cumsum": lambda L, x, z: x.reshape(5, 1).cumsum(1),
}


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("name", sorted(SIGNED_ZERO_OPS))
def test_signed_zeros_and_nan_as_torch(name):
    """-0.0 survives where PyTorch keeps it (1 / x tells +inf from -inf)."""
    def run(L):
        x = f64(L, [-0.0, 1.0, NAN, 0.0, -1.0])
        z = f64(L, [0.0, 0.0, 0.0, -0.0, 0.0])
        out = SIGNED_ZERO_OPS[name](L, x, z).numpy()
        return out.tolist(), np.signbit(out).tolist()
    ours, theirs = run(mg), run(torch)
    assert _same(ours[0], theirs[0]) and ours[1] == theirs[1]


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
def test_comparison_of_shapes_that_do_not_broadcast_raises_torchs_error():
    program = lambda L: L.zeros(4) > L.zeros(24)  # noqa: E731
    assert _outcome(mg, program) == _outcome(torch, program)


@pytest.mark.parametrize("L", LIBS)
def test_gather_input_changed_in_place_is_reported_at_backward(L):
    """PyTorch's gather saves its input (for its shape), so changing it is an error."""
    x = f64(L, [[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    g = y.gather(1, L.tensor([[0, 0], [1, 0]]))
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        g.sum().backward()


@pytest.mark.parametrize("L", LIBS)
@pytest.mark.parametrize("op", ["pow", "copysign"])
def test_saved_output_changed_in_place_is_reported_even_when_its_reader_is_idle(L, op):
    """pow's result feeds only the exponent's gradient, copysign's only self's; PyTorch
    saves it anyway and checks its version at backward, so minigrad does too."""
    x = f64(L, [1.5, 2.0], requires_grad=op == "pow")
    e = f64(L, [2.0, -1.0], requires_grad=op == "copysign")
    y = x ** e if op == "pow" else x.copysign(e)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("L", LIBS)
def test_pow_with_a_number_exponent_saves_no_result(L):
    """PyTorch's pow.Tensor_Scalar saves self only: changing the result is fine."""
    x = f64(L, [1.5, 2.0], requires_grad=True)
    y = x ** 2
    y.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


@pytest.mark.parametrize("L", LIBS)
def test_masked_select_input_changed_in_place_is_reported_at_backward(L):
    """PyTorch's masked_select saves its input, so changing it is an error."""
    x = f64(L, [[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    picked = y.masked_select(y > 0)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        picked.sum().backward()


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
def test_masked_select_broadcasts_and_differentiates_twice_as_torch():
    def run(L):
        b = f64(L, [1.0, -2.0, 3.0], requires_grad=True)
        m = L.tensor([[True, False, True], [False, False, True]])
        s = L.masked_select(b * b, m)
        (g,) = L.autograd.grad((s * L.arange(3.0, dtype=L.float64)).sum(), b, create_graph=True)
        (h,) = L.autograd.grad(g.sum(), b)
        return s.tolist(), g.tolist(), h.tolist()
    assert run(mg) == run(torch)
