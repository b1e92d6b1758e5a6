"""The torch.linalg / torch matrix functions beyond the basics (matrix_exp, lstsq, the LU
family, cond, matrix_rank, the _ex variants, Cholesky solve and inverse, householder
products, vander, tensorinv/tensorsolve, addr, addbmm, chain_matmul, cov, corrcoef):
values, dtypes, first and second derivatives, and errors against torch."""
import math
import warnings

import numpy as np
import pytest

import minigrad as mg
from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.filterwarnings(r"ignore:torch\.chain_matmul is deprecated"),
              pytest.mark.filterwarnings(r"ignore:cov\(\)"),
              pytest.mark.filterwarnings(r"ignore:torch\.cholesky is deprecated")]

RNG = np.random.default_rng(0)


def spectrum(shape, values):
    """Matrices with exactly these singular values (full rank, well conditioned)."""
    *batch, m, n = shape
    k = min(m, n)
    q1 = np.linalg.qr(RNG.standard_normal((*batch, m, m)))[0][..., :, :k]
    q2 = np.linalg.qr(RNG.standard_normal((*batch, n, n)))[0][..., :, :k]
    return np.matmul(q1 * np.asarray(values), np.swapaxes(q2, -1, -2))


def randn(*shape):
    return RNG.standard_normal(shape)


def lower_factor(*shape):
    """A lower-triangular factor with a diagonal well away from zero."""
    a = np.tril(RNG.uniform(-1, 1, shape))
    idx = np.arange(shape[-1])
    a[..., idx, idx] = RNG.uniform(1, 2, shape[:-1])
    return a


def _tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def _close(ours, theirs, rtol, atol, what):
    if ours is None and theirs is None:
        return
    if ours is None or theirs is None:  # a gradient that did not arrive is a zero one
        assert not np.any((theirs if ours is None else ours).detach().numpy()), what
        return
    assert tuple(ours.shape) == tuple(theirs.shape), what
    assert _dtype_name(ours) == _dtype_name(theirs), what
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol, err_msg=what)


