"""The torch.linalg functions composed of differentiable ops: the LU family built on
``lu_factor_ex`` (derivatives.yaml), cond, matrix_rank, vander, householder_product,
tensorinv, tensorsolve, diagonal, and the ``_ex`` variants that report failures in an
``info`` tensor.  PyTorch composes them the same way (its LinearAlgebra.cpp,
BatchLinearAlgebra.cpp), so the ops' gradients are theirs.
"""
import math
from collections import namedtuple

import numpy as np

from minigrad._array import namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.kernels.core import scalar_type_name
from minigrad.kernels.lu import (LinAlgError, check_lu_info, check_lu_pivots, cholesky_info,
                                 lu_factor_array, not_positive_definite_error,
                                 permutation_matrix, singular_inverse_error,
                                 singular_solve_error)

__all__ = ["LinAlgError", "lu_factor", "lu", "lu_unpack", "lu_solve", "cond", "matrix_rank",
           "vander", "householder_product", "tensorinv", "tensorsolve", "diagonal",
           "solve_ex", "inv_ex", "cholesky_ex", "eig", "eigvals", "geqrf"]

_LuFactor = namedtuple("linalg_lu_factor", ("LU", "pivots"))
_Lu = namedtuple("linalg_lu", ("P", "L", "U"))
_LuUnpack = namedtuple("lu_unpack", ("P", "L", "U"))
_SolveEx = namedtuple("linalg_solve_ex", ("result", "info"))
_InvEx = namedtuple("linalg_inv_ex", ("inverse", "info"))
_CholeskyEx = namedtuple("linalg_cholesky_ex", ("L", "info"))
_Geqrf = namedtuple("geqrf", ("a", "tau"))


def _require(ok, message):
    if not ok:
        raise RuntimeError(message)


