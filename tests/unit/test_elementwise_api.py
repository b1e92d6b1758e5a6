"""The elementwise ops called as a PyTorch user calls them.

Keyword arguments, defaults, Tensor methods, operators and torch's overloads
(`max(a, b)`, `div(..., rounding_mode=)`, `clamp` with tensor bounds, `lerp` with a
scalar or tensor weight ...).  Each case runs the same code on minigrad and, where
installed, on torch, and compares values and gradients; the checks that do not
need torch pin values by hand.
"""
import math

import numpy as np
import pytest

import minigrad as mg


def U(shape, lo=-2.0, hi=2.0):
    """A random input: uniform in [lo, hi]."""
    return ("uniform", tuple(shape), lo, hi)


def B(shape):
    """A constant boolean input (a condition)."""
    return ("bool", tuple(shape))


def C(value):
    """A constant input, not differentiated."""
    return ("const", value)


POS = (0.5, 2.0)
UNARY = [
    # name, domain
    ("abs", (-2, 2)), ("sign", (-2, 2)), ("exp", (-2, 2)), ("exp2", (-2, 2)), ("expm1", (-2, 2)),
    ("log", POS), ("log2", POS), ("log10", POS), ("log1p", (-0.5, 2)), ("sqrt", POS),
    ("rsqrt", POS), ("square", (-2, 2)), ("reciprocal", POS), ("sin", (-2, 2)), ("cos", (-2, 2)),
    ("tan", (-1.2, 1.2)), ("asin", (-0.9, 0.9)), ("acos", (-0.9, 0.9)), ("atan", (-2, 2)),
    ("sinh", (-2, 2)), ("cosh", (-2, 2)), ("tanh", (-2, 2)), ("asinh", (-2, 2)),
    ("acosh", (1.1, 3)), ("atanh", (-0.9, 0.9)), ("sigmoid", (-3, 3)), ("logit", (0.05, 0.95)),
    ("erf", (-2, 2)), ("erfc", (-2, 2)), ("erfinv", (-0.9, 0.9)), ("lgamma", (0.2, 4)),
    ("digamma", (0.2, 4)), ("floor", (-2, 2)), ("ceil", (-2, 2)), ("round", (-2, 2)),
    ("trunc", (-2, 2)), ("fix", (-2, 2)), ("frac", (-2, 2)), ("sinc", (-2, 2)), ("neg", (-2, 2)),
    ("nan_to_num", (-2, 2)),
]

CASES = []
for _name, (_lo, _hi) in UNARY:
    CASES.append((f"{_name}-function", (lambda n: lambda m, x: getattr(m, n)(x))(_name), [U([3, 4], _lo, _hi)]))
    CASES.append((f"{_name}-method", (lambda n: lambda m, x: getattr(x, n)())(_name), [U([3, 4], _lo, _hi)]))

