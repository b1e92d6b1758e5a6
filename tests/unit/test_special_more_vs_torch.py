"""torch.special's functions beyond erf / gamma (ndtr ... the orthogonal polynomials), and
torch.i0 / igamma / igammac / mvlgamma: values on grids with PyTorch's edge points (0,
negative, +-inf, nan, large), result dtypes, which inputs are differentiable, first and
second derivatives, in-place forms and errors, all against PyTorch."""
import numpy as np
import pytest

import minigrad as mg
from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

EDGES = [-np.inf, -1e300, -800.0, -100.0, -30.0, -10.0, -5.0, -2.0, -1.0, -0.5, -1e-20,
         -0.0, 0.0, 1e-20, 0.5, 1.0, 2.0, 5.0, 8.0, 10.0, 30.0, 100.0, 700.0, 800.0, 1e300,
         np.inf, np.nan]
PROBABILITIES = [-1.0, 0.0, 1e-300, 1e-20, 0.1, 0.5, 0.9, 1 - 1e-16, 1.0, 2.0, np.nan, np.inf,
                 -np.inf]

# name: rtol in float64 (PyTorch's cephes Bessel J/Y are good to ~1e-8 only, between 5 and 10)
UNARY = {"ndtr": 1e-12, "ndtri": 1e-12, "log_ndtr": 1e-12, "i0": 1e-12, "i0e": 1e-12,
         "i1": 1e-12, "i1e": 1e-12, "erfcx": 1e-12, "entr": 1e-12, "bessel_j0": 1e-7,
         "bessel_j1": 1e-7, "bessel_y0": 1e-7, "bessel_y1": 1e-7, "modified_bessel_i0": 1e-12,
         "modified_bessel_i1": 1e-12, "modified_bessel_k0": 1e-12, "modified_bessel_k1": 1e-12,
         "scaled_modified_bessel_k0": 1e-12, "scaled_modified_bessel_k1": 1e-12,
         "spherical_bessel_j0": 1e-12, "airy_ai": 1e-9}
# float32 oscillating functions: PyTorch's float32 Bessel kernels lose digits far out, so
# their float32 grid stops at |x| <= 100 (airy_ai's float32 is PyTorch's, its arithmetic
# below -2.09 done alike)
OSCILLATING = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"}


def _grid(name, dtype):
    values = PROBABILITIES if name == "ndtri" else EDGES
    if dtype == "float32" and name in OSCILLATING - {"airy_ai"}:
        values = [v for v in values if not abs(v) > 100]
    return values


def _tensors(values, dtype):
    """The same values as a minigrad and a torch tensor (1e300 in float32 is inf)."""
    with np.errstate(over="ignore"):
        array = np.array(values, dtype=dtype)
    return mg.tensor(array), torch.tensor(array)


def _close(ours, theirs, rtol, atol=0.0):
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_torch(name, dtype):
    values = _grid(name, dtype)
    rtol, atol = (UNARY[name], 0.0) if dtype == "float64" else (2e-5, 1e-6)
    x, tx = _tensors(values, dtype)
    _close(getattr(mg.special, name)(x), getattr(torch.special, name)(tx), rtol, atol)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("values", [[0, 1, 3], [True, False]])
def test_unary_integer_and_bool_inputs_give_float32(name, values):
    ours = getattr(mg.special, name)(mg.tensor(values))
    theirs = getattr(torch.special, name)(torch.tensor(values))
    _close(ours, theirs, 2e-6, 1e-7)


BINARY_EDGES = [-np.inf, -100.0, -3.0, -2.5, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0,
                3.0, 10.0, 100.0, 1e10, np.inf, np.nan]
BINARY = {"xlog1py": 1e-12, "zeta": 1e-12, "gammainc": 1e-8, "gammaincc": 1e-8}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_match_torch(name, dtype):
    x, q = np.meshgrid(BINARY_EDGES, BINARY_EDGES, indexing="ij")
    x, q = x.ravel().tolist(), q.ravel().tolist()
    rtol, atol = (BINARY[name], 0.0) if dtype == "float64" else (2e-5, 1e-6)
    (x, tx), (q, tq) = _tensors(x, dtype), _tensors(q, dtype)
    _close(getattr(mg.special, name)(x, q), getattr(torch.special, name)(tx, tq), rtol, atol)


def test_zeta_without_an_asymptotic_branch_as_torch():
    """PyTorch's zeta gives nan where q is huge and x too large for its series (scipy: 0)."""
    x = [1e13, 1e14, 3e13, np.inf, 50.0, 2.0]
    q = [1e9, 1e9, 1e9, 1e9, 1e9, np.inf]
    _close(mg.special.zeta(mg.tensor(x, dtype=mg.float64), mg.tensor(q, dtype=mg.float64)),
           torch.special.zeta(torch.tensor(x, dtype=torch.float64), torch.tensor(q, dtype=torch.float64)),
           1e-12)