def _check_square_floating(A, name):
    """torch's checks of a linalg function that takes batches of square matrices."""
    _require(A.dim() >= 2, f"{name}: The input tensor A must have at least 2 dimensions.")
    _require(A.shape[-1] == A.shape[-2], f"{name}: A must be batches of square matrices, but "
                                         f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    _require(A.dtype.is_floating_point, f"{name}: Expected a floating point or complex tensor "
                                        f"as input. Got {scalar_type_name(A._data.dtype)}")


def _constant(array):
    return _wrap(array)


# ------------------------------------------------------------------ LU
def lu_factor(A, *, pivot=True):
    """(LU, pivots) of A = P L U; a zero pivot raises (use lu_factor_ex to get ``info``)."""
    LU, pivots, info = _F.linalg_lu_factor_ex(A, pivot=pivot)
    check_lu_info(info._data, "torch.linalg.lu_factor")
    return _LuFactor(LU, pivots)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from a packed LU and its pivots; L and U are differentiable views of the
    packed matrix's two triangles (empty where not unpacked, as torch)."""
    check_lu_pivots(LU_data._data, LU_pivots._data, "torch.lu_unpack")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = _constant(namespace_of(LU_data._data).zeros((0,), dtype=LU_data._data.dtype))
    L = U = P = empty
    if unpack_data:
        eye = _constant(namespace_of(LU_data._data).eye(m, k, dtype=LU_data._data.dtype))
        L = _F.tril(_F.narrow(LU_data, -1, 0, k), -1) + eye
        U = _F.triu(_F.narrow(LU_data, -2, 0, k))
    if unpack_pivots:
        P = _constant(permutation_matrix(LU_pivots._data, m, LU_data._data.dtype))
    return _LuUnpack(P, L, U)


def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U (P empty without pivoting)."""
    if not pivot and namespace_of(A._data) is np:
        raise RuntimeError("linalg.lu: LU without pivoting is not implemented on the CPU")
    LU, pivots, _ = _F.linalg_lu_factor_ex(A, pivot=pivot)
    P, L, U = lu_unpack(LU, pivots, unpack_pivots=pivot)
    return _Lu(P, L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (``left``) or X A = B, or with A^T (``adjoint``), for A = P L U given
    by lu_factor.  The triangular solves read L's strict lower and U's upper part of LU."""
    _require(B.dim() >= 2, "linalg.lu_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    _require(pivots._data.dtype == np.int32, "linalg.lu_solve: pivots should be a Tensor of "
                                           "scalar type torch.int32")
    _require(LU.dim() >= 2 and LU.shape[-1] == LU.shape[-2],
             f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
             f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    _require(LU.dtype == B.dtype, f"linalg.lu_solve: Expected LU and B to have the same dtype, "
                                  f"but found LU of type {scalar_type_name(LU._data.dtype)} and "
                                  f"B of type {scalar_type_name(B._data.dtype)} instead")
    n = LU.shape[-1]
    rows, cols = B.shape[-2:]
    _require((rows if left else cols) == n,
             f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
             f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})")
    P = _constant(permutation_matrix(pivots._data, n, LU._data.dtype))

    def lower(X, left, transposed=False):  # solves with L (unit diagonal) or L^T
        A = LU.mT if transposed else LU
        return _F.linalg_solve_triangular(A, X, upper=transposed, left=left, unitriangular=True)

    def upper(X, left, transposed=False):  # solves with U or U^T
        A = LU.mT if transposed else LU
        return _F.linalg_solve_triangular(A, X, upper=not transposed, left=left)

    if left and not adjoint:      # A = P L U:       X = U^-1 L^-1 P^T B
        return upper(lower(_F.matmul(P.mT, B), True), True)
    if left:                      # A^T = U^T L^T P^T: X = P L^-T U^-T B
        return _F.matmul(P, lower(upper(B, True, True), True, True))
    if not adjoint:               # X P L U = B:     X = B U^-1 L^-1 P^T
        return _F.matmul(lower(upper(B, False), False), P.mT)
    return upper(lower(_F.matmul(B, P), False, True), False, True)   # X U^T L^T P^T = B


# ------------------------------------------------------------------ the _ex variants
def _with_failures(result, info):
    """NaN in the matrices whose factorization failed (LAPACK leaves them unspecified)."""
    if not bool((info._data != 0).any()):
        return result
    failed = _constant(info._data != 0)
    while failed.dim() < result.dim():
        failed = failed.unsqueeze(-1)
    return _F.where(failed, float("nan"), result)


def _invertible_stand_in(A, info):
    """A with its singular matrices replaced by the identity, so the op can run."""
    if not bool((info._data != 0).any()):
        return A
    failed = _constant((info._data != 0)[..., None, None])
    eye = _constant(namespace_of(A._data).eye(A.shape[-1], dtype=A._data.dtype))
    return _F.where(failed, eye, A)


def _lu_info(A):
    return _constant(lu_factor_array(A._data)[2])


def inv_ex(A, *, check_errors=False):
    """(inverse, info): info is LU's first zero pivot (1-based; 0 if invertible); a singular
    matrix's inverse is NaN here (unspecified in torch) unless ``check_errors`` raises."""
    _check_square_floating(A, "linalg.inv")
    info = _lu_info(A)
    if check_errors and bool((info._data != 0).any()):
        raise singular_inverse_error("linalg.inv_ex", info._data)
    inverse = _F.linalg_inv(_invertible_stand_in(A, info))
    return _InvEx(_with_failures(inverse, info), info)


def solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info) of linalg.solve, as inv_ex reports and fills failures."""
    _check_square_floating(A, "linalg.solve")
    info = _lu_info(A)
    if check_errors and bool((info._data != 0).any()):
        raise singular_solve_error("torch.linalg.solve_ex", info._data)
    result = _F.linalg_solve(_invertible_stand_in(A, info), B, left=left)
    return _SolveEx(_with_failures(result, info), info)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info): info is the order of the first leading minor that is not positive-definite
    (0 if none); that matrix's factor is NaN here (unspecified in torch)."""
    _check_square_floating(A, "linalg.cholesky")
    info = _constant(cholesky_info(A._data))
    if check_errors and bool((info._data != 0).any()):
        raise not_positive_definite_error("linalg.cholesky_ex", info._data)
    L = _F.linalg_cholesky(_invertible_stand_in(A, info), upper=upper)
    return _CholeskyEx(_with_failures(L, info), info)


