"""torch's older linalg forms (torch.lu, triangular_solve, ormqr, vander ...), the removed
ones that raise, the low-rank SVDs, the in-place samplers cauchy_/geometric_/log_normal_,
deg2rad_/rad2deg_/polygamma_, apply_/map_/map2_ and data_ptr/storage: values, dtypes,
gradients (first and second order) and error messages against PyTorch."""
import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)
pytestmark = pytest.mark.filterwarnings("ignore:.*deprecated:UserWarning")


def _pair(array, grad=False):
    return (mg.tensor(array, requires_grad=grad), torch.tensor(array, requires_grad=grad))


def _close(m, t, rtol=1e-10, atol=1e-12):
    assert str(m.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _raises_same(fn, *args):
    """fn(mg, ...) raises the exception, with the message, that fn(torch, ...) raises."""
    with pytest.raises(Exception) as expected:
        fn(torch, *(torch.tensor(a) for a in args))
    with pytest.raises(type(expected.value)) as got:
        fn(mg, *(mg.tensor(a) for a in args))
    assert str(got.value).replace("minigrad.", "torch.") == str(expected.value)


def _triangular(n=3, upper=True):
    A = rng.standard_normal((n, n)) + 3 * np.eye(n)
    return np.triu(A) if upper else np.tril(A)


# ------------------------------------------------------------------ values and grads
SQUARE = rng.standard_normal((2, 3, 3)) + 2 * np.eye(3)
TALL = rng.standard_normal((4, 3))
B = rng.standard_normal((2, 3, 2))
H, TAU = (t.numpy() for t in torch.geqrf(torch.tensor(TALL)))   # geqrf has no gradient

DIFFERENTIABLE = {
    "lu_solve": (lambda L, A, b: L.lu_solve(b, *L.lu(A)), [SQUARE, B]),
    "method_lu_solve": (lambda L, A, b: b.lu_solve(*A.lu()), [SQUARE, B]),
    "lu_LU": (lambda L, A: L.lu(A)[0], [SQUARE]),
    "triangular_solve": (lambda L, A, b: L.triangular_solve(b, A)[0], [_triangular(), B]),
    "triangular_solve_lower_t": (
        lambda L, A, b: L.triangular_solve(b, A, upper=False, transpose=True)[0],
        [_triangular(upper=False), B]),
    "triangular_solve_unit": (
        lambda L, A, b: b.triangular_solve(A, unitriangular=True, transpose=True)[0],
        [_triangular(), B]),
    "ormqr_left": (lambda L, h, tau, c: L.ormqr(h, tau, c), [H, TAU, rng.standard_normal((4, 2))]),
    "ormqr_left_t": (lambda L, h, tau, c: L.ormqr(h, tau, c, transpose=True),
                     [H, TAU, rng.standard_normal((4, 2))]),
    "ormqr_right": (lambda L, h, tau, c: h.ormqr(tau, c, left=False),
                    [H, TAU, rng.standard_normal((2, 4))]),
    "ormqr_right_t": (lambda L, h, tau, c: L.ormqr(h, tau, c, False, True),
                      [H, TAU, rng.standard_normal((2, 4))]),
    "ormqr_batched": (lambda L, h, tau, c: L.ormqr(h, tau, c),
                      [np.stack([H, 2 * H]), np.stack([TAU, TAU]),
                       rng.standard_normal((2, 4, 3))]),
    "nuclear_norm": (lambda L, A: L.nuclear_norm(A), [SQUARE]),
    "nuclear_norm_dim": (lambda L, A: L.nuclear_norm(A, (0, 2), keepdim=True), [SQUARE]),
    "frobenius_norm": (lambda L, A: L.frobenius_norm(A, 1), [SQUARE]),
    "frobenius_norm_keep": (lambda L, A: L.frobenius_norm(A, (0, 2), True), [SQUARE]),
    "norm_except_dim0": (lambda L, A: L.norm_except_dim(A), [SQUARE]),
    "norm_except_dim1": (lambda L, A: L.norm_except_dim(A, 3, 1), [SQUARE]),
    "norm_except_dim_last": (lambda L, A: L.norm_except_dim(A, 2, 2), [SQUARE]),
    "norm_except_dim_all": (lambda L, A: L.norm_except_dim(A, 2, -1), [SQUARE]),
    "adjoint": (lambda L, A: L.adjoint(A) * 1, [SQUARE]),
    "method_adjoint_mH": (lambda L, A: A.adjoint() + A.mH + A.mT + A[0].H, [SQUARE]),
    "deg2rad_": (lambda L, x: (x * 1).deg2rad_(), [TALL]),
    "rad2deg_": (lambda L, x: L.rad2deg_(x * 1), [TALL]),
    "polygamma_": (lambda L, x: (x.abs() + 0.5).polygamma_(1), [TALL]),
}


# torch's own vander backward fails (its cumprod is saved, then written in place), so the
# gradients of vander are checked numerically only (test_second_order)
VANDER = {
    "vander": (lambda L, x: L.vander(x), [rng.standard_normal(4)]),
    "vander_N": (lambda L, x: L.vander(x, N=3, increasing=True), [rng.standard_normal(4)]),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_values_and_gradients_match_torch(name):
    fn, arrays = DIFFERENTIABLE[name]
    mins, tins = zip(*(_pair(a, grad=True) for a in arrays))
    m, t = fn(mg, *mins), fn(torch, *tins)
    _close(m, t, rtol=1e-8)
    weights = rng.standard_normal(tuple(t.shape))
    (m * mg.tensor(weights)).sum().backward()
    (t * torch.tensor(weights)).sum().backward()
    for a, b in zip(mins, tins):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", ["lu_solve", "triangular_solve_lower_t", "ormqr_left_t",
                                  "ormqr_right", "nuclear_norm_dim", "norm_except_dim1",
                                  "ormqr_batched", "polygamma_", "vander", "vander_N"])
