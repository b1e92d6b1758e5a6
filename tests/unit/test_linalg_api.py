"""Linear algebra as a PyTorch user calls it: values and gradients against torch.

The torch comparisons skip when torch is not installed; the tests at the end check
hard-coded values and gradients and always run.
"""
import math

import numpy as np
import pytest

import minigrad as mg

# torch warns that its older spellings (torch.cholesky, torch.qr, torch.svd) are
# deprecated; minigrad offers them as torch does, and they are compared here
pytestmark = pytest.mark.filterwarnings(r"ignore:torch\.\w+ is deprecated")

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


def spectrum(shape, values, symmetric=False):
    """Matrices with exactly these singular values (eigenvalues if symmetric)."""
    *batch, m, n = shape
    k = min(m, n)
    q1 = np.linalg.qr(RNG.standard_normal((*batch, m, m)))[0][..., :, :k]
    q2 = q1 if symmetric else np.linalg.qr(RNG.standard_normal((*batch, n, n)))[0][..., :, :k]
    return np.matmul(q1 * np.asarray(values), np.swapaxes(q2, -1, -2))


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def compare_with_torch(fn, arrays, torch_fn=None, rtol=1e-6, atol=1e-8):
    """``fn(*inputs)`` in minigrad and torch (``torch_fn`` if the call differs): same
    values, and the same gradients of a random weighted sum of the float outputs."""
    torch = pytest.importorskip("torch")
    torch_fn = torch_fn or fn
    mg_in = [mg.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    mg_out = as_tuple(fn(mg, *mg_in))
    t_out = as_tuple(torch_fn(torch, *t_in))
    assert len(mg_out) == len(t_out)
    rng = np.random.default_rng(1)
    mg_loss, t_loss = 0.0, 0.0
    for o, t in zip(mg_out, t_out):
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
        if t.requires_grad:
            w = rng.standard_normal(t.shape)
            mg_loss = mg_loss + (o * mg.tensor(w)).sum()
            t_loss = t_loss + (t * torch.tensor(w)).sum()
    mg_grads = mg.autograd.grad(mg_loss, mg_in, allow_unused=True)
    t_grads = torch.autograd.grad(t_loss, t_in, allow_unused=True)
    for g, tg in zip(mg_grads, t_grads):
        if tg is None:
            assert g is None or not np.any(g.numpy())
        else:
            np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ products
PRODUCTS = [
    ("matmul", lambda m, a, b: m.matmul(a, b), [randn(2, 3, 4), randn(4, 2)]),
    ("matmul-vec-batch", lambda m, a, b: a @ b, [randn(4), randn(2, 4, 3)]),
    ("matmul-broadcast", lambda m, a, b: a.matmul(b), [randn(3, 1, 2, 4), randn(2, 4, 3)]),
    ("linalg.matmul", lambda m, a, b: m.linalg.matmul(a, b), [randn(3, 4), randn(4)]),
    ("mm", lambda m, a, b: m.mm(a, mat2=b), [randn(3, 4), randn(4, 2)]),
    ("mm-method", lambda m, a, b: a.mm(b), [randn(3, 4), randn(4, 2)]),
    ("bmm", lambda m, a, b: a.bmm(b), [randn(2, 3, 4), randn(2, 4, 2)]),
    ("mv", lambda m, a, b: m.mv(a, vec=b), [randn(3, 4), randn(4)]),
    ("dot", lambda m, a, b: a.dot(b), [randn(4), randn(4)]),
    ("vdot", lambda m, a, b: m.vdot(a, b), [randn(4), randn(4)]),
    ("inner", lambda m, a, b: m.inner(a, b), [randn(2, 3, 4), randn(2, 4)]),
    ("inner-scalar", lambda m, a, b: a.inner(b), [randn(), randn(2, 3)]),
    ("outer", lambda m, a, b: a.outer(b), [randn(3), randn(4)]),
    ("kron", lambda m, a, b: m.kron(a, b), [randn(2, 3), randn(3, 2)]),
    ("kron-ndim", lambda m, a, b: a.kron(b), [randn(3), randn(2, 2)]),
    ("cross-dim", lambda m, a, b: m.cross(a, b, dim=0), [randn(3, 2), randn(3, 2)]),
    ("cross-method", lambda m, a, b: a.cross(b, dim=-1), [randn(4, 3), randn(1, 3)]),
    ("linalg.cross", lambda m, a, b: m.linalg.cross(a, b), [randn(2, 3), randn(2, 3)]),
    ("trace", lambda m, a: a.trace(), [randn(3, 4)]),
    ("einsum-varargs", lambda m, a, b: m.einsum("bij,bjk->bik", a, b), [randn(2, 3, 4), randn(2, 4, 2)]),
    ("einsum-list", lambda m, a, b: m.einsum("ij,jk", [a, b]), [randn(3, 4), randn(4, 2)]),
    ("einsum-diagonal", lambda m, a: m.einsum("ii->i", a), [randn(3, 3)]),
    ("einsum-trace", lambda m, a: m.einsum("ii", a), [randn(3, 3)]),
    ("einsum-ellipsis", lambda m, a, b: m.einsum("...ij,...jk->...ik", a, b),
     [randn(2, 1, 3, 4), randn(3, 4, 2)]),
    ("einsum-outer-sum", lambda m, a, b, c: m.einsum("i,j,k->jk", a, b, c),
     [randn(2), randn(3), randn(4)]),
    ("tensordot-int", lambda m, a, b: m.tensordot(a, b, dims=2), [randn(2, 3, 4), randn(3, 4, 2)]),
    ("tensordot-lists", lambda m, a, b: m.tensordot(a, b, dims=([2, 1], [0, 2])),
     [randn(2, 3, 4), randn(4, 2, 3)]),
    ("tensordot-zero", lambda m, a, b: m.tensordot(a, b, 0), [randn(2, 3), randn(3)]),
    ("addmm", lambda m, s, a, b: m.addmm(s, a, b, beta=0.5, alpha=-2.0),
     [randn(2), randn(3, 4), randn(4, 2)]),
    ("addmm-method", lambda m, s, a, b: s.addmm(a, b), [randn(3, 2), randn(3, 4), randn(4, 2)]),
    ("baddbmm", lambda m, s, a, b: m.baddbmm(s, a, b, beta=2.0, alpha=0.5),
     [randn(3, 1), randn(2, 3, 4), randn(2, 4, 2)]),
]


@pytest.mark.parametrize("name,fn,arrays", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_products_match_torch(name, fn, arrays):
    compare_with_torch(fn, arrays)


# ------------------------------------------------------------------ minigrad.linalg
S3 = [2.0, 1.0, 0.5]
SPD = spectrum((3, 3), [3.0, 1.5, 0.5], symmetric=True)

LINALG = [
    ("linalg.inv", lambda m, a: m.linalg.inv(a), [spectrum((2, 3, 3), S3)]),
    ("inverse", lambda m, a: m.inverse(a), [spectrum((3, 3), S3)]),
    ("inverse-method", lambda m, a: a.inverse(), [spectrum((3, 3), S3)]),
    ("linalg.det", lambda m, a: m.linalg.det(a), [spectrum((2, 3, 3), S3)]),
    ("det-method", lambda m, a: a.det(), [spectrum((3, 3), S3)]),
    ("linalg.slogdet", lambda m, a: m.linalg.slogdet(a), [spectrum((2, 3, 3), S3)]),
    ("slogdet", lambda m, a: m.slogdet(a).logabsdet, [spectrum((3, 3), S3)]),
    ("logdet", lambda m, a: a.logdet(), [SPD]),
    ("linalg.solve", lambda m, a, b: m.linalg.solve(a, b), [spectrum((3, 3), S3), randn(3, 2)]),
    ("linalg.solve-vector", lambda m, a, b: m.linalg.solve(a, b), [spectrum((2, 3, 3), S3), randn(2, 3)]),
    ("linalg.solve-broadcast", lambda m, a, b: m.linalg.solve(a, B=b),
     [spectrum((2, 3, 3), S3), randn(3, 1)]),
    ("linalg.solve-right", lambda m, a, b: m.linalg.solve(a, b, left=False),
     [spectrum((3, 3), S3), randn(2, 3)]),
    ("linalg.cholesky", lambda m, a: m.linalg.cholesky(a), [SPD]),
    ("linalg.cholesky-upper", lambda m, a: m.linalg.cholesky(a, upper=True), [SPD]),
    ("cholesky-method", lambda m, a: a.cholesky(), [SPD]),
    ("linalg.eigh", lambda m, a: tuple(o if i == 0 else o * o for i, o in enumerate(m.linalg.eigh(a))),
     [spectrum((2, 3, 3), [-1.0, 0.5, 2.0], symmetric=True)]),
    ("linalg.eigh-U", lambda m, a: m.linalg.eigh(a, UPLO="U").eigenvalues,
     [spectrum((3, 3), [-1.0, 0.5, 2.0], symmetric=True)]),
    ("linalg.eigvalsh", lambda m, a: m.linalg.eigvalsh(a), [spectrum((3, 3), [-1.0, 0.5, 2.0], True)]),
    ("linalg.qr", lambda m, a: m.linalg.qr(a), [spectrum((4, 3), S3)]),
    ("linalg.qr-wide", lambda m, a: m.linalg.qr(a), [spectrum((2, 3), [2.0, 1.0])]),
    ("linalg.qr-complete", lambda m, a: m.linalg.qr(a, mode="complete"), [spectrum((3, 3), S3)]),
    ("linalg.svd", lambda m, a: tuple(o * o if i != 1 else o
                                      for i, o in enumerate(m.linalg.svd(a, full_matrices=False))),
     [spectrum((2, 4, 3), [3.0, 2.0, 1.0])]),
    ("linalg.svd-wide", lambda m, a: tuple(o * o if i != 1 else o
                                           for i, o in enumerate(m.linalg.svd(a, full_matrices=False))),
     [spectrum((3, 4), [3.0, 2.0, 1.0])]),
    ("linalg.svd-full-square", lambda m, a: m.linalg.svd(a).S, [spectrum((3, 3), [3.0, 2.0, 1.0])]),
    ("linalg.svdvals", lambda m, a: m.linalg.svdvals(a), [spectrum((4, 3), [3.0, 2.0, 1.0])]),
    ("linalg.pinv", lambda m, a: m.linalg.pinv(a), [spectrum((4, 3), S3)]),
    ("linalg.pinv-wide", lambda m, a: m.linalg.pinv(a), [spectrum((2, 3, 4), S3)]),
    ("pinverse", lambda m, a: a.pinverse(), [spectrum((3, 4), S3)]),
    ("linalg.pinv-hermitian", lambda m, a: m.linalg.pinv(a, hermitian=True),
     [spectrum((3, 3), [2.0, -1.0, 0.5], symmetric=True)]),
    ("linalg.pinv-rtol", lambda m, a: m.linalg.pinv(a, rtol=0.3), [spectrum((3, 3), S3)]),
    ("svd", lambda m, a: tuple(o * o if i != 1 else o for i, o in enumerate(m.svd(a))),
     [spectrum((4, 3), [3.0, 2.0, 1.0])]),
    ("svd-method-full", lambda m, a: a.svd(some=False).S, [spectrum((3, 4), [3.0, 2.0, 1.0])]),
    ("svd-no-uv", lambda m, a: m.svd(a, compute_uv=False), [spectrum((2, 4, 3), [3.0, 2.0, 1.0])]),
    ("qr", lambda m, a: m.qr(a), [spectrum((4, 3), S3)]),
    ("qr-method", lambda m, a: a.qr(some=False), [spectrum((3, 3), S3)]),
    ("linalg.solve_triangular", lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
     [RNG.uniform(0.5, 1.5, (3, 3)), randn(3, 2)]),
    ("linalg.solve_triangular-right-unit",
     lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
     [RNG.uniform(0.5, 1.5, (2, 3, 3)), randn(2, 3)]),
    ("linalg.vecdot", lambda m, x, y: m.linalg.vecdot(x, y, dim=0), [randn(3, 4), randn(3, 1)]),
    ("linalg.multi_dot", lambda m, a, b, c: m.linalg.multi_dot([a, b, c]),
     [randn(3), randn(3, 4), randn(4, 2)]),
    ("linalg.matrix_power", lambda m, a: m.linalg.matrix_power(a, 3), [randn(2, 3, 3)]),
    ("linalg.matrix_power-neg", lambda m, a: m.linalg.matrix_power(a, -2), [spectrum((3, 3), S3)]),
    ("matrix_power-method", lambda m, a: a.matrix_power(2), [randn(3, 3)]),
]


@pytest.mark.parametrize("name,fn,arrays", LINALG, ids=[p[0] for p in LINALG])
def test_linalg_matches_torch(name, fn, arrays):
    compare_with_torch(fn, arrays)


NORMS = [
    ("vector_norm", lambda m, x: m.linalg.vector_norm(x), [randn(3, 4)]),
    ("vector_norm-dim", lambda m, x: m.linalg.vector_norm(x, ord=3, dim=(0, 2), keepdim=True),
     [randn(2, 3, 4)]),
    ("vector_norm-1", lambda m, x: m.linalg.vector_norm(x, 1, dim=1), [randn(3, 4)]),
    ("vector_norm-inf", lambda m, x: m.linalg.vector_norm(x, ord=math.inf, dim=-1), [randn(3, 4)]),
    ("vector_norm--inf", lambda m, x: m.linalg.vector_norm(x, ord=-math.inf), [randn(3, 4)]),
    ("vector_norm-0", lambda m, x: m.linalg.vector_norm(x, ord=0), [randn(3, 4)]),
    ("vector_norm-half", lambda m, x: m.linalg.vector_norm(x, ord=0.5), [randn(3, 4)]),
    ("matrix_norm-fro", lambda m, x: m.linalg.matrix_norm(x), [randn(2, 3, 4)]),
    ("matrix_norm-nuc", lambda m, x: m.linalg.matrix_norm(x, ord="nuc"), [spectrum((2, 3, 4), S3)]),
    ("matrix_norm-2", lambda m, x: m.linalg.matrix_norm(x, 2, dim=(0, 1)), [spectrum((3, 4), S3)]),
    ("matrix_norm--2", lambda m, x: m.linalg.matrix_norm(x, ord=-2, keepdim=True), [spectrum((3, 3), S3)]),
    ("matrix_norm-1", lambda m, x: m.linalg.matrix_norm(x, ord=1), [randn(3, 4)]),
    ("matrix_norm-inf", lambda m, x: m.linalg.matrix_norm(x, ord=math.inf, dim=(2, 0)), [randn(2, 3, 4)]),
    ("matrix_norm--1", lambda m, x: m.linalg.matrix_norm(x, ord=-1), [randn(3, 4)]),
    ("norm", lambda m, x: m.linalg.norm(x), [randn(2, 3, 4)]),
    ("norm-fro-dim", lambda m, x: m.linalg.norm(x, ord="fro", dim=(0, 1)), [randn(3, 4, 2)]),
    ("norm-nuc", lambda m, x: m.linalg.norm(x, "nuc"), [spectrum((3, 4), S3)]),
    ("norm-vector-ord", lambda m, x: m.linalg.norm(x, ord=3, dim=1, keepdim=True), [randn(3, 4)]),
    ("norm-2d-ord", lambda m, x: m.linalg.norm(x, ord=2), [spectrum((3, 4), S3)]),
    ("norm-1d-inf", lambda m, x: m.linalg.norm(x, ord=-math.inf), [randn(5)]),
    ("torch.norm", lambda m, x: m.norm(x), [randn(2, 3, 4)]),
    ("Tensor.norm", lambda m, x: x.norm(dim=1), [randn(2, 3, 4)]),
    ("Tensor.norm-p", lambda m, x: x.norm(p=1, dim=(0, 2), keepdim=True), [randn(2, 3, 4)]),
    ("Tensor.norm-fro", lambda m, x: x.norm("fro", dim=(1, 2)), [randn(2, 3, 4)]),
    ("torch.norm-nuc", lambda m, x: m.norm(x, p="nuc"), [spectrum((3, 4), S3)]),
    ("torch.norm-3", lambda m, x: m.norm(x, 3), [randn(3, 4)]),
    ("vector_norm-zeros", lambda m, x: m.linalg.vector_norm(x, ord=0.5, dim=1),
     [np.array([[0.0, 1.0, -2.0], [0.0, 0.0, 0.0]])]),
    ("vector_norm-zeros-3", lambda m, x: m.linalg.vector_norm(x, ord=3, dim=1),
     [np.array([[0.0, 1.0, -2.0], [0.0, 0.0, 0.0]])]),
    ("matrix_norm-fro-zero", lambda m, x: m.linalg.matrix_norm(x), [np.zeros((2, 2, 3))]),
]


@pytest.mark.parametrize("name,fn,arrays", NORMS, ids=[p[0] for p in NORMS])
def test_norms_match_torch(name, fn, arrays):
    compare_with_torch(fn, arrays)


def test_second_order_matches_torch():
    """Hessian-vector products through matrix functions agree with torch's."""
    torch = pytest.importorskip("torch")
    a = spectrum((3, 3), S3)
    v = randn(3, 3)

    def hvp(lib, fn, a):
        x = lib.tensor(a, requires_grad=True)
        (g,) = lib.autograd.grad(fn(lib, x), [x], create_graph=True)
        (h,) = lib.autograd.grad((g * lib.tensor(v)).sum(), [x])
        return h.detach().numpy()

    cases = [
        lambda m, x: m.linalg.det(x),
        lambda m, x: m.linalg.inv(x).sum(),
        lambda m, x: m.linalg.matrix_norm(x, ord="nuc"),
        lambda m, x: m.linalg.svdvals(x).pow(3).sum(),
        lambda m, x: m.linalg.pinv(x).pow(2).sum(),
        lambda m, x: m.linalg.qr(x).R.pow(2).sum() + m.linalg.qr(x).Q.sum(),
        lambda m, x: m.linalg.solve(x, m.tensor(v)).pow(2).sum(),
        lambda m, x: m.linalg.slogdet(x).logabsdet,
        lambda m, x: m.linalg.matrix_norm(x, ord=2),
        lambda m, x: m.linalg.svd(x, full_matrices=False).U.pow(2).sum(),
        lambda m, x: m.linalg.matrix_power(x, -3).sum(),
        lambda m, x: m.linalg.solve_triangular(x, m.tensor(v), upper=True).pow(2).sum(),
        lambda m, x: m.linalg.multi_dot([x, x, m.tensor(v)]).pow(2).sum(),
    ]
    for fn in cases:
        np.testing.assert_allclose(hvp(mg, fn, a), hvp(torch, fn, a), rtol=1e-5, atol=1e-7)
    symmetric_cases = [
        lambda m, x: m.linalg.eigh(x).eigenvalues.pow(3).sum(),
        lambda m, x: m.linalg.eigh(x).eigenvectors.pow(4).sum(),
        lambda m, x: m.linalg.cholesky(x).pow(2).sum(),
    ]
    for fn in symmetric_cases:
        np.testing.assert_allclose(hvp(mg, fn, SPD), hvp(torch, fn, SPD), rtol=1e-5, atol=1e-7)


def test_float32_stays_float32():
    a = mg.tensor(spectrum((3, 3), S3).astype(np.float32), requires_grad=True)
    for out in (mg.linalg.inv(a), mg.linalg.det(a), mg.linalg.svdvals(a), mg.linalg.norm(a),
                mg.einsum("ij,jk", a, a), mg.linalg.matrix_norm(a, ord="nuc")):
        assert out.dtype == np.float32
        (g,) = mg.autograd.grad(out.sum(), [a])
        assert g.dtype == np.float32


# ------------------------------------------------------------------ without torch
def test_det_and_its_gradient_hard_coded():
    a = mg.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    d = mg.linalg.det(a)
    assert d.item() == pytest.approx(5.0)
    d.backward()
    # d det / dA = adjugate^T = [[3, -1], [-1, 2]]
    np.testing.assert_allclose(a.grad.numpy(), [[3.0, -1.0], [-1.0, 2.0]])


def test_det_of_a_singular_matrix_has_the_cofactor_gradient():
    a = mg.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    d = mg.linalg.det(a)
    assert d.item() == pytest.approx(0.0)
    d.backward()
    np.testing.assert_allclose(a.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    # d det(diag(1, 2, x)) / dx = 2 at x = 0 (torch 2.13 gives 0 for this entry)
    b = mg.tensor(np.diag([1.0, 2.0, 0.0]), requires_grad=True)
    mg.linalg.det(b).backward()
    np.testing.assert_allclose(b.grad.numpy(), np.diag([0.0, 0.0, 2.0]), atol=1e-12)


def cofactors(a):
    """The cofactor matrix adj(A)^T of an integer-valued 3x3 matrix, computed exactly:
    each entry is a 2x2 determinant of small integers, so no LAPACK rounding enters."""
    c = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            minor = np.delete(np.delete(a, i, axis=0), j, axis=1)
            c[i, j] = (-1) ** (i + j) * (minor[0, 0] * minor[1, 1] - minor[0, 1] * minor[1, 0])
    return c


# d det(A) / dA = adj(A)^T, defined and usually nonzero where det(A) = 0; comparing with
# torch here would compare two LAPACK roundings of a determinant that is pure noise
@pytest.mark.parametrize("matrix", [
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],    # rank 2: a row is twice another
    [[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [1.0, 1.0, -1.0]],  # rank 2: row 3 = row 1 + row 2
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]],    # rank 1: the adjugate is zero
])
def test_det_of_a_singular_matrix_has_the_adjugate_gradient(matrix):
    values = np.array(matrix)
    a = mg.tensor(values, requires_grad=True)
    d = mg.linalg.det(a)
    assert abs(d.item()) < 1e-12  # exactly 0, up to rounding
    weight = 1.5
    (d * weight).backward()
    np.testing.assert_allclose(a.grad.numpy(), weight * cofactors(values), atol=1e-10)


def test_inv_solve_and_slogdet_hard_coded():
    a = mg.tensor([[4.0, 0.0], [0.0, 0.5]], requires_grad=True)
    np.testing.assert_allclose(mg.inverse(a).detach().numpy(), [[0.25, 0.0], [0.0, 2.0]])
    x = mg.linalg.solve(a, mg.tensor([1.0, 1.0]))
    np.testing.assert_allclose(x.detach().numpy(), [0.25, 2.0])
    sign, logabsdet = mg.linalg.slogdet(a)
    assert sign.item() == 1.0 and logabsdet.item() == pytest.approx(math.log(2.0))
    assert not sign.requires_grad and logabsdet.requires_grad
    logabsdet.backward()
    np.testing.assert_allclose(a.grad.numpy(), [[0.25, 0.0], [0.0, 2.0]])   # A^{-T}


def test_norms_hard_coded():
    x = mg.tensor([[3.0, -4.0], [0.0, 0.0]], requires_grad=True)
    assert mg.linalg.norm(x).item() == pytest.approx(5.0)
    assert mg.linalg.norm(x, ord="fro", dim=(0, 1)).item() == pytest.approx(5.0)
    np.testing.assert_allclose(mg.linalg.vector_norm(x, ord=1, dim=1).detach().numpy(), [7.0, 0.0])
    assert mg.linalg.matrix_norm(x, ord=math.inf).item() == pytest.approx(7.0)
    assert mg.linalg.matrix_norm(x, ord=1).item() == pytest.approx(4.0)
    mg.linalg.vector_norm(x, dim=1).sum().backward()
    # x / |x| per row; the zero row gets the zero subgradient, not nan
    np.testing.assert_allclose(x.grad.numpy(), [[0.6, -0.8], [0.0, 0.0]])


def test_eigh_and_svd_hard_coded():
    a = mg.tensor([[2.0, 0.0], [0.0, -1.0]], requires_grad=True)
    values, vectors = mg.linalg.eigh(a)
    np.testing.assert_allclose(values.detach().numpy(), [-1.0, 2.0])
    values[1].backward()
    np.testing.assert_allclose(a.grad.numpy(), [[1.0, 0.0], [0.0, 0.0]])
    b = mg.tensor([[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]], requires_grad=True)
    u, s, vh = mg.linalg.svd(b)
    assert u.shape == (3, 3) and vh.shape == (2, 2)
    np.testing.assert_allclose(s.detach().numpy(), [3.0, 2.0])
    mg.linalg.svdvals(b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])


