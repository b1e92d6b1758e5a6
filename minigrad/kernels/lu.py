"""LU with partial pivoting (LAPACK getrf's results: LU, 1-based int32 pivots, info), the
permutation its pivots stand for, a Cholesky that reports where it fails, and the
LinAlgError messages PyTorch derives from those ``info`` codes.

On the CPU the factorization is LAPACK's (scipy); elsewhere it is written in array
operations (one step per column, vectorized over the batch), so it runs on any device's
array library and reports the first zero pivot, which ``xp.linalg`` does not.
"""
import math
import warnings

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import scalar_type_name


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix is singular or not positive-definite."""


LinAlgError.__module__ = "minigrad.linalg"


def _as_batch(a):
    """``a`` as a (batch, m, n) copy in its own dtype, for in-place elimination."""
    xp = namespace_of(a)
    return xp.array(a, copy=True).reshape((math.prod(a.shape[:-2]),) + a.shape[-2:])


def lu_factor_array(a, pivot=True, name="linalg.lu_factor_ex"):
    """(LU, pivots, info) of a batch of m x n matrices, as LAPACK's getrf: L's unit
    diagonal implicit, ``pivots`` 1-based int32 row swaps, ``info`` the 1-based index of
    the first zero pivot (0 if none).  Partial pivoting takes the first largest |value|."""
    if a.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(a.shape)} instead")
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    xp = namespace_of(a)
    if not pivot and xp is np:
        raise RuntimeError(f"{name.replace('_ex', '')}: LU without pivoting is not implemented "
                           "on the CPU")
    if xp is np and pivot and a.size:
        return _lapack_lu_factor(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lu = _as_batch(a)
    count = lu.shape[0]
    pivots = xp.empty((count, k), dtype=xp.int32)
    info = xp.zeros((count,), dtype=xp.int32)
    every = xp.arange(count)
    for j in range(k):
        p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1) if pivot else xp.full(count, j)
        pivots[:, j] = p + 1
        row_j, row_p = lu[every, j].copy(), lu[every, p].copy()
        lu[every, p] = row_j
        lu[every, j] = row_p
        d = lu[:, j, j]
        zero = d == 0
        info = xp.where((info == 0) & zero, j + 1, info).astype(xp.int32)
        # a zero pivot leaves its column as it is (LAPACK's dgetf2); with pivoting the
        # column below is zero then anyway
        lu[:, j + 1:, j] /= xp.where(zero, 1, d)[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    batch = a.shape[:-2]
    return lu.reshape(a.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


def _lapack_lu_factor(a):
    """The CPU's getrf through scipy (batched; its pivots 0-based): ten times the speed of
    the column loop, and LAPACK's very pivots."""
    import scipy.linalg  # lazily: only the CPU path needs it
    with warnings.catch_warnings():  # a zero pivot is reported in info, not warned about
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        lu, pivots = scipy.linalg.lu_factor(a, check_finite=False)
    k = min(a.shape[-2:])
    zero = np.diagonal(lu, axis1=-2, axis2=-1)[..., :k] == 0
    info = np.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype(np.int32)
    return lu.astype(a.dtype, copy=False), (pivots + 1).astype(np.int32), info


def permutation_of_pivots(pivots, m):
    """The row order ``perm`` that LAPACK's 1-based ``pivots`` (row swaps, in order) make of
    m rows: A[perm] = L U, so A = P L U with P[perm[i], i] = 1."""
    xp = namespace_of(pivots)
    batch = pivots.shape[:-1]
    piv = pivots.reshape((-1, pivots.shape[-1])).astype(xp.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (piv.shape[0], m)).copy()
    every = xp.arange(piv.shape[0])
    for j in range(piv.shape[1]):
        p = piv[:, j]
        at_j, at_p = perm[every, j].copy(), perm[every, p].copy()
        perm[every, j] = at_p
        perm[every, p] = at_j
    return perm.reshape(batch + (m,))