def test_second_order(name):
    fn, arrays = {**DIFFERENTIABLE, **VANDER}[name]
    inputs = tuple(mg.tensor(a, requires_grad=True) for a in arrays)
    assert mg.autograd.gradcheck(lambda *xs: fn(mg, *xs), inputs)
    assert mg.autograd.gradgradcheck(lambda *xs: fn(mg, *xs), inputs)


@pytest.mark.parametrize("fn", [
    lambda L, A: L.lu(A, get_infos=True),
    lambda L, A: L.lu(A),
    lambda L, A: L.triangular_solve(A[..., :2], A),
    lambda L, A: A.geqrf(),
])
def test_tuples_match_torch(fn):
    m, t = fn(mg, mg.tensor(SQUARE)), fn(torch, torch.tensor(SQUARE))
    assert len(m) == len(t)
    for a, b in zip(m, t):
        _close(a, b)


def test_lu_of_a_singular_matrix_reports_it_in_infos_only():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for a, b in zip(mg.lu(mg.tensor(singular), get_infos=True),
                    torch.lu(torch.tensor(singular), get_infos=True)):
        _close(a, b)
    _close(mg.lu(mg.tensor(singular))[0], torch.lu(torch.tensor(singular))[0])


@pytest.mark.parametrize("x", [np.array([1, 2, 3]), np.array([True, False]),
                               np.array([1.5, 2.0], dtype=np.float32)])
@pytest.mark.parametrize("N", [None, 0, 1, 4])
def test_vander_dtypes_and_sizes(x, N):
    _close(mg.vander(mg.tensor(x), N=N), torch.vander(torch.tensor(x), N=N))