def test_products_hard_coded():
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = mg.tensor([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(mg.einsum("ij,jk->ik", a, b).detach().numpy(), [[2.0, 1.0], [4.0, 3.0]])
    np.testing.assert_allclose(mg.tensordot(a, b, dims=([0], [1])).detach().numpy(), [[3.0, 1.0], [4.0, 2.0]])
    np.testing.assert_allclose(mg.kron(a, mg.tensor([1.0, 10.0])).detach().numpy(),
                               [[1.0, 10.0, 2.0, 20.0], [3.0, 30.0, 4.0, 40.0]])
    np.testing.assert_allclose(mg.addmm(mg.tensor(1.0), a, b, beta=2.0, alpha=0.5).detach().numpy(),
                               [[3.0, 2.5], [4.0, 3.5]])
    z = mg.cross(mg.tensor([1.0, 0.0, 0.0]), mg.tensor([0.0, 1.0, 0.0]))
    np.testing.assert_allclose(z.numpy(), [0.0, 0.0, 1.0])
    t = a.trace()
    assert t.item() == 5.0
    t.backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(2))


def test_errors_say_what_to_do():
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        mg.mm(mg.randn(2, 3), mg.randn(2, 3))
    with pytest.raises(RuntimeError, match="use matmul"):
        mg.mm(mg.randn(2, 3, 4), mg.randn(4, 2))
    with pytest.raises(RuntimeError, match="singular"):
        mg.linalg.inv(mg.zeros(2, 2))
    with pytest.raises(RuntimeError, match="not positive-definite"):
        mg.linalg.cholesky(mg.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(RuntimeError, match="dims"):
        mg.tensordot(mg.randn(2, 3), mg.randn(3, 2), dims="x")
    with pytest.raises(RuntimeError, match="mode='r'"):
        q, r = mg.linalg.qr(mg.randn(3, 3, requires_grad=True), mode="r")
        r.sum().backward()
    with pytest.raises(RuntimeError, match="Order"):
        mg.linalg.matrix_norm(mg.randn(3, 3), ord=3)
    with pytest.raises(RuntimeError, match="einsum"):
        mg.einsum("ij,jk->ik", mg.randn(2, 3))
    with pytest.raises(ValueError, match="valid range"):   # the sublist format's subscripts
        mg.einsum(mg.randn(2, 3), [0, 52])
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        mg.cross(mg.randn(2, 3), mg.randn(3))
    with pytest.raises(RuntimeError, match="square"):
        mg.linalg.det(mg.randn(2, 3))