def permutation_matrix(pivots, m, dtype):
    """P of A = P L U, as an m x m matrix of ``dtype``."""
    xp = namespace_of(pivots)
    perm = permutation_of_pivots(pivots, m)
    # P[perm[i], i] = 1: column i of P is the one-hot of perm[i]
    return (perm[..., None, :] == xp.arange(m)[:, None]).astype(dtype)


def check_lu_pivots(LU, pivots, name):
    """torch's checks of an (LU, pivots) pair handed back by the user."""
    if LU.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU.shape)} instead")
    if pivots.dtype != np.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used "
                           "with the output produced by torch.linalg.lu_factor")
    k = min(LU.shape[-2:])
    if tuple(pivots.shape) != tuple(LU.shape[:-2]) + (k,):
        raise RuntimeError(f"{name}: Expected pivots of shape {list(LU.shape[:-2]) + [k]} "
                           f"(LU's batch dims and min(m, n)), but got {list(pivots.shape)}")


def cholesky_info(a):
    """LAPACK potrf's ``info`` for each matrix of a batch (its lower triangle is read): the
    order of the first leading minor that is not positive-definite, 0 if none."""
    xp = namespace_of(a)
    n = a.shape[-1]
    low = _as_batch(a)
    info = xp.zeros((low.shape[0],), dtype=xp.int32)
    for j in range(n):
        d = low[:, j, j] - xp.sum(low[:, j, :j] ** 2, axis=-1)
        bad = ~(d > 0)  # NaN fails too
        info = xp.where((info == 0) & bad, j + 1, info).astype(xp.int32)
        root = xp.sqrt(xp.where(bad, 1, d))
        low[:, j, j] = root
        below = low[:, j + 1:, j] - xp.einsum("bik,bk->bi", low[:, j + 1:, :j], low[:, j, :j])
        low[:, j + 1:, j] = below / root[:, None]
    return info.reshape(a.shape[:-2])


def batch_prefix(info):
    """"(Batch element i): " for the first failing matrix of a batch, "" for one matrix."""
    failing = np.flatnonzero(np.asarray(_host(info)).reshape(-1))
    if info.ndim == 0 or failing.size == 0:
        return ""
    first = int(failing[0])
    return f"(Batch element {first}): "


def first_failure(info):
    """The first nonzero ``info`` of a batch, as a Python int (0: every matrix is fine)."""
    flat = np.asarray(_host(info)).reshape(-1)
    bad = flat[flat != 0]
    return int(bad[0]) if bad.size else 0


def _host(array):
    get = getattr(array, "get", None)  # CuPy: to the host, to build a message
    return get() if get is not None else array


def singular_inverse_error(name, info):
    return LinAlgError(f"{name}: {batch_prefix(info)}The diagonal element {first_failure(info)} "
                       "is zero, the inversion could not be completed because the input matrix "
                       "is singular.")


def singular_solve_error(name, info):
    return LinAlgError(f"{name}: {batch_prefix(info)}The solver failed because the input matrix "
                       "is singular.")


def not_positive_definite_error(name, info):
    return LinAlgError(f"{name}: {batch_prefix(info)}The factorization could not be completed "
                       "because the input is not positive-definite (the leading minor of order "
                       f"{first_failure(info)} is not positive-definite).")


def lu_factor_ex_array(a, pivot=True, check_errors=False, name="torch.linalg.lu_factor_ex"):
    """torch.linalg.lu_factor_ex: (LU, pivots, info); with ``check_errors`` a zero pivot
    raises PyTorch's error (a RuntimeError: the factorization itself succeeded)."""
    lu, pivots, info = lu_factor_array(a, pivot, name.replace("torch.", ""))
    if check_errors:
        check_lu_info(info, name)
    return lu, pivots, info


def check_lu_info(info, name):
    i = first_failure(info)
    if i:
        raise RuntimeError(f"{name}: {batch_prefix(info)}U[{i},{i}] is zero and using it on "
                           "lu_solve would result in a division by zero. If you still want to "
                           "perform the factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")
