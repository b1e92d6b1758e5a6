"""Formula helpers for the matrix exponential, the LU factorization, least squares and the
Cholesky solve and inverse (PyTorch's FunctionsManual.cpp, real case).  As in
formulas/linalg.py, everything computes through ``F = ops_for(x)``, so each backward is
itself differentiable (second order)."""
import math

from minigrad.autograd.formulas.core import ops_for, sum_to, values_of
from minigrad.autograd.formulas.forward import pinv_jvp
from minigrad.autograd.formulas.linalg import _constant, _eye, mT, pinv_backward
from minigrad.kernels.lu import permutation_matrix


# ------------------------------------------------------------------ matrix exponential
def _block_upper(F, a, b):
    """[[a, b], [0, a]] of square (batches of) matrices."""
    return F.cat([F.cat([a, b], -1), F.cat([a * 0, a], -1)], -2)


def _top_right(F, x, n):
    return F.narrow(F.narrow(x, -2, 0, n), -1, n, n)


def matrix_exp_backward(grad, A):
    """PyTorch's: the Fréchet derivative of exp at A^T applied to grad, read off the
    top-right block of exp([[A^T, G], [0, A^T]])."""
    F = ops_for(grad)
    return _top_right(F, F.linalg_matrix_exp(_block_upper(F, mT(A), grad)), A.shape[-1])


def matrix_exp_jvp(A, A_t):
    """The Fréchet derivative of exp at A in the direction A_t (the same block trick)."""
    F = ops_for(A_t)
    return _top_right(F, F.linalg_matrix_exp(_block_upper(F, A, A_t)), A.shape[-1])


# ------------------------------------------------------------------ LU
def unpack_lu(LU, pivots, pivot=True):
    """(P, L, U) of a packed LU: L (m x k) with its unit diagonal, U (k x n), and P a
    constant built from the pivots (None without pivoting)."""
    F = ops_for(LU)
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = F.tril(F.narrow(LU, -1, 0, k), -1) + _eye(LU, m, k)
    U = F.triu(F.narrow(LU, -2, 0, k))
    P = _constant(LU, permutation_matrix(values_of(pivots), m, values_of(LU).dtype)) \
        if pivot else None
    return P, L, U


def lu_factor_ex_backward(grad, LU, pivots, pivot):
    """PyTorch's: L's gradient is the packed gradient's first k columns, U's its first k
    rows (linalg_lu_backward reads only the strict lower and the upper parts)."""
    F = ops_for(grad)
    k = min(LU.shape[-2:])
    P, L, U = unpack_lu(LU, pivots, pivot)
    return linalg_lu_backward(F.narrow(grad, -1, 0, k), F.narrow(grad, -2, 0, k), P, L, U)


def linalg_lu_backward(gL, gU, P, L, U):
    """PyTorch's linalg_lu_backward for A = P L U (P None: no pivoting): the factors'
    gradients pulled back through two triangular solves; a wide (tall) A passes the extra
    block of U (L) straight through."""
    F = ops_for(gL)
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = F.tril(F.matmul(mT(L), gL), -1) + F.triu(F.matmul(gU, mT(U)))
        gA = F.linalg_solve_triangular(mT(U), gA, upper=False, left=False)
        gA = F.linalg_solve_triangular(mT(L), gA, upper=True, unitriangular=True)
    elif m < n:
        gA = F.matmul(mT(L), gL) - F.matmul(F.triu(gU), mT(U))
        gA = F.linalg_solve_triangular(mT(F.narrow(U, -1, 0, k)), F.tril(gA, -1), upper=False,
                                       left=False)
        gA = F.cat([gA + F.triu(F.narrow(gU, -1, 0, k)), F.narrow(gU, -1, k, n - k)], -1)
        gA = F.linalg_solve_triangular(mT(L), gA, upper=True, unitriangular=True)
    else:
        gA = F.matmul(gU, mT(U)) - F.matmul(mT(L), F.tril(gL, -1))
        gA = F.linalg_solve_triangular(mT(F.narrow(L, -2, 0, k)), F.triu(gA), upper=True,
                                       unitriangular=True)
        gA = F.cat([gA + F.tril(F.narrow(gL, -2, 0, k), -1), F.narrow(gL, -2, k, m - k)], -2)
        gA = F.linalg_solve_triangular(mT(U), gA, upper=False, left=False)
    return gA if P is None else F.matmul(P, gA)