@pytest.mark.parametrize("case", [
    lambda L: L.special.xlog1py(L.tensor([0.0, 1.0, 2.0]), 3),
    lambda L: L.special.xlog1py(2, L.tensor([0.0, -1.0, 2.0])),
    lambda L: L.special.xlog1py(L.tensor([1, 2]), L.tensor([3, 4])),
    lambda L: L.special.zeta(L.tensor([2.0, 3.0]), 1),
    lambda L: L.special.zeta(2, L.tensor([1.0, 2.0], dtype=L.float64)),
    lambda L: L.special.zeta(L.tensor([2, 3]), L.tensor([True, True])),
    lambda L: L.special.gammainc(L.tensor([1.0, 2.0], dtype=L.float32), L.tensor(2.0, dtype=L.float64)),
    lambda L: L.igammac(L.tensor([1.0, 2.0], dtype=L.float64), L.tensor([0.5, 3.0])),
    lambda L: L.tensor([1.0, 2.0]).igamma(L.tensor([0.5, 3.0])),
    lambda L: L.special.multigammaln(L.tensor([2, 3]), 2),
    lambda L: L.mvlgamma(L.tensor([2.5, 3.0, -1.0, 1.0, 0.2], dtype=L.float64), 3),
    lambda L: L.tensor([2.5, 3.0]).mvlgamma(1),
    lambda L: L.i0(L.tensor([0, 1, -4])),
    lambda L: L.tensor([0.5, -20.0], dtype=L.float64).i0(),
    lambda L: L.special.i0(L.tensor([0.5, 1.0])),
    lambda L: L.special.logsumexp(L.tensor([[1.0, 2.0], [3.0, -float('inf')]]), 1),
    lambda L: L.special.softmax(L.tensor([[1.0, 2.0], [3.0, 4.0]]), 0),
    lambda L: L.special.log_softmax(L.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, dtype=L.float64),
])
def test_mixed_arguments_promote_as_torch(case):
    _close(case(mg), case(torch), 1e-6)


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
# (nan x is left out: PyTorch's loop then returns an uninitialized value)
POLY_X = [-np.inf, -3.0, -1.0, -0.99, -0.5, -0.1, 0.0, 1e-3, 0.25, 0.5, 0.75, 0.99, 1.0, 1.5,
          3.0, np.inf]
POLY_N = [-3.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 13.0, 25.0, 2.7,
          -0.5, np.nan, np.inf, -np.inf, 1e30]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_match_torch(name, dtype):
    x, n = np.meshgrid(POLY_X, POLY_N, indexing="ij")
    x, n = x.ravel().tolist(), n.ravel().tolist()
    rtol = 1e-10 if dtype == "float64" else 1e-4
    (x, tx), (n, tn) = _tensors(x, dtype), _tensors(n, dtype)
    _close(getattr(mg.special, name)(x, n), getattr(torch.special, name)(tx, tn), rtol, 1e-5)


@pytest.mark.parametrize("name", ["hermite_polynomial_h", "hermite_polynomial_he"])
@pytest.mark.parametrize("dtype, n", [("float64", 512), ("float64", 513), ("float32", 128),
                                      ("float32", 129)])
def test_hermite_is_nan_past_torch_degree_limit(name, dtype, n):
    x = [0.0, 0.01, -0.01]
    ours = getattr(mg.special, name)(mg.tensor(x, dtype=getattr(mg, dtype)), n)
    theirs = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype)), n)
    _close(ours, theirs, 1e-6, 1e-30)


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("x, n", [(0.5, [0, 3, 9]), ([1, 2], [2, 3]), ([0.3, 0.6], 4),
                                  ([True, False], 2)])
def test_polynomial_number_and_integer_arguments_as_torch(name, x, n):
    def build(L):
        def arg(v):
            return L.tensor(v) if isinstance(v, list) else v
        return getattr(L.special, name)(arg(x), arg(n))
    _close(build(mg), build(torch), 1e-6)


NOT_DIFFERENTIABLE = sorted(set(UNARY) - {"ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e",
                                          "erfcx", "entr"})


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE + POLYNOMIALS)
def test_no_derivative_output_does_not_require_grad(name):
    def build(L):
        x = L.tensor([0.5, 2.0], requires_grad=True)
        args = (x, 3) if name in POLYNOMIALS else (x,)
        out = getattr(L.special, name)(*args)
        assert not out.requires_grad and out.grad_fn is None
        out.sum().backward()
    with pytest.raises(RuntimeError) as theirs:
        build(torch)
    with pytest.raises(RuntimeError) as ours:
        build(mg)
    # (minigrad may add a note on a tensor an earlier test converted to a number)
    assert str(ours.value).startswith(str(theirs.value))