def check(fn, *arrays, rtol=1e-7, atol=1e-9, second_order=True, grad_mask=None):
    """``fn(lib, *tensors)`` in minigrad and torch: the same outputs (shapes, dtypes,
    values), the same gradients of a random weighted sum of the differentiable outputs,
    and (``second_order``) the same gradients of the squared first gradients.  ``grad_mask``
    (one array or None per input) keeps only the entries an op reads."""
    def inputs(lib):
        return [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    ours_in, theirs_in = inputs(mg), inputs(torch)
    ours, theirs = _tuple(fn(mg, *ours_in)), _tuple(fn(torch, *theirs_in))
    assert len(ours) == len(theirs)
    rng = np.random.default_rng(1)
    loss_ours = loss_theirs = 0
    for i, (o, t) in enumerate(zip(ours, theirs)):
        _close(o, t, rtol, atol, f"output {i}")
        if t.requires_grad and t.numel():
            w = rng.standard_normal(tuple(t.shape))
            loss_ours = loss_ours + (o * mg.tensor(w)).sum()
            loss_theirs = loss_theirs + (t * torch.tensor(w)).sum()
    if isinstance(loss_theirs, int):
        return
    leaves = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    masks = grad_mask or [None] * len(arrays)

    def grads(lib, loss, xs, create_graph):
        gs = lib.autograd.grad(loss, [xs[i] for i in leaves], create_graph=create_graph,
                               allow_unused=True)
        return [g if masks[i] is None else g * lib.tensor(masks[i]) for i, g in zip(leaves, gs)]
    g_ours = grads(mg, loss_ours, ours_in, second_order)
    g_theirs = grads(torch, loss_theirs, theirs_in, second_order)
    grad_rtol = 1e-4 if any(a.dtype == np.float32 for a in arrays) else 1e-6
    for i, (a, b) in enumerate(zip(g_ours, g_theirs)):
        _close(a, b, grad_rtol, 1e-8, f"gradient of input {leaves[i]}")
    curvature_ours = sum((g * g).sum() for g in g_ours if g is not None)
    curvature_theirs = sum((g * g).sum() for g in g_theirs if g is not None)
    if second_order and curvature_theirs.requires_grad:  # (not for linear ops)
        gg_ours = grads(mg, curvature_ours, ours_in, False)
        gg_theirs = grads(torch, curvature_theirs, theirs_in, False)
        for i, (a, b) in enumerate(zip(gg_ours, gg_theirs)):
            _close(a, b, 1e-5, 1e-7, f"second derivative of input {leaves[i]}")


def same_linalg_error(build):
    """torch raises torch.linalg.LinAlgError; minigrad its own (a RuntimeError too), with
    the same message."""
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        build(torch)
    with pytest.raises(mg.linalg.LinAlgError) as ours:
        build(mg)
    assert isinstance(ours.value, RuntimeError)
    assert str(ours.value) == str(theirs.value)


# ------------------------------------------------------------------ matrix_exp
@pytest.mark.parametrize("call", [lambda lib, a: lib.linalg.matrix_exp(a),
                                  lambda lib, a: lib.matrix_exp(a),
                                  lambda lib, a: a.matrix_exp()])
def test_matrix_exp(call):
    check(call, randn(2, 3, 3))


def test_matrix_exp_float32_and_large_norm():
    check(lambda lib, a: lib.linalg.matrix_exp(a), randn(3, 3).astype(np.float32), rtol=1e-5,
          atol=1e-5, second_order=False)
    check(lambda lib, a: lib.linalg.matrix_exp(a), 4 * randn(4, 4), rtol=1e-9, atol=1e-6)


def test_device_generic_matrix_exp_matches_scipy():
    from minigrad.kernels.matrix_exp import matrix_exp_array, pade13_expm
    a = 3 * randn(2, 5, 5)
    np.testing.assert_allclose(pade13_expm(a), matrix_exp_array(a), rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ lstsq
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("a_shape, b_shape", [((5, 3), (5, 2)), ((5, 3), (5,)),
                                              ((2, 4, 3), (1, 4, 2)), ((3, 5), (3, 2))])
def test_lstsq_outputs_and_gradients(driver, a_shape, b_shape):
    if driver == "gels" and a_shape[-2] < a_shape[-1]:
        pytest.skip("gels of a wide matrix: not the minimum-norm solution in LAPACK")
    a = spectrum(a_shape, [2.0, 1.0, 0.5])
    check(lambda lib, A, B: lib.linalg.lstsq(A, B, driver=driver), a, randn(*b_shape))


def test_lstsq_rank_deficient_and_rcond():
    a = randn(5, 3)
    a[:, 2] = a[:, 1]
    b = randn(5, 2)
    for driver in ("gelsy", "gelsd", "gelss"):
        check(lambda lib, A, B: lib.linalg.lstsq(A, B, driver=driver)[1:], a, b)
        ours = mg.linalg.lstsq(mg.tensor(a), mg.tensor(b), driver=driver).solution
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver).solution
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-10)
    check(lambda lib, A, B: lib.linalg.lstsq(A, B, rcond=0.5, driver="gelsd")[1:],
          spectrum((5, 3), [2.0, 1.5, 0.5]), b)


@pytest.mark.parametrize("build", [
    lambda lib: lib.linalg.lstsq(lib.ones(5, 3), lib.ones(5, 2), driver="foo"),
    lambda lib: lib.linalg.lstsq(lib.ones(5, 3), lib.ones(4, 2)),
    lambda lib: lib.linalg.lstsq(lib.ones(5, 3), lib.ones(5, 2, dtype=lib.float64)),
    lambda lib: lib.linalg.lstsq(lib.ones(3), lib.ones(3)),
    lambda lib: lib.linalg.lstsq(lib.ones(5, 3), lib.ones(2, 5, 2)),
    lambda lib: lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.int64), lib.ones(3, dtype=lib.int64)),
])
def test_lstsq_errors(build):
    assert_same_error(build, torch)


# ------------------------------------------------------------------ LU
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (3, 5), (5, 3)])
def test_lu_factor_and_lu(shape):
    a = spectrum(shape, [2.0, 1.0, 0.5, 0.3][:min(shape[-2:])])
    check(lambda lib, A: lib.linalg.lu_factor_ex(A), a)
    check(lambda lib, A: lib.linalg.lu(A), a)
    if shape[-1] == shape[-2]:
        check(lambda lib, A: lib.linalg.lu_factor(A), a)