# ------------------------------------------------------------------ least squares
def _lstsq_parts(grad_solution, grad_residuals, A, B, solution):
    """Both gradients of lstsq, as PyTorch: the solution's is pinv(A) B's; the residuals'
    (when computed) is that of |A X - B|^2 at the fixed solution X."""
    F = ops_for(grad_solution)
    vector = len(B.shape) == len(A.shape) - 1
    as_matrix = (lambda t: F.unsqueeze(t, -1)) if vector else (lambda t: t)
    Bm, gX = as_matrix(B), as_matrix(grad_solution)
    pinvA = F.linalg_pinv(A)
    gA = pinv_backward(F.matmul(gX, mT(Bm)), pinvA, A)
    gB = F.matmul(mT(pinvA), gX)
    if math.prod(grad_residuals.shape):
        X = as_matrix(solution)
        weighted = F.unsqueeze(grad_residuals, -2) * (F.matmul(A, X) - Bm)
        gA = gA + 2 * F.matmul(weighted, mT(X))
        gB = gB - 2 * weighted
    return gA, (F.squeeze(gB, [-1]) if vector else gB)


def lstsq_grad_A(grad_solution, grad_residuals, A, B, solution):
    gA = _lstsq_parts(grad_solution, grad_residuals, A, B, solution)[0]
    return sum_to(gA, A.shape)


def lstsq_grad_B(grad_solution, grad_residuals, A, B, solution):
    gB = _lstsq_parts(grad_solution, grad_residuals, A, B, solution)[1]
    return sum_to(gB, B.shape)


def lstsq_jvp(A, B, A_t, B_t, solution, residuals):
    """The tangents of (solution, residuals): pinv(A) B's, and 2 r . (A_t X - B_t) for the
    residual r = A X - B (its A X_t term vanishes: A^T r = 0 at the minimum)."""
    F = ops_for(A_t)
    vector = len(B.shape) == len(A.shape) - 1
    as_matrix = (lambda t: F.unsqueeze(t, -1)) if vector else (lambda t: t)
    Bm, X = as_matrix(B), as_matrix(solution)
    pinvA = F.linalg_pinv(A)
    X_t = F.matmul(pinv_jvp(A, pinvA, A_t), Bm) + F.matmul(pinvA, as_matrix(B_t))
    if math.prod(residuals.shape):
        r = F.matmul(A, X) - Bm
        residuals_t = F.sum(2 * r * (F.matmul(A_t, X) - as_matrix(B_t)), [-2])
    else:
        residuals_t = residuals * 0
    return (F.squeeze(X_t, [-1]) if vector else X_t), residuals_t


# ------------------------------------------------------------------ Cholesky solve, inverse
def cholesky_solve_grad_self(grad, self_shape, input2, upper):
    """X = (L L^T)^-1 B: B's gradient solves the same (symmetric) system."""
    F = ops_for(grad)
    return sum_to(F.cholesky_solve(grad, input2, upper), self_shape)


def cholesky_solve_grad_input2(grad, self, input2, result, upper):
    """PyTorch's: -(G X^T + X G^T) L with G = (L L^T)^-1 grad (L on the left if upper)."""
    F = ops_for(grad)
    g = F.cholesky_solve(grad, input2, upper)
    common = F.matmul(g, mT(result))
    common = common + mT(common)
    L = _read_triangle(F, input2, upper)
    out = -F.matmul(L, common) if upper else -F.matmul(common, L)
    return _read_triangle(F, sum_to(out, input2.shape), upper)


def _read_triangle(F, grad, upper):
    """The part of a factor's gradient on the triangle the forward reads."""
    return F.triu(grad) if upper else F.tril(grad)


def cholesky_inverse_backward(grad, L, upper, inverse):
    """PyTorch's: -(A^-1 (G + G^T) A^-1) L (L on the left if upper)."""
    F = ops_for(grad)
    common = F.matmul(inverse, F.matmul(grad + mT(grad), inverse))
    L = _read_triangle(F, L, upper)
    return _read_triangle(F, -F.matmul(L, common) if upper else -F.matmul(common, L), upper)