CASES += [
    # clamp / clip: scalar bounds, tensor bounds, mixed, methods, keywords
    ("clamp-method-min", lambda m, x: x.clamp(min=0), [U([3, 4])]),
    ("clamp-method-max", lambda m, x: x.clamp(max=0.5), [U([3, 4])]),
    ("clamp-positional", lambda m, x: m.clamp(x, -0.5, 0.5), [U([3, 4])]),
    ("clamp-tensor-bounds", lambda m, x, lo, hi: m.clamp(x, min=lo, max=hi),
     [U([3, 4]), U([4], -1.5, -0.2), U([3, 1], 0.2, 1.5)]),
    ("clamp-tensor-min-method", lambda m, x, lo: x.clamp(min=lo), [U([3, 4]), U([3, 4])]),
    ("clip-function", lambda m, x: m.clip(x, max=0.3), [U([3, 4])]),
    ("clip-method", lambda m, x: x.clip(-1, 1), [U([3, 4])]),
    ("clip-tensor-bounds", lambda m, x, lo: m.clip(x, lo), [U([3, 4]), U([4])]),
    # pow and friends
    ("pow-method-int", lambda m, x: x.pow(2), [U([3, 4])]),
    ("pow-operator", lambda m, x: x ** 3, [U([3, 4])]),
    ("pow-operator-fractional", lambda m, x: x ** 0.5, [U([3, 4], *POS)]),
    ("rpow-operator", lambda m, x: 2 ** x, [U([3, 4])]),
    ("pow-tensor-tensor", lambda m, x, e: m.pow(x, e), [U([3, 4], *POS), U([4])]),
    ("pow-scalar-base", lambda m, e: m.pow(2.5, e), [U([3, 4])]),
    ("pow-keyword", lambda m, x: m.pow(x, exponent=2), [U([3, 4])]),
    ("float-power", lambda m, x: m.float_power(x, 2), [U([3, 4])]),
    ("float-power-method", lambda m, x, e: x.float_power(e), [U([3, 4], *POS), U([3, 4])]),
    ("sqrt-of-square", lambda m, x: m.sqrt(m.square(x) + 1), [U([3, 4])]),
    # arithmetic with alpha, scalars and broadcasting
    ("add-alpha", lambda m, x, y: m.add(x, y, alpha=2), [U([3, 4]), U([4])]),
    ("add-method-scalar", lambda m, x: x.add(1.5), [U([3, 4])]),
    ("sub-alpha-method", lambda m, x, y: x.sub(y, alpha=0.5), [U([3, 4]), U([3, 1])]),
    ("rsub-operator", lambda m, x: 1 - x, [U([3, 4])]),
    ("mul-broadcast", lambda m, x, y: m.mul(x, y), [U([2, 1, 4]), U([3, 1])]),
    ("div-operator", lambda m, x, y: x / y, [U([3, 4]), U([4], *POS)]),
    ("rdiv-operator", lambda m, x: 2 / x, [U([3, 4], *POS)]),
    ("div-rounding-none", lambda m, x, y: m.div(x, y, rounding_mode=None), [U([3, 4]), U([4], *POS)]),
    ("div-floor", lambda m, x, y: m.div(x, y, rounding_mode="floor"), [U([3, 4]), U([4], *POS)]),
    ("div-trunc-method", lambda m, x, y: x.div(y, rounding_mode="trunc"), [U([3, 4]), U([4], *POS)]),
    ("div-floor-scalar", lambda m, x: m.div(x, 0.7, rounding_mode="floor"), [U([3, 4])]),
    ("remainder-operator", lambda m, x: x % 1.5, [U([3, 4])]),
    ("remainder-tensor", lambda m, x, y: m.remainder(x, y), [U([3, 4], -5, 5), U([4], 1.5, 2.5)]),
    ("fmod", lambda m, x, y: m.fmod(x, y), [U([3, 4], -5, 5), U([4], -2.5, -1.5)]),
    ("fmod-method-scalar", lambda m, x: x.fmod(1.5), [U([3, 4], -5, 5)]),
    # maximum / minimum and the max/min overloads
    ("maximum", lambda m, x, y: m.maximum(x, y), [U([3, 4]), U([4])]),
    ("minimum-method", lambda m, x, y: x.minimum(y), [U([3, 4]), U([3, 1])]),
    ("max-other", lambda m, x, y: m.max(x, y), [U([3, 4]), U([4])]),
    ("max-other-method", lambda m, x, y: x.max(y), [U([3, 4]), U([3, 4])]),
    ("min-other", lambda m, x, y: m.min(x, other=y), [U([3, 4]), U([3, 1])]),
    ("max-all", lambda m, x: m.max(x), [U([3, 4])]),
    ("max-dim-positional", lambda m, x: m.max(x, 1)[0], [U([3, 4])]),
    ("max-dim-keepdim", lambda m, x: m.max(x, dim=1, keepdim=True).values, [U([3, 4])]),
    ("min-dim-method", lambda m, x: x.min(dim=0).values, [U([3, 4])]),
    ("fmax", lambda m, x, y: m.fmax(x, y), [U([3, 4]), U([4])]),
    ("fmin-method", lambda m, x, y: x.fmin(y), [U([3, 4]), U([3, 4])]),
    # two-argument transcendental ops
    ("atan2", lambda m, x, y: m.atan2(x, y), [U([3, 4]), U([4])]),
    ("atan2-method", lambda m, x, y: x.atan2(y), [U([3, 4]), U([3, 1], *POS)]),
    ("hypot", lambda m, x, y: m.hypot(x, y), [U([3, 4]), U([4], *POS)]),
    ("logaddexp", lambda m, x, y: m.logaddexp(x, y), [U([3, 4]), U([4])]),
    ("logaddexp2-method", lambda m, x, y: x.logaddexp2(y), [U([3, 4]), U([3, 4])]),
    ("copysign", lambda m, x, y: m.copysign(x, y), [U([3, 4]), U([4])]),
    ("copysign-scalar", lambda m, x: x.copysign(-1.0), [U([3, 4])]),
    ("xlogy", lambda m, x, y: m.xlogy(x, y), [U([3, 4]), U([4], *POS)]),
    ("xlogy-scalar-other", lambda m, x: m.xlogy(x, 3.0), [U([3, 4])]),
    ("special-xlogy", lambda m, x, y: m.special.xlogy(x, y), [U([3, 4]), U([3, 4], *POS)]),
    # lerp, addcmul, addcdiv, where
    ("lerp-scalar-weight", lambda m, x, y: m.lerp(x, y, 0.3), [U([3, 4]), U([4])]),
    ("lerp-scalar-weight-large", lambda m, x, y: x.lerp(y, 0.8), [U([3, 4]), U([3, 4])]),
    ("lerp-tensor-weight", lambda m, x, y, w: m.lerp(x, y, weight=w), [U([3, 4]), U([4]), U([3, 1], 0, 1)]),
    ("addcmul", lambda m, x, a, b: m.addcmul(x, a, b, value=0.5), [U([3, 4]), U([3, 1]), U([4])]),
    ("addcmul-method", lambda m, x, a, b: x.addcmul(a, b), [U([3, 4]), U([3, 4]), U([3, 4])]),
    ("addcdiv", lambda m, x, a, b: m.addcdiv(x, a, b, value=2), [U([3, 4]), U([3, 4]), U([4], *POS)]),
    ("where", lambda m, c, x, y: m.where(c, x, y), [B([3, 4]), U([3, 4]), U([4])]),
    ("where-scalar-other", lambda m, c, x: m.where(c, x, 0.0), [B([3, 4]), U([3, 4])]),
    # keyword arguments and defaults of the unary ops
    ("logit-eps", lambda m, x: m.logit(x, eps=0.1), [U([3, 4], 0, 1)]),
    ("logit-eps-method", lambda m, x: x.logit(0.2), [U([3, 4], 0, 1)]),
    ("special-logit", lambda m, x: m.special.logit(x, eps=1e-6), [U([3, 4], 0.05, 0.95)]),
    ("round-decimals", lambda m, x: m.round(x, decimals=2), [U([3, 4])]),
    ("round-decimals-method", lambda m, x: x.round(decimals=1), [U([3, 4])]),
    ("special-round", lambda m, x: m.special.round(x), [U([3, 4])]),
    ("polygamma", lambda m, x: m.polygamma(2, x), [U([3, 4], 0.5, 3)]),
    ("polygamma-zero", lambda m, x: m.polygamma(0, x), [U([3, 4], 0.5, 3)]),
    ("polygamma-method", lambda m, x: x.polygamma(1), [U([3, 4], 0.5, 3)]),
    ("special-polygamma", lambda m, x: m.special.polygamma(1, x), [U([3, 4], 0.5, 3)]),
    ("special-gammaln", lambda m, x: m.special.gammaln(x), [U([3, 4], 0.5, 3)]),
    ("special-psi", lambda m, x: m.special.psi(x), [U([3, 4], 0.5, 3)]),
    ("special-digamma", lambda m, x: m.special.digamma(x), [U([3, 4], 0.5, 3)]),
    ("special-expit", lambda m, x: m.special.expit(x), [U([3, 4])]),
    ("special-erf-family", lambda m, x: m.special.erf(x) + m.special.erfc(x) + m.special.erfinv(x / 3),
     [U([3, 4])]),
    ("special-exp-family", lambda m, x: m.special.exp2(x) + m.special.expm1(x) + m.special.log1p(x + 3),
     [U([3, 4])]),
    ("special-sinc", lambda m, x: m.special.sinc(x), [U([3, 4])]),
    ("nan-to-num-keywords", lambda m, x: m.nan_to_num(x, nan=1.0, posinf=5.0, neginf=-5.0),
     [C([[math.nan, math.inf, -math.inf, 1.0]])]),
    ("nan-to-num-method", lambda m, x: x.nan_to_num(neginf=-1.0) * x.nan_to_num(), [U([3, 4])]),
    # non-contiguous and 0-d inputs
    ("noncontiguous", lambda m, x, y: m.atan2(x.transpose(0, 1), y) * m.exp(x.transpose(0, 1)),
     [U([4, 3]), U([4], *POS)]),
    ("zero-dim", lambda m, x, y: m.hypot(x, y) + m.lgamma(x + 3), [U([]), U([3, 4])]),
]