@pytest.mark.parametrize("build", [
    lambda L: L.special.zeta(L.tensor([2.0, 3.0], requires_grad=True), L.tensor([1.0, 2.0])),
    lambda L: L.special.gammainc(L.tensor([2.0, 3.0], requires_grad=True), L.tensor([1.0, 2.0])),
    lambda L: L.special.gammaincc(L.tensor([2.0, 3.0], requires_grad=True), L.tensor(1.5)),
    lambda L: L.igamma(L.tensor([2.0, 3.0], requires_grad=True), L.tensor([1.0, 2.0])),
    lambda L: L.tensor([2.0, 3.0], requires_grad=True).igammac(L.tensor([1.0, 2.0])),
])
def test_derivative_torch_does_not_implement_raises_on_backward(build):
    assert_same_error(lambda L: build(L).sum().backward(), torch)


@pytest.mark.parametrize("build", [
    lambda L, x: L.special.zeta(x, L.tensor([1.5, 2.0], dtype=L.float64)),
    lambda L, x: L.special.zeta(L.tensor([2.0, 3.0], dtype=L.float64), x),
    lambda L, x: L.igamma(x, L.tensor([1.5, 2.0], dtype=L.float64)),
    lambda L, x: L.special.gammaincc(L.tensor([2.0, 3.0], dtype=L.float64), x),
])
def test_forward_ad_torch_does_not_implement_raises(build):
    def run(L):
        with L.autograd.forward_ad.dual_level():
            x = L.autograd.forward_ad.make_dual(L.tensor([0.7, 1.3], dtype=L.float64),
                                                L.tensor([1.0, 1.0], dtype=L.float64))
            build(L, x)
    # the first sentence: PyTorch's second asks to file an issue, ours to add `result:`
    with pytest.raises(NotImplementedError) as theirs:
        run(torch)
    with pytest.raises(NotImplementedError) as ours:
        run(mg)
    assert str(ours.value).startswith(str(theirs.value).split("\n")[0])


# (function, points, differentiable argument positions)
GRADIENTS = [
    (lambda L, x: L.special.ndtr(x), [-9.0, -2.0, 0.0, 0.3, 4.0]),
    (lambda L, x: L.special.ndtri(x), [0.01, 0.3, 0.5, 0.97]),
    (lambda L, x: L.special.log_ndtr(x), [-30.0, -3.0, 0.0, 2.0, 10.0]),
    (lambda L, x: L.special.i0(x), [-3.0, 0.0, 0.5, 4.0]),
    (lambda L, x: L.i0(x), [-1.0, 2.0]),
    (lambda L, x: L.special.i0e(x), [-3.0, -0.5, 0.5, 4.0]),
    (lambda L, x: L.special.i1(x), [-3.0, 0.0, 1e-20, 0.5, 4.0]),
    (lambda L, x: L.special.i1e(x), [-3.0, -0.5, 0.0, 0.5, 4.0]),
    (lambda L, x: L.special.erfcx(x), [-3.0, 0.0, 0.5, 40.0]),
    (lambda L, x: L.special.entr(x), [0.1, 0.5, 3.0]),
    (lambda L, x: L.special.xlog1py(x, L.tensor([0.5, -0.5, 3.0, 1.0], dtype=L.float64)),
     [0.0, 1.5, -2.0, 0.25]),
    (lambda L, x: L.special.xlog1py(L.tensor([0.0, 1.5, 0.0, 2.0], dtype=L.float64), x),
     [-1.0, 0.5, -2.0, 3.0]),
    (lambda L, x: L.special.zeta(L.tensor([2.0, 3.5, 1.5], dtype=L.float64), x), [0.5, 1.0, 3.0]),
    (lambda L, x: L.special.gammainc(L.tensor([0.5, 2.0, 5.0], dtype=L.float64), x), [0.3, 1.0, 7.0]),
    (lambda L, x: L.igammac(L.tensor([0.5, 2.0, 5.0], dtype=L.float64), x), [0.3, 1.0, 7.0]),
    (lambda L, x: L.special.multigammaln(x, 4), [2.0, 3.5, 10.0]),
    (lambda L, x: x.mvlgamma(1), [0.5, 3.5]),
]


@pytest.mark.parametrize("case", range(len(GRADIENTS)))
def test_first_and_second_derivatives_match_torch(case):
    fn, points = GRADIENTS[case]

    def derivatives(L):
        x = L.tensor(points, dtype=L.float64, requires_grad=True)
        (first,) = L.autograd.grad(fn(L, x).sum(), x, create_graph=True)
        if not first.requires_grad:  # a gradient constant in x (xlog1py's in self)
            return first.detach(), L.zeros_like(x)
        (second,) = L.autograd.grad(first.sum(), x)
        return first.detach(), second
    (ours1, ours2), (theirs1, theirs2) = derivatives(mg), derivatives(torch)
    _close(ours1, theirs1, 1e-9, 1e-300)
    _close(ours2, theirs2, 1e-7, 1e-300)