def test_lu_unpack_parts():
    a = torch.tensor(randn(5, 3))
    LU, piv = torch.linalg.lu_factor(a)
    for data, pivots in ((True, True), (True, False), (False, True)):
        ours = mg.lu_unpack(mg.tensor(LU.numpy()), mg.tensor(piv.numpy()), data, pivots)
        theirs = torch.lu_unpack(LU, piv, data, pivots)
        for o, t in zip(ours, theirs):
            _close(o, t, 0, 0, "lu_unpack")


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve(left, adjoint):
    a = spectrum((2, 3, 3), [2.0, 1.0, 0.5])
    b = randn(2, 3, 2) if left else randn(2, 2, 3)

    def solve(lib, A, B):
        LU, pivots = lib.linalg.lu_factor(A)
        return lib.linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)
    check(solve, a, b)


@pytest.mark.parametrize("build", [
    lambda lib: lib.linalg.lu_factor(lib.zeros(2, 2)),
    lambda lib: lib.linalg.lu_factor(lib.zeros(2, 2, 2)),
    lambda lib: lib.linalg.lu_factor_ex(lib.zeros(2, 2, 2), check_errors=True),
    lambda lib: lib.linalg.lu_factor(lib.ones(3)),
    lambda lib: lib.linalg.lu_factor(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.lu_factor(lib.ones(3, 3), pivot=False),
    lambda lib: lib.linalg.lu_solve(lib.eye(2), lib.ones(2, dtype=lib.int32), lib.ones(2)),
    lambda lib: lib.linalg.lu_solve(lib.eye(2), lib.ones(2, dtype=lib.int64), lib.ones(2, 1)),
    lambda lib: lib.linalg.lu_solve(lib.eye(2), lib.ones(2, dtype=lib.int32),
                                    lib.ones(2, 1, dtype=lib.float64)),
    lambda lib: lib.linalg.lu_solve(lib.ones(3, 3), lib.ones(3, dtype=lib.int32),
                                    lib.ones(2, 1)),
    lambda lib: lib.lu_unpack(lib.eye(2), lib.ones(2, dtype=lib.int64)),
])
def test_lu_errors(build):
    assert_same_error(build, torch)


def test_lu_factor_ex_reports_zero_pivots():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]])
    for a in (singular, np.zeros((2, 0, 0)), np.zeros((0, 3, 3)), np.zeros((3, 2))):
        ours = mg.linalg.lu_factor_ex(mg.tensor(a))
        theirs = torch.linalg.lu_factor_ex(torch.tensor(a))
        for o, t in zip(ours, theirs):
            _close(o, t, 0, 0, "lu_factor_ex")


# ------------------------------------------------------------------ the _ex variants
def test_ex_variants_on_good_matrices():
    a = spectrum((2, 3, 3), [2.0, 1.0, 0.5])
    spd = a @ np.swapaxes(a, -1, -2)
    check(lambda lib, A: lib.linalg.inv_ex(A), a)
    check(lambda lib, A, B: lib.linalg.solve_ex(A, B), a, randn(2, 3))
    check(lambda lib, A: lib.linalg.cholesky_ex(A, upper=True), spd, second_order=False)


def test_ex_variants_report_info():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
    for name in ("inv_ex", "cholesky_ex"):
        ours = getattr(mg.linalg, name)(mg.tensor(singular)).info
        theirs = getattr(torch.linalg, name)(torch.tensor(singular)).info
        _close(ours, theirs, 0, 0, name)
    ours = mg.linalg.solve_ex(mg.tensor(singular), mg.ones(2, 2, dtype=mg.float64))
    theirs = torch.linalg.solve_ex(torch.tensor(singular), torch.ones(2, 2, dtype=torch.float64))
    _close(ours.info, theirs.info, 0, 0, "solve_ex")
    _close(ours.result[1], theirs.result[1], 0, 0, "solve_ex of the invertible matrix")