@pytest.mark.parametrize("fn, args", [
    (lambda L, A: L.lu(A.int()), [SQUARE]),
    (lambda L, A: L.lu(A, pivot=False), [SQUARE]),
    (lambda L, A, b: L.triangular_solve(b, A.float()), [SQUARE, B]),
    (lambda L, A, b: L.triangular_solve(b, A[..., :2]), [SQUARE, B]),
    (lambda L, x: L.vander(x.reshape(1, -1)), [TALL[0]]),
    (lambda L, x: L.vander(x, N=-1), [TALL[0]]),
    (lambda L, A: L.frobenius_norm(A), [SQUARE]),
    (lambda L, A: L.nuclear_norm(A, (0,)), [SQUARE]),
    (lambda L, A: L.nuclear_norm(A, (0, 1, 2)), [SQUARE]),
    (lambda L, A: L.norm_except_dim(A, 2, 5), [SQUARE]),
    (lambda L, A: L.norm_except_dim(A.int(), 2, 0), [SQUARE]),
    (lambda L, A, b: L.triangular_solve(b[0, :, 0], A), [SQUARE, B]),
    (lambda L, A, b: L.triangular_solve(b[:, :2], A), [SQUARE, B]),
    (lambda L, A: L.svd_lowrank(A.int(), q=2), [SQUARE]),
    (lambda L, A: L.adjoint(A[0, 0]), [SQUARE]),
    (lambda L, A: A[0, 0].mH, [SQUARE]),
    (lambda L, A: A.H, [SQUARE]),
    (lambda L, A: A[0, 0].H, [SQUARE]),
    (lambda L, A: L.pca_lowrank(A[0], q=4), [SQUARE]),
    (lambda L, h, t, c: L.ormqr(h[0], t, c), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t, c[:3]), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t, c, left=False), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t[:2], c), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t[None], c), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t, c[None]), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t.float(), c), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h, t, c.float()), [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h.expand(2, 4, 3), t.expand(1, 3), c.expand(2, 4, 3)),
     [H, TAU, TALL]),
    (lambda L, h, t, c: L.ormqr(h.int(), t.int(), c.int()), [H, TAU, TALL]),
    (lambda L, A: L.pca_lowrank(A[0], niter=-1), [SQUARE]),
])
def test_errors_match_torch(fn, args):
    _raises_same(fn, *args)


@pytest.mark.parametrize("fn", [
    lambda L, A: L.matrix_rank(A), lambda L, A: L.lstsq(A, A), lambda L, A: L.solve(A, A),
    lambda L, A: L.symeig(A, eigenvectors=True), lambda L, A: L.eig(A, True),
    lambda L, A: A.lstsq(A), lambda L, A: A.solve(A), lambda L, A: A.symeig(),
    lambda L, A: A.eig(),
])
def test_removed_functions_raise_torchs_message(fn):
    _raises_same(fn, SQUARE[0])


def test_zero_dim_adjoint_and_mH_are_the_identity():
    x = mg.tensor(2.0)
    assert mg.adjoint(x) is x and x.mH is x and x.H is x


# ------------------------------------------------------------------ low-rank SVDs
def test_svd_lowrank_recovers_a_low_rank_matrix():
    mg.manual_seed(0)
    A = rng.standard_normal((20, 3)) @ rng.standard_normal((3, 12))   # rank 3
    U, S, V = mg.svd_lowrank(mg.tensor(A), q=5)
    assert (tuple(U.shape), tuple(S.shape), tuple(V.shape)) == ((20, 5), (5,), (12, 5))
    np.testing.assert_allclose((U * S) @ V.mT, A, atol=1e-10)
    np.testing.assert_allclose(S.numpy()[:3], torch.linalg.svdvals(torch.tensor(A))[:3],
                               rtol=1e-10)
    Ut, St, Vt = mg.svd_lowrank(mg.tensor(A.T), q=5)   # the m < n branch
    np.testing.assert_allclose((Ut * St) @ Vt.mT, A.T, atol=1e-10)


