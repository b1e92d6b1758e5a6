"""The deliberate divergences the differential fuzzer found (docs/divergences.md):
minigrad against PyTorch and against finite differences.
"""
import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
INF = float("inf")


def f64(L, values, **kw):
    return L.tensor(values, dtype=L.float64, **kw)


def _numpy(t):
    return np.array(t.detach().numpy(), dtype=np.float64)


# --------------------------------------------------------------------- nan-sign
NAN_MAKERS = {
    "sqrt": lambda x: x.sqrt(), "log1p": lambda x: (x - 2).log1p(), "pow_half": lambda x: x ** 0.5,
    "asin": lambda x: (x * 3).asin(), "acos": lambda x: (x * 3).acos(),
}


@pytest.mark.parametrize("name", list(NAN_MAKERS))
def test_nan_sign_is_the_only_difference(name):
    """The same elements are NaN in both libraries; copysign reading them differs in sign
    only, and wherever its sign argument is a number copysign is torch's and passes
    gradcheck."""
    values = [-2.0, -0.5, 0.25, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, theirs = (_numpy(NAN_MAKERS[name](f64(L, values))) for L in (mg, torch))
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, equal_nan=True)
    magnitude = [3.0, -1.5, 2.0, -0.5]
    copied = [_numpy(f64(L, magnitude).copysign(f64(L, out))) for L, out in ((mg, ours), (torch, theirs))]
    np.testing.assert_array_equal(np.abs(copied[0]), np.abs(copied[1]))

    x = f64(mg, magnitude, requires_grad=True)
    sign = f64(mg, [1.0, -2.0, -0.0, 5.0])
    assert mg.autograd.gradcheck(lambda t: t.copysign(sign), (x,))
    xt = f64(torch, magnitude, requires_grad=True)
    ours = mg.autograd.grad(x.copysign(sign).sum(), x)[0].tolist()
    assert ours == torch.autograd.grad(xt.copysign(f64(torch, sign.tolist())).sum(), xt)[0].tolist()


# ---------------------------------------------------- second-order-of-nonfinite
NONFINITE = {
    "abs_of_x_over_zero": (lambda L, x: (x / f64(L, [0.0, 0.0, 2.0])).abs(), [1.0, -1.0, 3.0]),
    "reciprocal_of_cumprod_over_zero": (lambda L, x: (x.cumprod(0) / 3.0) ** -1, [-0.0, -1.0, 0.0]),
    "var_without_degrees_of_freedom": (lambda L, x: x.var(dim=0, correction=2).abs(), 0.5),
}


def _value_and_grad(L, fn, values):
    x = f64(L, values, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # var's "degrees of freedom" warning, in both
        out = fn(L, x)
        (g,) = L.autograd.grad(out.sum(), x)
    return _numpy(out), _numpy(g)


@pytest.mark.parametrize("name", list(NONFINITE))
def test_second_order_where_the_gradient_is_not_finite(name):
    """Values and gradients are torch's; where the gradient is inf or NaN, the function's
    own finite difference is not a number either: there is no derivative there, so no
    second derivative to compare."""
    fn, values = NONFINITE[name]
    ours, theirs = _value_and_grad(mg, fn, values), _value_and_grad(torch, fn, values)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, equal_nan=True)
    grad = ours[1]
    assert not np.isfinite(grad).all()
    h = 1e-6
    for i in np.flatnonzero(~np.isfinite(grad)):
        step = np.zeros(np.shape(values))
        step.flat[i] = h
        plus = _value_and_grad(mg, fn, (np.array(values) + step).tolist())[0].sum()
        minus = _value_and_grad(mg, fn, (np.array(values) - step).tolist())[0].sum()
        with np.errstate(invalid="ignore"):
            assert not np.isfinite((plus - minus) / (2 * h))


# --------------------------------------------------------------------- ulp-ties
@pytest.mark.parametrize("reduce", ["min", "max", "amax", "amin"])
def test_a_tie_splits_the_gradient_as_central_differences(reduce):
    """At an exact tie minigrad's gradient is torch's even split, which is the central
    finite difference; one ulp apart, both give it all to one element."""
    values = [1.5, -0.25, 1.5, -0.25]
    grads = []
    for L in (mg, torch):
        x = f64(L, values, requires_grad=True)
        grads.append(L.autograd.grad(getattr(x, reduce)(), x)[0].tolist())
    assert grads[0] == grads[1]
    h = 1e-7
    for i in range(len(values)):
        up, down = list(values), list(values)
        up[i] += h
        down[i] -= h
        central = (getattr(np, reduce)(up) - getattr(np, reduce)(down)) / (2 * h)
        assert grads[0][i] == pytest.approx(central, abs=1e-6)
    apart = list(values)
    apart[2] = np.nextafter(apart[2], INF)
    apart[3] = np.nextafter(apart[3], -INF)
    x = f64(mg, apart, requires_grad=True)
    xt = f64(torch, apart, requires_grad=True)
    ours = mg.autograd.grad(getattr(x, reduce)(), x)[0].tolist()
    assert ours == torch.autograd.grad(getattr(xt, reduce)(), xt)[0].tolist()
    assert sorted(ours) == [0.0, 0.0, 0.0, 1.0]


# ------------------------------------------------------------ matmul-folded-copy
def test_batched_matmul_input_changed_in_place():
    """(1, 2) @ (3, 2, 2): the gradient is torch's and passes gradcheck; changing the
    3-d input in place before backward is reported, as torch reports it for
    (3, 2, 2) @ (3, 2, 2) (where it does not fold the input into a copy)."""
    rng = np.random.default_rng(0)
    a_values, b_values = rng.standard_normal((1, 2)), rng.standard_normal((3, 2, 2))
    grads = []
    for L in (mg, torch):
        a, b = f64(L, a_values, requires_grad=True), f64(L, b_values, requires_grad=True)
        grads.append([g.tolist() for g in L.autograd.grad((a @ (b * 1)).sum(), (a, b))])
    assert np.allclose(grads[0][0], grads[1][0]) and np.allclose(grads[0][1], grads[1][1])
    assert mg.autograd.gradcheck(lambda a, b: a @ b, (f64(mg, a_values, requires_grad=True),
                                                      f64(mg, b_values, requires_grad=True)))
    for L in (mg, torch):
        a = f64(L, rng.standard_normal((3, 2, 2)), requires_grad=True)
        b = f64(L, b_values, requires_grad=True) * 1
        out = a @ b
        b.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    a = f64(mg, a_values, requires_grad=True)
    b = f64(mg, b_values, requires_grad=True) * 1
    out = a @ b
    b.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
