"""Tensor methods and functions PyTorch programs use: legacy scatter(reduce=), renorm,
einsum's sublist format, put, positive, sgn, frexp, ldexp, gcd, lcm, nextafter, the
non-differentiable in-place methods, isin, the dtype rules, scalar_tensor, empty_strided,
diagflat, histogram and the top-level in-place functions, against PyTorch."""
import warnings

import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
X34 = RNG.standard_normal((3, 4))
Y34 = RNG.standard_normal((3, 4))
INDEX = np.array([[0, 1, 2, 0], [0, 1, 0, 1]])


def _values(value):
    if isinstance(value, (list, tuple)):
        return [_values(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value.detach().numpy(force=True)  # (force: sgn's gradient is a ZeroTensor)
    if isinstance(value, mg.Tensor):
        return value.detach().numpy()
    return value


def forward_and_grads(t, build, *arrays):
    """``build(t, *leaves)``'s value and the leaves' gradients for a fixed cotangent."""
    leaves = [t.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = build(t, *leaves)
    if out.requires_grad:
        weight = t.arange(1.0, out.numel() + 1.0, dtype=out.dtype).reshape(tuple(out.shape))
        (out * weight).sum().backward()
    return _values(out), [_values(leaf.grad) for leaf in leaves if leaf.requires_grad]


def assert_like_torch(build, *arrays):
    expected, expected_grads = forward_and_grads(torch, build, *arrays)
    got, grads = forward_and_grads(mg, build, *arrays)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)
    assert len(grads) == len(expected_grads)
    for g, e in zip(grads, expected_grads):
        if e is None:
            assert g is None or not np.any(g)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-12)


# ------------------------------------------------------------ values and gradients
CALLS = {
    "renorm p=2 dim 0": lambda t, x: t.renorm(x, 2, 0, 1.5),
    "renorm p=1 dim 1": lambda t, x: x.renorm(1, 1, 2.0),
    "renorm p=inf": lambda t, x: t.renorm(x, float("inf"), 0, 1.0),
    "renorm p=3 none scaled": lambda t, x: x.renorm(3, -1, 100.0),
    "renorm_": lambda t, x: (x * 1).renorm_(2, 1, 1.0),
    "einsum sublist": lambda t, x, y: t.einsum(x, [0, 1], y, [2, 1], [0, 2]),
    "einsum sublist, implicit output": lambda t, x, y: t.einsum(x, [1, 0], y, [1, 2]),
    "einsum sublist, ellipsis": lambda t, x: t.einsum(x, [Ellipsis, 30], [30, Ellipsis]),
    "put": lambda t, x, y: t.put(x, t.tensor([[0, -1], [5, 2]]), y[0, :4].reshape(2, 2)),
    "put accumulate": lambda t, x, y: x.put(t.tensor([1, 1, 7]), y[1, :3], accumulate=True),
    "put_": lambda t, x, y: (x * 1).put_(t.tensor([3, 0]), y[2, :2] * 2, True),
    "sgn": lambda t, x: t.sgn(x),
    "sgn_": lambda t, x: (x * 1).sgn_(),
    "frexp mantissa": lambda t, x: t.frexp(x * 10).mantissa,
    "frexp exponent": lambda t, x: t.frexp(x * 10)[1],
    "ldexp": lambda t, x, y: t.ldexp(x, y),
    # (non-negative: torch's gradient for a negative integer exponent is 0, from an integer
    # 2 ** other; minigrad's is 2 ** other, as for a float exponent)
    "ldexp int exponent": lambda t, x: x.ldexp(t.tensor([1, 2, 0, 3])),
    "ldexp_": lambda t, x, y: (x * 1).ldexp_(y),
    "nextafter": lambda t, x, y: t.nextafter(x, y),
    "nextafter_": lambda t, x, y: (x * 1).nextafter_(y[0]),
    "diagflat": lambda t, x: t.diagflat(x),
    "diagflat offset": lambda t, x: x[:2, :2].diagflat(-2),
    "positive": lambda t, x: t.positive(x) * 2,
    "top-level relu_": lambda t, x: t.relu_(x * 1),
    "top-level sigmoid_": lambda t, x: t.sigmoid_(x * 1),
    "top-level clamp_": lambda t, x: t.clamp_(x * 1, -0.5, 0.5),
}


@pytest.mark.parametrize("name", CALLS)
def test_values_and_gradients(name):
    build = CALLS[name]
    arrays = (X34, Y34)[:build.__code__.co_argcount - 1]
    assert_like_torch(build, *arrays)


INTEGER_CALLS = {
    "gcd": lambda t: t.gcd(t.tensor([12, -18, 0, 7]), t.tensor([8, 12, 0, 0])),
    "lcm": lambda t: t.tensor([4, -6, 0, 3]).lcm(t.tensor([6, 4, 5, 3])),
    "gcd_ int32 with int64": lambda t: t.tensor([12, 9], dtype=t.int32).gcd_(t.tensor([8, 6])),
    "gcd promotes": lambda t: t.gcd(t.tensor([4], dtype=t.uint8), t.tensor([6], dtype=t.int32)),
    "lcm_ top-level": lambda t: t.lcm_(t.tensor([4, 6]), t.tensor([6, 4])),
    "ldexp ints": lambda t: t.ldexp(t.tensor([1, 2]), t.tensor([1, 2])),
    "ldexp half": lambda t: t.ldexp(t.tensor([1.5], dtype=t.float16), t.tensor([3])),
    "frexp half": lambda t: t.frexp(t.tensor([1.0, 6.0], dtype=t.float16)),
    "sgn ints": lambda t: t.sgn(t.tensor([-3, 0, 2])),
    "sgn bools": lambda t: t.tensor([True, False]).sgn(),
    "nextafter up": lambda t: t.nextafter(t.tensor([1.0, 0.0]), t.tensor([2.0, 1.0])),
    "isin": lambda t: t.isin(t.tensor([[1, 2], [3, 4]]), t.tensor([2, 3])),
    "isin number test": lambda t: t.isin(t.tensor([1.0, 2.0]), 2.0),
    "isin number element": lambda t: t.isin(3, t.tensor([3])),
    "isin invert, mixed dtypes": lambda t: t.isin(t.tensor([1, 2]), t.tensor([2.0]), invert=True),
    "scalar_tensor": lambda t: t.scalar_tensor(3),
    "scalar_tensor int64": lambda t: t.scalar_tensor(3, dtype=t.int64),
    "scalar_tensor bool": lambda t: t.scalar_tensor(True),
    "histogram": lambda t: t.histogram(t.tensor([1.0, 2, 1, 4, 2.5]), 3),
    "histogram edges, weights, density": lambda t: t.histogram(
        t.tensor([1.0, 2, 1, 4, 2.5]), t.tensor([0.0, 1.5, 3, 5]),
        weight=t.tensor([1.0, 2, 3, 4, 5]), density=True),
    "histogram range": lambda t: t.tensor([1.0, 2, 1, 4, 9]).histogram(4, range=(0.0, 8.0)),
    "histogram one value": lambda t: t.histogram(t.ones(2, 3), 2),
    "histogram empty": lambda t: t.histogram(t.tensor([]), 2),
    "histogram float64": lambda t: t.histogram(t.tensor([0.1, 0.7, 0.2], dtype=t.float64), 2),
    "histogram descending edges": lambda t: t.histogram(t.tensor([1.0, 2.0]), t.tensor([1.0, 0.0])),
}


@pytest.mark.parametrize("name", INTEGER_CALLS)
def test_values_and_dtypes(name):
    expected, got = INTEGER_CALLS[name](torch), INTEGER_CALLS[name](mg)
    if not isinstance(expected, tuple):
        expected, got = (expected,), (got,)
    for e, g in zip(expected, got):
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(_values(g), _values(e), rtol=1e-6)


def test_positive_is_the_input_itself():
    x = mg.tensor([1.0, -2.0])
    assert mg.positive(x) is x and x.positive() is x


def test_empty_strided_has_the_strides():
    for t in (torch, mg):
        e = t.empty_strided((2, 3), (1, 2))
        assert e.stride() == (1, 2) and tuple(e.shape) == (2, 3) and e.storage_offset() == 0
        assert e.dtype == t.float32


# ------------------------------------------------------------ legacy scatter(reduce=)
SCATTERS = {
    "add": lambda t, x, s: x.scatter(0, t.tensor(INDEX), s, reduce="add"),
    "multiply": lambda t, x, s: t.scatter(x, 0, t.tensor(INDEX), s, reduce="multiply"),
    "value add": lambda t, x, s: x.scatter(1, t.tensor(INDEX[:, :2]), 2.5, reduce="add"),
    "value multiply": lambda t, x, s: x.scatter(0, t.tensor(INDEX), 3.0, reduce="multiply"),
    "in place": lambda t, x, s: x.clone().scatter_(0, t.tensor(INDEX), s, reduce="add"),
    "int value": lambda t, x, s: t.ones(3, dtype=t.int64).scatter(0, t.tensor([0, 0]), 2.5,
                                                                  reduce="multiply"),
}


@pytest.mark.parametrize("name", SCATTERS)
def test_scatter_reduce_legacy(name):
    def run(t):
        x, s = t.tensor(X34, requires_grad=True), t.tensor(Y34[:2], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = SCATTERS[name](t, x, s)
        backward = None
        if out.requires_grad:  # PyTorch has no derivative for it: backward raises
            with pytest.raises(RuntimeError) as raised:
                out.sum().backward()
            backward = str(raised.value)
        return _values(out), backward
    (expected, expected_error), (got, error) = run(torch), run(mg)
    np.testing.assert_allclose(got, expected)
    assert error == expected_error


def test_scatter_reduce_legacy_warns_for_a_tensor_src():
    # (PyTorch's own warning is once per process, so only minigrad's is caught here)
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor "
                                         "src is deprecated"):
        mg.zeros(3).scatter(0, mg.tensor([0, 0]), mg.ones(2), reduce="add")


# ------------------------------------------------------------ in-place, not differentiable
def _inplace(t, name, x, other):
    version = x._version
    out = getattr(x, name)(*([] if other is None else [other]))
    return out is x, _values(x), str(x.dtype).split(".")[-1], x._version - version


INPLACE = {
    "logical_and_": (lambda t: t.tensor([1.0, 0.0, 2.0]), lambda t: t.tensor([1.0, 1.0, 0.0])),
    "logical_or_": (lambda t: t.tensor([1, 0, 0]), lambda t: t.tensor([False, False, True])),
    "logical_xor_": (lambda t: t.tensor([True, False]), lambda t: t.tensor([True, True])),
    "logical_not_": (lambda t: t.tensor([1, 0, 2]), None),
    "bitwise_and_": (lambda t: t.tensor([5, 3]), lambda t: t.tensor([1, 2])),
    "bitwise_or_": (lambda t: t.tensor([5, 3]), lambda t: 4),
    "bitwise_xor_": (lambda t: t.tensor([True, False]), lambda t: t.tensor([True, True])),
    "bitwise_not_": (lambda t: t.tensor([5, -3], dtype=t.int16), None),
    "heaviside_": (lambda t: t.tensor([1.0, -1.0, 0.0]), lambda t: t.tensor([0.5])),
}


@pytest.mark.parametrize("name", INPLACE)
def test_non_differentiable_inplace(name):
    x, other = INPLACE[name]
    expected = _inplace(torch, name, x(torch), other and other(torch))
    got = _inplace(mg, name, x(mg), other and other(mg))
    assert got[0] and got[2:] == expected[2:]
    np.testing.assert_array_equal(got[1], expected[1])


def test_in_place_operators_and_equals():
    for t in (torch, mg):
        x = t.tensor([6, 5, 3])
        alias = x
        x &= t.tensor([3, 1, 1])
        x |= 8
        x ^= t.tensor([1, 0, 0])
        assert alias is x and x._version == 3
        np.testing.assert_array_equal(_values(x), [11, 9, 9])


def test_logical_inplace_on_a_leaf_that_requires_grad():
    for t in (torch, mg):  # not checked (no derivative), as in PyTorch
        x = t.tensor([1.0, 0.0], requires_grad=True)
        x.logical_not_()
        np.testing.assert_array_equal(_values(x), [0.0, 1.0])


# ------------------------------------------------------------ dtype rules
def test_dtype_rules():
    def rules(t):
        return [
            t.result_type(1, 2.0), t.result_type(t.tensor([1], dtype=t.uint8), -1),
            t.result_type(t.tensor(1.0, dtype=t.float64), t.tensor([1], dtype=t.int32)),
            t.result_type(True, t.tensor([1], dtype=t.int8)), t.result_type(t.tensor([1]), 2.5),
            t.promote_types(t.uint8, t.int8), t.promote_types(t.bool, t.float16),
            t.promote_types(t.int64, t.float16), t.promote_types(t.float32, t.float64),
            t.can_cast(t.float32, t.int32), t.can_cast(t.int32, t.float16),
            t.can_cast(t.int8, t.bool), t.can_cast(t.bool, t.int8),
            t.can_cast(t.float64, t.float16)]
    assert [str(r).split(".")[-1] for r in rules(mg)] == \
        [str(r).split(".")[-1] for r in rules(torch)]


# ------------------------------------------------------------ errors
ERRORS = {
    "scatter reduce": lambda t: t.zeros(3).scatter(0, t.tensor([0]), t.ones(1), reduce="mean"),
    "scatter value reduce": lambda t: t.zeros(3).scatter_(0, t.tensor([0]), 1.0, reduce="sum"),
    "renorm 1-d": lambda t: t.renorm(t.ones(3), 2, 0, 1),
    "renorm p": lambda t: t.renorm(t.ones(2, 2), -1, 0, 1),
    "renorm maxnorm": lambda t: t.renorm(t.ones(2, 2), 2, 0, -1),
    "renorm dim": lambda t: t.renorm(t.ones(2, 2), 2, 3, 1),
    "renorm int": lambda t: t.renorm(t.ones(2, 2, dtype=t.int64), 2, 0, 1),
    "einsum subscript": lambda t: t.einsum(t.ones(2), [52]),
    "einsum no operand": lambda t: t.einsum(t.ones(2)),
    "put index": lambda t: t.put(t.zeros(2, 3), t.tensor([6]), t.tensor([1.0])),
    "put negative index": lambda t: t.zeros(2, 3).put_(t.tensor([-7]), t.tensor([1.0])),
    "put sizes": lambda t: t.put(t.zeros(2, 3), t.tensor([1, 2]), t.tensor([1.0])),
    "put index dtype": lambda t: t.put(t.zeros(2, 3), t.tensor([1.0]), t.tensor([1.0])),
    "put source dtype": lambda t: t.put(t.zeros(3), t.tensor([1]), t.tensor([1.0], dtype=t.float64)),
    "frexp int": lambda t: t.frexp(t.tensor([1, 2])),
    "gcd float": lambda t: t.gcd(t.tensor([1.0]), t.tensor([2.0])),
    "lcm float": lambda t: t.lcm(t.tensor([1.0]), t.tensor([2])),
    "nextafter int": lambda t: t.nextafter(t.tensor([1]), t.tensor([2])),
    "positive bool": lambda t: t.positive(t.tensor([True])),
    "bitwise_and_ float": lambda t: t.tensor([1.0]).bitwise_and_(t.tensor([1.0])),
    "bitwise_or_ bool into long": lambda t: t.tensor([True]).bitwise_or_(t.tensor([3])),
    "heaviside_ dtypes": lambda t: t.tensor([1, 2]).heaviside_(t.tensor([0.5])),
    "isin bool": lambda t: t.isin(t.tensor([1]), t.tensor([True])),
    "promote_types": lambda t: t.promote_types(t.int8, 3),
    "can_cast": lambda t: t.can_cast(1, t.int8),
    "empty_strided dims": lambda t: t.empty_strided((2, 3), (1,)),
    "empty_strided negative": lambda t: t.empty_strided((2, -3), (1, 1)),
    "histogram int": lambda t: t.histogram(t.tensor([1, 2]), 2),
    "histogram bins": lambda t: t.histogram(t.ones(3), 0),
    "histogram range order": lambda t: t.histogram(t.ones(3), 2, range=(3.0, 1.0)),
    "histogram range infinite": lambda t: t.histogram(t.ones(3), 2, range=(1.0, float("inf"))),
    "histogram nan": lambda t: t.histogram(t.tensor([1.0, float("nan")]), 2),
    "histogram weight shape": lambda t: t.histogram(t.ones(5), 2, weight=t.ones(3)),
    "histogram weight dtype": lambda t: t.histogram(t.ones(5, dtype=t.float64), 2,
                                                    weight=t.ones(5)),
    "histogram 2-d bins": lambda t: t.histogram(t.ones(5), t.tensor([[1.0, 2.0]])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name], torch)


def test_ldexp_gradient_for_a_negative_integer_exponent():
    x = mg.tensor([3.0, 5.0], requires_grad=True)
    x.ldexp(mg.tensor([-2, 1])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.25, 2.0])


def test_errors_for_leaves_that_require_grad():
    for build in (lambda t: t.tensor([1.0], requires_grad=True).heaviside_(t.tensor([1.0])),
                  lambda t: t.tensor([1.0], requires_grad=True).ldexp_(t.tensor([1.0]))):
        assert_same_error(build, torch, message=lambda _: mg.autograd.errors.LEAF_INPLACE_ERROR)