# ------------------------------------------------------------------ cond, rank
_COND_ORDS = (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


def cond(A, p=None):
    """The condition number of A in norm ``p``: from the singular values for None and +-2
    (and 'nuc'), else norm(A) * norm(A^-1), infinite for a singular A."""
    _require(A.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.")
    _require(p in _COND_ORDS, f"linalg.cond got an invalid norm type: {p}")
    if p not in (None, 2, -2):
        _require(A.shape[-1] == A.shape[-2],
                 f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                 f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.numel() == 0:  # torch: 0 for empty matrices
        return _constant(namespace_of(A._data).zeros(tuple(A.shape[:-2]), dtype=A._data.dtype))
    if p in (None, 2, -2, "nuc"):
        S = _F.linalg_svdvals(A)
        if p == "nuc":
            return S.sum(-1) * S.reciprocal().sum(-1)
        largest, smallest = S.select(-1, 0), S.select(-1, -1)
        return smallest / largest if p == -2 else largest / smallest
    inverse, info = inv_ex(A)
    inverse = _F.where(_constant((info._data != 0)[..., None, None]), math.inf, inverse)
    result = _F.linalg_matrix_norm(A, p) * _F.linalg_matrix_norm(inverse, p)
    return _F.nan_to_num(result, math.inf, math.inf, -math.inf)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """The number of singular values (|eigenvalues| if hermitian) above
    max(atol, rtol * the largest); rtol defaults to eps * max(m, n) unless atol > 0.
    ``tol`` is torch's older name for atol."""
    _require(A.dim() >= 2, "torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    _require(A._data.dtype.kind == "f",
             "This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0 if rtol is None else rtol
    xp = namespace_of(A._data)
    a = A._data
    s = xp.abs(xp.linalg.eigvalsh(a)) if hermitian else xp.linalg.svd(a, compute_uv=False)
    as_array = lambda t: t._data if isinstance(t, Tensor) else t  # noqa: E731
    atol_ = 0.0 if atol is None else as_array(atol)
    if rtol is None:
        positive = atol is not None and bool(xp.all(xp.asarray(atol_) > 0))
        rtol_ = 0.0 if positive else np.finfo(a.dtype).eps * max(a.shape[-2:])
    else:
        rtol_ = as_array(rtol)
    largest = s.max(axis=-1) if s.shape[-1] else xp.zeros(s.shape[:-1], dtype=s.dtype)
    cutoff = xp.maximum(atol_, rtol_ * largest)
    return _constant(xp.sum(s > xp.asarray(cutoff)[..., None], axis=-1).astype(xp.int64))


# ------------------------------------------------------------------ constructions
def vander(x, *, N=None):
    """The Vandermonde matrix [1, x, x^2, ...] (powers by cumulative products, as torch)."""
    kind = x._data.dtype.kind
    _require(kind in "iuc" or x._data.dtype in (np.float32, np.float64),
             f"linalg.vander supports floating point, complex, and integer tensors, but got "
             f"{scalar_type_name(x._data.dtype)}")
    x = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x.shape[-1] if N is None else N
    _require(n > 1, "N must be greater than 1.")
    powers = _F.cumprod(x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)), -1)
    ones = _constant(namespace_of(x._data).ones(tuple(x.shape) + (1,), dtype=powers._data.dtype))
    return _F.cat([ones, powers], -1)


def householder_product(A, tau):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i being column i of
    A below the diagonal with a 1 on it (LAPACK's orgqr)."""
    name = "torch.linalg.householder_product"
    _require(A.dim() >= 2, f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    _require(m >= n, f"{name}: input.shape[-2] must be greater than or equal to "
                     "input.shape[-1]")
    _require(tau.dim() >= 1 and n >= tau.shape[-1], f"{name}: input.shape[-1] must be greater "
                                                    "than or equal to tau.shape[-1]")
    _require(tau.dim() == A.dim() - 1, f"{name}: Expected tau to have one dimension less than "
                                       f"input, but got tau.ndim equal to {tau.dim()} and "
                                       f"input.ndim is equal to {A.dim()}")
    _require(tuple(tau.shape[:-1]) == tuple(A.shape[:-2]),
             f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
             f"got {list(tau.shape[:-1])}")
    _require(tau.dtype == A.dtype, f"{name}: tau dtype {scalar_type_name(tau._data.dtype)} "
                                   f"does not match input dtype "
                                   f"{scalar_type_name(A._data.dtype)}")
    if A._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for "
                                  f"'{scalar_type_name(A._data.dtype)}'")
    xp, dtype = namespace_of(A._data), A._data.dtype
    Q = _constant(xp.broadcast_to(xp.eye(m, n, dtype=dtype), tuple(A.shape)).copy())
    rows = xp.arange(m)
    for i in reversed(range(tau.shape[-1])):   # Q = H_i Q, innermost first
        below = _constant((rows > i).astype(dtype))
        unit = _constant((rows == i).astype(dtype))
        v = A.select(-1, i) * below + unit
        vQ = (v.unsqueeze(-1) * Q).sum(-2)
        Q = Q - (tau.select(-1, i).unsqueeze(-1) * v).unsqueeze(-1) * vQ.unsqueeze(-2)
    return Q


def tensorinv(A, ind=2):
    """The inverse of A seen as a map from its first ``ind`` dims to the rest."""
    _require(ind > 0, f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape, in_shape = tuple(A.shape[ind:]), tuple(A.shape[:ind])
    rows, cols = math.prod(out_shape), math.prod(in_shape)
    _require(rows == cols, f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {rows} != {cols}")
    try:
        inverse = _F.linalg_inv(A.reshape(rows, rows))
    except LinAlgError as error:  # torch calls it through at::inverse
        raise LinAlgError(str(error).replace("linalg.inv:", "inv:", 1)) from None
    return inverse.reshape(out_shape + in_shape)


def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = A.movedim(dims, list(range(A.dim() - len(dims), A.dim())))
    result_shape = tuple(A.shape[B.dim():])
    rows, cols = math.prod(result_shape), B.numel()
    _require(rows == cols, f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {rows} != {cols}")
    return _F.linalg_solve(A.reshape(rows, rows), B.flatten()).reshape(result_shape)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.diagonal with linalg's defaults (the last two dims)."""
    return _F.diagonal(A, offset, dim1, dim2)


# ------------------------------------------------------------------ complex results
def eig(A):
    raise NotImplementedError("linalg.eig returns complex eigenvalues and eigenvectors, and "
                              "minigrad has no complex dtype: for symmetric matrices use "
                              "linalg.eigh")


def eigvals(A):
    raise NotImplementedError("linalg.eigvals returns complex eigenvalues, and minigrad has no "
                              "complex dtype: for symmetric matrices use linalg.eigvalsh")


if not hasattr(Tensor, "orgqr"):
    Tensor.orgqr = householder_product  # torch's LAPACK-named method


def geqrf(A):
    """LAPACK's compact QR of ``A`` (torch.geqrf): R on and above the diagonal, the
    Householder vectors below it, and their scales ``tau`` (householder_product's inputs).
    No gradient, as in torch."""
    xp = namespace_of(A._data)
    data = A.detach()._data
    flat = data.reshape((-1,) + data.shape[-2:])
    factors, taus = [], []
    for matrix in flat:
        h, tau = xp.linalg.qr(matrix, mode="raw")   # h is the transposed geqrf output
        factors.append(h.T)
        taus.append(tau)
    out = xp.stack(factors).reshape(data.shape)
    tau = xp.stack(taus).reshape(data.shape[:-2] + (min(data.shape[-2:]),))
    return _Geqrf(_wrap(out), _wrap(tau))