@pytest.mark.parametrize("build", [
    lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True),
    lambda lib: lib.linalg.cholesky_ex(-lib.eye(3), check_errors=True),
    lambda lib: lib.linalg.solve_ex(lib.zeros(3, 2, 2), lib.ones(2), check_errors=True),
    # the older functions raise LinAlgError for singular inputs too
    lambda lib: lib.linalg.inv(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda lib: lib.linalg.inv(lib.zeros(3, 2, 2)),
    lambda lib: lib.linalg.solve(lib.zeros(2, 2), lib.ones(2)),
    lambda lib: lib.linalg.solve(lib.zeros(3, 2, 2), lib.ones(2)),
    lambda lib: lib.linalg.cholesky(-lib.eye(2)),
    lambda lib: lib.linalg.cholesky(lib.tensor([[4.0, 2, 0], [2, 1, 0], [0, 0, 1]]).expand(2, 3, 3)),
    lambda lib: lib.linalg.matrix_power(lib.zeros(2, 2), -1),
    lambda lib: lib.inverse(lib.zeros(2, 2)),
    lambda lib: lib.cholesky(-lib.eye(2)),
    lambda lib: lib.linalg.tensorinv(lib.zeros(4, 2, 2), ind=1),
    lambda lib: lib.linalg.tensorsolve(lib.zeros(4, 2, 2), lib.ones(4)),
    lambda lib: lib.cholesky_inverse(lib.tensor([[1.0, 0], [5, 0]]).expand(3, 2, 2)),
])
def test_singular_inputs_raise_linalg_error(build):
    same_linalg_error(build)


@pytest.mark.parametrize("build", [
    lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(3)),
    lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(3), left=False),
    lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(2, 3), left=False),
    lambda lib: lib.linalg.solve(lib.eye(2).expand(4, 2, 2), lib.ones(4, 3)),
    lambda lib: lib.linalg.inv_ex(lib.ones(2, 3)),
    lambda lib: lib.linalg.cholesky_ex(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.linalg.solve_ex(lib.ones(2, 2, dtype=lib.int64), lib.ones(2)),
])
def test_shape_and_dtype_errors(build):
    assert_same_error(build, torch)


# ------------------------------------------------------------------ cond, matrix_rank
@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1])
def test_cond(p):
    a = spectrum((2, 3, 3), [3.0, 1.0, 0.5])
    if p in (None, 2, -2, "nuc"):
        check(lambda lib, A: lib.linalg.cond(A, p), a)
    else:  # torch's backward fails there (its inverse is modified in place): values only
        check(lambda lib, A: lib.linalg.cond(A.detach(), p), a)
    for matrix in (np.zeros((2, 2)), np.ones((2, 2)), np.zeros((0, 0))):
        check(lambda lib, A: lib.linalg.cond(A.detach(), p), matrix)


@pytest.mark.parametrize("p", ["fro", math.inf, -math.inf, 1, -1])
def test_cond_gradient_where_torch_has_none(p):
    """docs/divergences.md, cond-backward: finite differences, first and second order."""
    A = mg.tensor(spectrum((2, 3, 3), [3.0, 1.0, 0.5]), requires_grad=True)
    assert mg.autograd.gradcheck(lambda A: mg.linalg.cond(A, p), (A,))
    assert mg.autograd.gradgradcheck(lambda A: mg.linalg.cond(A, p), (A,))


@pytest.mark.parametrize("build", [
    lambda lib: lib.linalg.cond(lib.ones(2, 3), p=1),
    lambda lib: lib.linalg.cond(lib.ones(2, 2), 3),
    lambda lib: lib.linalg.cond(lib.ones(3)),
])
def test_cond_errors(build):
    assert_same_error(build, torch)


def test_matrix_rank():
    a = randn(3, 4, 4)
    a[0, :, 3] = a[0, :, 2]
    sym = a + np.swapaxes(a, -1, -2)
    for kwargs in ({}, {"atol": 1.0}, {"rtol": 0.5}, {"atol": 0.5, "rtol": 0.1},
                   {"hermitian": True}):
        m = sym if kwargs.get("hermitian") else a
        check(lambda lib, A: lib.linalg.matrix_rank(A, **kwargs), m)
    check(lambda lib, A, tol: lib.linalg.matrix_rank(A, atol=tol), a, np.array([0.1, 1.0, 5.0]))
    check(lambda lib, A: lib.linalg.matrix_rank(A, tol=1.0), a)
    assert_same_error(lambda lib: lib.linalg.matrix_rank(lib.ones(3)), torch)
    assert_same_error(lambda lib: lib.linalg.matrix_rank(lib.ones(2, 2, dtype=lib.int64)), torch)