def test_svd_lowrank_is_reproducible_under_a_seed_and_takes_M():
    A = mg.tensor(rng.standard_normal((2, 8, 6)))
    M = mg.tensor(rng.standard_normal((8, 6)))
    mg.manual_seed(3)
    first = mg.svd_lowrank(A, q=6, M=M)
    mg.manual_seed(3)
    second = mg.svd_lowrank(A, q=6, M=M)
    for a, b in zip(first, second):
        assert mg.equal(a, b)
    U, S, V = first   # q = n: exact for A - M
    np.testing.assert_allclose(((U * S.unsqueeze(-2)) @ V.mT).numpy(), (A - M).numpy(),
                               atol=1e-10)


def test_pca_lowrank_matches_torchs_principal_values():
    data = rng.standard_normal((30, 4)) @ np.diag([5.0, 2.0, 1.0, 0.5]) + 7.0
    mg.manual_seed(0)
    torch.manual_seed(0)
    _, S, V = mg.pca_lowrank(mg.tensor(data), q=4)
    _, St, Vt = torch.pca_lowrank(torch.tensor(data), q=4)
    np.testing.assert_allclose(S.numpy(), St.numpy(), rtol=1e-10)
    np.testing.assert_allclose(np.abs(V.numpy()), np.abs(Vt.numpy()), atol=1e-8)  # up to signs


def test_svd_lowrank_gradient_matches_the_full_svd():
    A = mg.tensor(rng.standard_normal((6, 4)), requires_grad=True)
    mg.manual_seed(1)
    mg.svd_lowrank(A, q=4)[1].sum().backward()
    At = torch.tensor(A.detach().numpy(), requires_grad=True)
    torch.linalg.svdvals(At).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), At.grad.numpy(), atol=1e-8)


# ------------------------------------------------------------------ in-place samplers
def test_samplers_follow_the_seed():
    mg.manual_seed(5)
    a = mg.empty(100).cauchy_()
    mg.manual_seed(5)
    assert mg.equal(a, mg.empty(100).cauchy_())
    g = mg.Generator().manual_seed(5)
    assert mg.equal(a, mg.empty(100).cauchy_(generator=g))


def test_cauchy_quantiles():
    mg.manual_seed(0)
    x = mg.empty(200_000, dtype=mg.float64).cauchy_(2.0, 3.0).numpy()
    # quartiles of Cauchy(median, sigma) are median -+ sigma
    np.testing.assert_allclose(np.quantile(x, [0.25, 0.5, 0.75]), [-1.0, 2.0, 5.0], atol=0.05)


def test_geometric_moments_and_dtype():
    mg.manual_seed(0)
    x = mg.empty(200_000, dtype=mg.int64).geometric_(0.25)
    assert x.dtype == mg.int64 and int(x.min()) >= 1
    values = x.numpy()
    np.testing.assert_allclose(values.mean(), 1 / 0.25, rtol=0.01)          # 1/p
    np.testing.assert_allclose(values.var(), 0.75 / 0.25 ** 2, rtol=0.03)   # (1-p)/p^2


def test_log_normal_moments():
    mg.manual_seed(0)
    x = mg.empty(200_000, dtype=mg.float64).log_normal_(0.5, 0.25).numpy()
    np.testing.assert_allclose(np.log(x).mean(), 0.5, atol=0.003)
    np.testing.assert_allclose(np.log(x).std(), 0.25, rtol=0.01)
    np.testing.assert_allclose(x.mean(), np.exp(0.5 + 0.25 ** 2 / 2), rtol=0.005)


@pytest.mark.parametrize("fn", [
    lambda L: L.empty(3).cauchy_(0, 0), lambda L: L.empty(3).cauchy_(0, -1),
    lambda L: L.empty(3, dtype=L.int64).cauchy_(),
    lambda L: L.empty(3).geometric_(0), lambda L: L.empty(3).geometric_(1.5),
    lambda L: L.empty(3, dtype=L.bool).geometric_(0.5),
    lambda L: L.empty(3).log_normal_(0, 0), lambda L: L.empty(3, dtype=L.int64).log_normal_(),
    lambda L: L.empty(3, dtype=L.int8).cauchy_(),
])
def test_sampler_errors_match_torch(fn):
    _raises_same(fn)