def _make(spec, rng):
    kind = spec[0]
    if kind == "uniform":
        return rng.uniform(spec[2], spec[3], spec[1]), True
    if kind == "bool":
        return rng.random(spec[1]) < 0.5, False
    return np.array(spec[1], dtype=np.float64), False


def _run(m, fn, arrays, make_tensor):
    inputs = [make_tensor(a, rg) for a, rg in arrays]
    out = fn(m, *inputs)
    cotangent = np.random.default_rng(7).standard_normal(tuple(out.shape))
    if out.requires_grad:
        out.backward(make_tensor((cotangent, False), False) if False else _like(m, cotangent))
    grads = [t.grad if rg else None for t, (_, rg) in zip(inputs, arrays)]
    return out, grads


def _like(m, array):
    return m.tensor(array) if m is mg else m.tensor(array, dtype=m.float64)


def _numpy(t):
    if t is None:
        return None
    if type(t).__module__.startswith("torch"):
        return t.detach().numpy(force=True)  # force: torch may hand back a lazy ZeroTensor
    return t.detach().numpy()


def _minigrad(fn, arrays):
    return _run(mg, fn, arrays, lambda a, rg: mg.tensor(a, requires_grad=rg))


@pytest.mark.parametrize("fn, specs", [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_matches_torch(fn, specs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = [_make(s, rng) for s in specs]
    with np.errstate(all="ignore"):
        out, grads = _minigrad(fn, arrays)
    t_out, t_grads = _run(torch, fn, arrays, lambda a, rg: torch.tensor(a, requires_grad=rg))
    np.testing.assert_allclose(_numpy(out), _numpy(t_out), rtol=1e-7, atol=1e-10)
    for g, tg in zip(grads, t_grads):
        if tg is None and g is None:
            continue
        tg = np.zeros_like(_numpy(g)) if tg is None else _numpy(tg)
        assert g is not None, "torch computed a gradient where minigrad did not"
        assert g.shape == tuple(tg.shape)
        np.testing.assert_allclose(_numpy(g), tg, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fn, specs", [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_runs_and_keeps_shapes(fn, specs):
    rng = np.random.default_rng(0)
    arrays = [_make(s, rng) for s in specs]
    with np.errstate(all="ignore"):
        out, grads = _minigrad(fn, arrays)
    for (a, rg), g in zip(arrays, grads):
        if rg and out.requires_grad:
            assert g is not None and g.shape == a.shape


# ---------------------------------------------------------------- hard-coded checks (no torch)
def test_max_min_dispatch():
    x = mg.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]], requires_grad=True)
    y = mg.tensor([2.0, 2.0, 2.0])
    assert mg.max(x).item() == 5.0
    values, indices = mg.max(x, 1)
    np.testing.assert_array_equal(values.detach().numpy(), [5.0, 4.0])
    np.testing.assert_array_equal(indices.detach().numpy(), [1, 0])
    assert mg.max(x, dim=1, keepdim=True).values.shape == (2, 1)
    np.testing.assert_array_equal(mg.max(x, y).detach().numpy(), [[2.0, 5.0, 2.0], [4.0, 2.0, 3.0]])
    np.testing.assert_array_equal(x.min(y).detach().numpy(), [[1.0, 2.0, 2.0], [2.0, 0.0, 2.0]])
    mg.max(x, y).sum().backward()
    # x[0, 2] ties with y: the gradient is split
    np.testing.assert_array_equal(x.grad.detach().numpy(), [[0.0, 1.0, 0.5], [1.0, 0.0, 1.0]])


def test_div_rounding_modes():
    x = mg.tensor([7.0, -7.0, 7.5])
    y = mg.tensor([2.0, 2.0, -2.0])
    np.testing.assert_array_equal(mg.div(x, y).detach().numpy(), [3.5, -3.5, -3.75])
    np.testing.assert_array_equal(mg.div(x, y, rounding_mode=None).detach().numpy(), [3.5, -3.5, -3.75])
    np.testing.assert_array_equal(mg.div(x, y, rounding_mode="floor").detach().numpy(), [3.0, -4.0, -4.0])
    np.testing.assert_array_equal(x.div(y, rounding_mode="trunc").detach().numpy(), [3.0, -3.0, -3.0])
    np.testing.assert_array_equal((x // 2).detach().numpy(), [3.0, -4.0, 3.0])
    np.testing.assert_array_equal((x % 2).detach().numpy(), [1.0, 1.0, 1.5])
    with pytest.raises(ValueError, match="rounding_mode"):
        mg.div(x, y, rounding_mode="round")


def test_reflected_remainder():
    # torch does not differentiate `number % tensor`; minigrad does: d/dx (a % x) = -floor(a / x)
    x = mg.tensor([1.5, 2.0, 3.0], requires_grad=True)
    out = 5.0 % x
    np.testing.assert_allclose(out.detach().numpy(), [0.5, 1.0, 2.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), [-3.0, -2.0, -1.0])


def test_integer_trunc_division_rounds_toward_zero():
    a = mg.tensor([7, -7, 6, -6])
    b = mg.tensor([2, 2, -4, 4])
    np.testing.assert_array_equal(mg.div(a, b, rounding_mode="trunc").detach().numpy(), [3, -3, -1, -1])
    np.testing.assert_array_equal(mg.div(a, b, rounding_mode="floor").detach().numpy(), [3, -4, -2, -2])


def test_clamp_needs_a_bound():
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        mg.clamp(mg.tensor([1.0]))


def test_clamp_tensor_bounds_gradients():
    x = mg.tensor([-2.0, 0.0, 2.0], requires_grad=True)
    lo = mg.tensor(-1.0, requires_grad=True)
    hi = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    out = mg.clamp(x, min=lo, max=hi)
    np.testing.assert_array_equal(out.detach().numpy(), [-1.0, 0.0, 1.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), [0.0, 1.0, 0.0])
    assert lo.grad.item() == 1.0  # broadcast bound: its gradient is summed
    np.testing.assert_array_equal(hi.grad.detach().numpy(), [0.0, 0.0, 1.0])


def test_clamp_mixed_bounds():
    # torch rejects a number and a 1-d tensor together; minigrad takes the number as a constant
    x = mg.tensor([-2.0, 0.0, 2.0], requires_grad=True)
    hi = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    out = mg.clamp(x, min=-0.5, max=hi)
    np.testing.assert_array_equal(out.detach().numpy(), [-0.5, 0.0, 1.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(hi.grad.detach().numpy(), [0.0, 0.0, 1.0])


def test_lerp_weights():
    a = mg.tensor([0.0, 10.0], requires_grad=True)
    b = mg.tensor([1.0, 20.0], requires_grad=True)
    np.testing.assert_allclose(mg.lerp(a, b, 0.25).detach().numpy(), [0.25, 12.5])
    w = mg.tensor([0.5, 1.0], requires_grad=True)
    out = a.lerp(b, w)
    np.testing.assert_array_equal(out.detach().numpy(), [0.5, 20.0])  # weight 1 gives end exactly
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.detach().numpy(), [1.0, 10.0])
    np.testing.assert_array_equal(a.grad.detach().numpy(), [0.5, 0.0])


def test_special_values():
    x = mg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    np.testing.assert_allclose(mg.erf(x).detach().numpy(), [math.erf(v) for v in (0.0, 0.5, 1.0)])
    np.testing.assert_allclose(mg.lgamma(x + 1).detach().numpy(), [math.lgamma(v + 1) for v in (0.0, 0.5, 1.0)])
    np.testing.assert_allclose(mg.digamma(mg.tensor([1.0])).detach().numpy(), [-0.5772156649015329])
    np.testing.assert_allclose(mg.polygamma(1, mg.tensor([1.0])).detach().numpy(), [math.pi ** 2 / 6])
    np.testing.assert_allclose(mg.erfinv(mg.erf(x)).detach().numpy(), x.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(mg.sinc(mg.tensor([0.0, 0.5])).detach().numpy(), [1.0, 2 / math.pi])
    np.testing.assert_allclose(mg.xlogy(mg.tensor([0.0, 2.0]), mg.tensor([0.0, math.e])).detach().numpy(), [0.0, 2.0])
    with pytest.raises(RuntimeError, match="non-negative"):
        mg.polygamma(-1, x)


def test_float32_stays_float32():
    x = mg.tensor(np.array([0.3, 0.6], dtype=np.float32), requires_grad=True)
    for op in (mg.erf, mg.erfinv, mg.lgamma, mg.digamma, mg.sinc, mg.logit, mg.exp2, mg.rsqrt):
        out = op(x)
        assert out.dtype == np.float32, op.__name__
        (g,) = mg.autograd.grad(out.sum(), x)
        assert g.dtype == np.float32, op.__name__
    assert mg.maximum(x, 0.5).dtype == np.float32
    assert mg.float_power(x, 2).dtype == np.float64  # computed in double, as torch


def test_second_order_through_pow_and_clamp():
    x = mg.tensor([0.5, 1.5, 3.0], requires_grad=True)
    y = (x ** 3).clamp(max=10.0).sum()
    (g,) = mg.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0.75, 6.75, 0.0])
    (gg,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.detach().numpy(), [3.0, 9.0, 0.0])


def _second_order(m, fn, arrays, make_tensor, autograd_grad):
    inputs = [make_tensor(a, rg) for a, rg in arrays]
    leaves = [t for t, (_, rg) in zip(inputs, arrays) if rg]
    out = fn(m, *inputs)
    if not out.requires_grad:
        return None
    rng = np.random.default_rng(11)
    cotangent = _like(m, rng.standard_normal(tuple(out.shape)))
    firsts = autograd_grad([out], leaves, [cotangent], create_graph=True, allow_unused=True)
    total = None
    for g in firsts:
        if g is not None and g.requires_grad:
            term = (g * _like(m, rng.standard_normal(tuple(g.shape)))).sum()
            total = term if total is None else total + term
    if total is None:
        return [None] * len(leaves)
    return autograd_grad([total], leaves, allow_unused=True)


@pytest.mark.parametrize("fn, specs", [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_second_order_matches_torch(fn, specs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = [_make(s, rng) for s in specs]
    with np.errstate(all="ignore"):
        ours = _second_order(mg, fn, arrays, lambda a, rg: mg.tensor(a, requires_grad=rg),
                             mg.autograd.grad)
    theirs = _second_order(torch, fn, arrays, lambda a, rg: torch.tensor(a, requires_grad=rg),
                           torch.autograd.grad)
    if ours is None:
        assert theirs is None
        return
    for g, tg in zip(ours, theirs):
        g = None if g is None else _numpy(g)
        tg = None if tg is None else _numpy(tg)
        if g is None and tg is None:
            continue
        g = np.zeros_like(tg) if g is None else g  # an unused input: zero either way
        tg = np.zeros_like(g) if tg is None else tg
        np.testing.assert_allclose(g, tg, rtol=1e-6, atol=1e-9)


def test_overloads_take_numbers_and_arrays_as_constant_tensors():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    np.testing.assert_array_equal(mg.div(x, 2, rounding_mode="floor").detach().numpy(), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(mg.clamp(x, min=np.array([1.5, 0.0, 0.0])).detach().numpy(), [1.5, 2.0, 3.0])
    np.testing.assert_array_equal(mg.max(x, np.array([2.0, 2.0, 2.0])).detach().numpy(), [2.0, 2.0, 3.0])
    np.testing.assert_array_equal((x / 2).detach().numpy(), [0.5, 1.0, 1.5])
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        mg.max(x, "dim")


@pytest.mark.parametrize("op", ["remainder", "fmod"])
def test_integer_remainder_by_zero_raises_as_torch(op):
    """numpy gives 0; torch raises ZeroDivisionError (a RuntimeError) for integers, and
    floats give nan."""
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            getattr(lib, op)(lib.tensor([5, 3]), lib.tensor([2, 0]))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            getattr(lib.tensor([5, 3]), op)(0)
    mine = getattr(mg, op)(mg.tensor([5.0, -3.0]), 0.0).numpy()
    theirs = getattr(torch, op)(torch.tensor([5.0, -3.0]), 0.0).numpy()
    np.testing.assert_array_equal(mine, theirs)