# ------------------------------------------------------------------ Cholesky solve, inverse
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    factor = lower_factor(2, 3, 3)
    if upper:
        factor = np.swapaxes(factor, -1, -2).copy()
    mask = np.triu(np.ones((3, 3))) if upper else np.tril(np.ones((3, 3)))
    # the other triangle is never read (torch's gradient formula does read it: compared
    # where it is zero)
    untidy = factor + (1 - mask) * 7.0
    check(lambda lib, B, L: lib.cholesky_solve(B.detach(), L.detach(), upper), randn(3, 2),
          untidy)
    check(lambda lib, L: lib.cholesky_inverse(L.detach(), upper), untidy)
    check(lambda lib, B, L: lib.cholesky_solve(B, L, upper), randn(3, 2), factor,
          grad_mask=[None, mask])
    check(lambda lib, B, L: B.cholesky_solve(L, upper=upper), randn(2, 3, 1), factor,
          grad_mask=[None, mask])
    check(lambda lib, L: lib.cholesky_inverse(L, upper), factor, grad_mask=[mask])
    check(lambda lib, L: L.cholesky_inverse(upper=upper), factor[0], grad_mask=[mask])


@pytest.mark.parametrize("build", [
    lambda lib: lib.cholesky_solve(lib.ones(2), lib.eye(2)),
    lambda lib: lib.cholesky_solve(lib.ones(2, 1, dtype=lib.float64), lib.eye(2)),
    lambda lib: lib.cholesky_solve(lib.ones(2, 1), lib.ones(2, 3)),
    lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(2, 2)),
    lambda lib: lib.cholesky_solve(lib.ones(2, 1, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.cholesky_inverse(lib.ones(3)),
    lambda lib: lib.cholesky_inverse(lib.ones(2, 3)),
    lambda lib: lib.cholesky_inverse(lib.ones(2, 2, dtype=lib.int64)),
])
def test_cholesky_solve_and_inverse_errors(build):
    assert_same_error(build, torch)


# ------------------------------------------------------------------ constructions
def test_householder_product_and_orgqr():
    a, tau = randn(2, 5, 3), RNG.uniform(0.2, 1.5, (2, 2))
    check(lambda lib, A, t: lib.linalg.householder_product(A, t), a, tau)
    check(lambda lib, A, t: A.orgqr(t), a[0], tau[0])


@pytest.mark.parametrize("build", [
    lambda lib: lib.linalg.householder_product(lib.ones(2, 3), lib.ones(1)),
    lambda lib: lib.linalg.householder_product(lib.ones(3, 2), lib.ones(3)),
    lambda lib: lib.linalg.householder_product(lib.ones(2, 3, 2), lib.ones(3, 1)),
    lambda lib: lib.linalg.householder_product(lib.ones(3, 2), lib.ones(2, dtype=lib.float64)),
    lambda lib: lib.linalg.householder_product(lib.ones(3), lib.ones(1)),
    lambda lib: lib.linalg.householder_product(lib.ones(3, 2, dtype=lib.int64),
                                               lib.ones(1, dtype=lib.int64)),
    lambda lib: lib.linalg.householder_product(lib.ones(3, 2), lib.ones(1, 1)),
])
def test_householder_product_errors(build):
    assert_same_error(build, torch)


def test_vander():
    check(lambda lib, x: lib.linalg.vander(x), np.array([0.0, 2.0, -1.0, 0.5]))
    check(lambda lib, x: lib.linalg.vander(x, N=5), randn(2, 3))
    check(lambda lib, x: lib.linalg.vander(x, N=3), np.array([1, 2, 3]))
    for build in (lambda lib: lib.linalg.vander(lib.ones(3, dtype=lib.bool)),
                  lambda lib: lib.linalg.vander(lib.tensor(1.0)),
                  lambda lib: lib.linalg.vander(lib.ones(2), N=0)):
        assert_same_error(build, torch)


def test_tensorinv_tensorsolve_diagonal():
    a = spectrum((6, 6), [3.0, 2.0, 1.5, 1.0, 0.7, 0.5]).reshape(6, 2, 3)
    check(lambda lib, A: lib.linalg.tensorinv(A, ind=1), a)
    check(lambda lib, A, B: lib.linalg.tensorsolve(A, B), a, randn(6))
    b = spectrum((6, 6), [3.0, 2.0, 1.5, 1.0, 0.7, 0.5]).reshape(2, 3, 6)
    check(lambda lib, A, B: lib.linalg.tensorsolve(A, B, dims=(0, 1)), b, randn(6))
    check(lambda lib, A: lib.linalg.diagonal(A, offset=1, dim1=0, dim2=2), randn(3, 2, 4))
    for build in (lambda lib: lib.linalg.tensorinv(lib.ones(4, 2, 3), ind=1),
                  lambda lib: lib.linalg.tensorinv(lib.ones(4, 2, 2), ind=0),
                  lambda lib: lib.linalg.tensorsolve(lib.zeros(4, 2, 2), lib.ones(3)),
                  lambda lib: lib.linalg.diagonal(lib.ones(3))):
        assert_same_error(build, torch)


# ------------------------------------------------------------------ products, statistics
def test_addr_addbmm_chain_matmul_ger():
    check(lambda lib, a, u, v: lib.addr(a, u, v, beta=0.5, alpha=2.0), randn(2, 3), randn(2),
          randn(3))
    check(lambda lib, a, u, v: a.addr(u, v), randn(3), randn(2), randn(3))
    check(lambda lib, a, u, v: lib.addr(a, u, v, beta=0), np.full((2, 3), np.nan), randn(2),
          randn(3))
    check(lambda lib, a, u, v: lib.addr(a, u, v, alpha=2), np.ones((2, 3), dtype=np.int64),
          np.arange(2), np.arange(3))
    check(lambda lib, a, u, v: lib.addr(a, u, v), randn(2, 3).astype(np.float32), randn(2),
          randn(3), rtol=1e-6)
    check(lambda lib, a, b1, b2: lib.addbmm(a, b1, b2, beta=2.0, alpha=0.5), randn(2, 3),
          randn(4, 2, 5), randn(4, 5, 3))
    check(lambda lib, a, b1, b2: a.addbmm(b1, b2, beta=0), randn(3), randn(4, 2, 5),
          randn(4, 5, 3))
    check(lambda lib, a, u, v: (a * 1).addr_(u, v, alpha=3.0), randn(2, 3), randn(2), randn(3))
    check(lambda lib, a, b1, b2: (a * 1).addbmm_(b1, b2, beta=0.5), randn(2, 3), randn(4, 2, 5),
          randn(4, 5, 3))
    check(lambda lib, a, b, c: lib.chain_matmul(a, b, c), randn(2, 3), randn(3, 4), randn(4, 2))
    check(lambda lib, a: lib.chain_matmul(a), randn(2, 3))
    check(lambda lib, u, v: u.ger(v), randn(2), randn(3))
    check(lambda lib, u, v: lib.ger(u, v), randn(2), randn(3))


@pytest.mark.parametrize("build", [
    lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2), lib.ones(4)),
    lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2, 1), lib.ones(3)),
    lambda lib: lib.addr(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, dtype=lib.int64),
                         lib.ones(3, dtype=lib.int64), alpha=0.5),
    lambda lib: lib.addbmm(lib.ones(2, 3), lib.ones(4, 2, 5), lib.ones(4, 6, 3)),
    lambda lib: lib.addbmm(lib.ones(2, 3), lib.ones(2, 5), lib.ones(5, 3)),
    lambda lib: lib.addbmm(lib.ones(2, 3), lib.ones(4, 2, 5), lib.ones(4, 5, 3, dtype=lib.float64)),
    lambda lib: lib.ones(3).addr_(lib.ones(2), lib.ones(3)),
    lambda lib: lib.chain_matmul(),
    lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(3)),
])
def test_product_errors(build):
    assert_same_error(build, torch)