def test_sampler_on_a_non_leaf_gives_zero_gradient():
    for L in (mg, torch):
        w = L.ones(3, requires_grad=True)
        (w * 2).cauchy_().sum().backward()
        assert float(w.grad.abs().sum()) == 0.0


# ------------------------------------------------------------------ in-place math
@pytest.mark.parametrize("fn", [
    lambda L: L.tensor([0, 90]).deg2rad_(), lambda L: L.tensor([1, 2]).polygamma_(1),
])
def test_inplace_math_errors_match_torch(fn):
    _raises_same(fn)


@pytest.mark.parametrize("fn", [lambda x: x.rad2deg_(), lambda x: x.polygamma_(1),
                                lambda x: x.geometric_(0.5), lambda x: x.log_normal_()])
def test_leaf_that_requires_grad_is_refused(fn):
    with pytest.raises(RuntimeError) as expected:
        fn(torch.ones(2, requires_grad=True))
    with pytest.raises(RuntimeError) as got:   # minigrad's message adds how to avoid it
        fn(mg.ones(2, requires_grad=True))
    assert str(got.value).startswith(str(expected.value))


def test_polygamma_inplace_writes_and_records():
    for L in (mg, torch):
        x = L.tensor([0.5, 2.0], requires_grad=True) * 1
        y = x.polygamma_(2)
        assert y is x and x.grad_fn is not None
    _close(mg.tensor([0.5, 2.0]).polygamma_(2), torch.tensor([0.5, 2.0]).polygamma_(2))


@pytest.mark.parametrize("fn", [
    lambda L: L.tensor([1.0, 2.0]).apply_(lambda v: v * 2),
    lambda L: L.tensor([1, 2]).apply_(lambda v: v * 2.7),
    lambda L: L.tensor([[1.0, 2.0]]).map_(L.tensor([3.0]), lambda a, b: a + b),
    lambda L: L.tensor([1.0, 2.0]).map2_(L.tensor([3.0, 4.0]), L.tensor([1.0, 1.0]),
                                         lambda a, b, c: a * b - c),
    lambda L: L.tensor([True, False]).apply_(lambda v: not v),
])
def test_apply_and_map_match_torch(fn):
    m, t = fn(mg), fn(torch)
    _close(m, t)


@pytest.mark.parametrize("fn", [
    lambda L: L.ones(2, requires_grad=True).apply_(lambda v: v),
    lambda L: L.ones(2, requires_grad=True).map_(L.ones(2), lambda a, b: a),
    lambda L: L.ones(2).map_(L.ones(2, dtype=L.int64), lambda a, b: a),
    lambda L: L.ones(2).apply_(lambda v: "s"),
    lambda L: L.ones(2).map_(L.ones(2), 5),
])
def test_apply_and_map_errors_match_torch(fn):
    _raises_same(fn)


def test_apply_moves_the_version_counter():
    x = mg.ones(2)
    before = x._version
    x.apply_(lambda v: v + 1)
    assert x._version > before and x.tolist() == [2.0, 2.0]


# ------------------------------------------------------------------ memory
def test_data_ptr_and_storage_of_views_as_torch():
    for L in (mg, torch):
        a = L.arange(10.0)
        view = a[3:].view(7)
        assert view.data_ptr() - a.data_ptr() == 3 * 4
        assert a.t().data_ptr() == a.data_ptr()
        assert view.untyped_storage().data_ptr() == a.data_ptr()
        assert view.untyped_storage().nbytes() == 40 and view.untyped_storage().size() == 40
        assert view.storage().size() == 10 and view.storage().data_ptr() == a.data_ptr()
        assert a.clone().data_ptr() != a.data_ptr()


@pytest.mark.parametrize("name", sorted(VANDER))
def test_vander_values_match_torch(name):
    fn, arrays = VANDER[name]
    _close(fn(mg, mg.tensor(arrays[0])), fn(torch, torch.tensor(arrays[0])))