@pytest.mark.parametrize("case", [c for c in range(len(GRADIENTS)) if c not in (12, 13, 14)])
def test_forward_derivatives_match_torch(case):
    fn, points = GRADIENTS[case]

    def jvp(L):
        fw = L.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(L.tensor(points, dtype=L.float64),
                             L.linspace(0.5, 1.5, len(points), dtype=L.float64))
            return fw.unpack_dual(fn(L, x)).tangent
    _close(jvp(mg), jvp(torch), 1e-9, 1e-300)


@pytest.mark.parametrize("build", [
    lambda L: L.tensor([0.5, -2.0]).i0_(),
    lambda L: L.tensor([0.5, 2.0], dtype=L.float64).igamma_(L.tensor([1.0, 3.0], dtype=L.float64)),
    lambda L: L.tensor([0.5, 2.0]).igammac_(L.tensor([1.0, 3.0])),
    lambda L: L.tensor([2.5, 4.0]).mvlgamma_(2),
])
def test_inplace_forms_as_torch(build):
    _close(build(mg), build(torch), 1e-6)


@pytest.mark.parametrize("build", [
    lambda L: L.tensor([1, 2]).i0_(),
    lambda L: L.igamma(L.tensor([1, 2]), L.tensor([1, 2])),
    lambda L: L.special.gammaincc(L.tensor([True]), L.tensor([True])),
    lambda L: L.mvlgamma(L.tensor([True, False]), 1),
    lambda L: L.special.multigammaln(L.tensor([2.5]), 0),
    lambda L: L.tensor([2.5]).mvlgamma_(-1),
    lambda L: L.special.xlog1py(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0, 3.0])),
])
def test_errors_as_torch(build):
    assert_same_error(build, torch)


def test_zero_d_and_empty_inputs_as_torch():
    for name in ["ndtr", "i1e", "airy_ai", "spherical_bessel_j0"]:
        for values in [0.75, []]:
            _close(getattr(mg.special, name)(mg.tensor(values)),
                   getattr(torch.special, name)(torch.tensor(values)), 1e-6)
    _close(mg.special.legendre_polynomial_p(mg.tensor([]), 3),
           torch.special.legendre_polynomial_p(torch.tensor([]), 3), 1e-6)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(BINARY) + POLYNOMIALS)
def test_forwards_on_the_gpu_backend_give_the_cpu_values(name, fake_gpu):
    """Each kernel computes in its inputs' array library (the CuPy-like test backend here,
    the real GPU on a MINIGRAD_TEST_DEVICE=cuda run): the same values as on the CPU."""
    x = [-30.0, -3.0, -0.5, 0.0, 0.5, 2.0, 150.0, float("nan")]
    second = [0.0, 1.0, 3.0, 9.0, 2.0, 1.5, 12.0, 4.0]
    args = [x] if name in UNARY else [x, second]
    fn = getattr(mg.special, name)
    on_gpu = fn(*[mg.tensor(a, dtype=mg.float64, device="cuda") for a in args])
    assert on_gpu.is_cuda
    expected = fn(*[mg.tensor(a, dtype=mg.float64) for a in args])
    np.testing.assert_allclose(on_gpu.cpu().numpy(), expected.numpy(), rtol=1e-6, atol=1e-12,
                               equal_nan=True)


HALF_REFUSED = sorted(set(UNARY) - {"ndtr", "i0", "i0e", "i1", "i1e", "entr"}) + ["zeta"] + POLYNOMIALS


@pytest.mark.parametrize("name", HALF_REFUSED)
def test_float16_refused_as_torch(name):
    def build(L):
        x = L.tensor([0.5, 2.0], dtype=L.float16)
        args = (x,) if name in UNARY else (x, L.tensor([1.5, 3.0], dtype=L.float16))
        return getattr(L.special, name)(*args)
    assert_same_error(build, torch)


@pytest.mark.parametrize("build", [
    lambda L, x: L.special.ndtr(x),
    lambda L, x: L.special.i0(x),
    lambda L, x: L.special.i0e(x),
    lambda L, x: L.special.i1(x),
    lambda L, x: L.special.i1e(x),
    lambda L, x: L.special.entr(x),
    lambda L, x: L.special.xlog1py(x, x),
    lambda L, x: L.special.gammainc(x, x),
    lambda L, x: L.mvlgamma(x + 2, 2),
    lambda L, x: L.special.chebyshev_polynomial_t(L.tensor([0.5, 0.25]), x),  # float32 result
])
def test_float16_accepted_as_torch(build):
    _close(build(mg, mg.tensor([0.5, 2.0], dtype=mg.float16)),
           build(torch, torch.tensor([0.5, 2.0], dtype=torch.float16)), 2e-3)