def test_cov_and_corrcoef():
    x = randn(3, 6)
    fw, aw = np.array([1, 2, 1, 3, 1, 2]), RNG.uniform(0.1, 2.0, 6)
    check(lambda lib, x: lib.cov(x), x)
    check(lambda lib, x: x.cov(correction=0), x)
    check(lambda lib, x, f: lib.cov(x, fweights=f), x, fw)
    check(lambda lib, x, a: lib.cov(x, aweights=a), x, aw)
    check(lambda lib, x, f, a: lib.cov(x, correction=2, fweights=f, aweights=a), x, fw, aw)
    check(lambda lib, x, a: lib.cov(x, aweights=a), x.astype(np.float32), aw)
    check(lambda lib, x: lib.cov(x), randn(6))
    check(lambda lib, x: lib.cov(x), np.array([[1, 2, 4], [3, 1, 2]]), rtol=1e-6)
    check(lambda lib, x: lib.cov(x), np.ones((2, 1)))
    check(lambda lib, x: lib.corrcoef(x), x)
    check(lambda lib, x: x.corrcoef(), np.array([1.0, 2.0, 4.0]))
    check(lambda lib, x: lib.corrcoef(x), np.array([[1, 2, 3], [3, 1, 2]]), rtol=1e-6)


@pytest.mark.parametrize("build", [
    lambda lib: lib.cov(lib.ones(2, 3, 3)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(3)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.tensor([1, -1, 1])),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(2, dtype=lib.int64)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(3, 1, dtype=lib.int64)),
    lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.tensor([1.0, -1, 1])),
    lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.ones(3, dtype=lib.int64)),
    lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.ones(3, 1)),
    lambda lib: lib.cov(lib.ones(2, 3, dtype=lib.bool)),
    lambda lib: lib.corrcoef(lib.ones(2, 3, 4)),
])
def test_cov_errors(build):
    assert_same_error(build, torch)


def test_eig_says_why_it_is_missing():
    for name in ("eig", "eigvals"):
        with pytest.raises(NotImplementedError, match="complex"):
            getattr(mg.linalg, name)(mg.ones(2, 2))


# ------------------------------------------------------------------ on a device
DEVICE_CALLS = {
    "lu_solve": lambda A, B: mg.linalg.lu_solve(*mg.linalg.lu_factor(A), B),
    "lu": lambda A, B: mg.linalg.lu(A).U,
    "lstsq": lambda A, B: mg.linalg.lstsq(A, B, driver="gelsd").solution,
    "matrix_exp": lambda A, B: mg.linalg.matrix_exp(A),
    "cond": lambda A, B: mg.linalg.cond(A),
    "householder_product": lambda A, B: mg.linalg.householder_product(A, A[..., 0, :2]),
    "inv_ex": lambda A, B: mg.linalg.inv_ex(A).inverse,
    "cholesky_ex": lambda A, B: mg.linalg.cholesky_ex(A @ A.mT).L,
    "cholesky_solve": lambda A, B: mg.cholesky_solve(B, A),
    "cholesky_inverse": lambda A, B: mg.cholesky_inverse(A),
    "cov": lambda A, B: mg.cov(A[0]),
    "addbmm": lambda A, B: mg.addbmm(A[0], A, A),
}


@pytest.mark.parametrize("name", sorted(DEVICE_CALLS))
def test_runs_on_a_device_as_on_the_cpu(fake_gpu, name):
    """The kernels ask their inputs for their array library: values and gradients on the
    GPU (the fake one on CPU CI) are the CPU's."""
    a = spectrum((2, 3, 3), [2.0, 1.0, 0.5]) + 2 * np.eye(3)
    b = randn(2, 3, 2)
    results = []
    for device in ("cpu", "cuda"):
        A = mg.tensor(a, device=device, requires_grad=True)
        out = DEVICE_CALLS[name](A, mg.tensor(b, device=device))
        (out * out).sum().backward()
        assert out.device.type == device and A.grad.device.type == device
        results.append((out.detach().cpu().numpy(), A.grad.cpu().numpy()))
    for cpu, gpu in zip(*results):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-9, atol=1e-10)


def test_singular_errors_on_a_device(fake_gpu):
    with pytest.raises(mg.linalg.LinAlgError, match="diagonal element 1 is zero"):
        mg.linalg.inv(mg.zeros(2, 2, device="cuda"))
    with pytest.raises(RuntimeError, match=r"U\[1,1\] is zero"):
        mg.linalg.lu_factor(mg.zeros(2, 2, device="cuda"))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_with_a_zero_on_the_diagonal_gives_inf_and_nan(upper, left):
    """As PyTorch (BLAS's trsm does not check): no error."""
    a = np.array([[[1.0, 2, 3], [0, 0, 1], [0, 0, 2]], [[0.0, 1, 1], [0, 1, 2], [0, 0, 3]]])
    a = a if upper else np.swapaxes(a, -1, -2)
    b = randn(2, 3, 2) if left else randn(2, 2, 3)
    ours = mg.linalg.solve_triangular(mg.tensor(a), mg.tensor(b), upper=upper, left=left)
    theirs = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=upper,
                                           left=left)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
