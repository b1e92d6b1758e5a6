"""PyTorch's older linear-algebra forms that scripts still call: torch.lu, lu_solve,
triangular_solve, ormqr, nuclear_norm, frobenius_norm, norm_except_dim, vander and adjoint
(with their method forms, and x.mH / x.H).  Each is composed of torch.linalg's
differentiable ops, as PyTorch composes them, so their gradients are those ops'.
"""
import warnings
from collections import namedtuple

import numpy as np

from minigrad._array import namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.kernels.core import scalar_type_name
from minigrad.linalg import composites

__all__ = ["lu", "lu_solve", "triangular_solve", "ormqr", "nuclear_norm", "frobenius_norm",
           "norm_except_dim", "vander", "adjoint"]

_TriangularSolve = namedtuple("triangular_solve", ("solution", "cloned_coefficient"))
_NO_DIM = object()   # frobenius_norm's dim has no default (torch: a required argument)


def _constant(array):
    return _wrap(array)


def lu(A, pivot=True, get_infos=False):
    """(LU, pivots) of A = P L U, and with ``get_infos`` the ``infos`` (0 where U's
    diagonal has no zero)."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=2)
    if A._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"lu_cpu\" not implemented for "
                                  f"'{scalar_type_name(A._data.dtype)}'")
    if not pivot and namespace_of(A._data).__name__ == "numpy":
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, pivots, infos = _F.linalg_lu_factor_ex(A, pivot=pivot)   # singular: no error, as torch
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def lu_solve(b, LU_data, LU_pivots):
    """X with A X = b, A = P L U given by torch.lu (torch.linalg.lu_solve's arguments,
    reordered)."""
    return composites.lu_solve(LU_data, LU_pivots, b)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, a copy of A) with op(A) X = b, op(A) being A or its transpose, A triangular."""
    warnings.warn("torch.triangular_solve is deprecated in favor of "
                  "torch.linalg.solve_triangularand will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=2)
    if b.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{scalar_type_name(b._data.dtype)} and A of type "
                           f"{scalar_type_name(A._data.dtype)} instead.")
    if b.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {b.dim()} dimensions instead")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is "
                           f"{b.shape[-2]} by {b.shape[-1]}")
    batch = np.broadcast_shapes(tuple(b.shape[:-2]), tuple(A.shape[:-2]))
    coefficient = A if transpose is False else A.mT
    X = _F.linalg_solve_triangular(coefficient, b, upper=upper != transpose,
                                   unitriangular=unitriangular)
    cloned = A.expand(tuple(batch) + tuple(A.shape[-2:])).clone()   # torch broadcasts it
    return _TriangularSolve(X, cloned)


def _check_ormqr(input, tau, other, left):
    """torch.ormqr's checks, in its order, with its messages."""
    name = "torch.ormqr"
    side = -2 if left else -1
    composites._require(input.dim() >= 2, f"{name}: input must have at least 2 dimensions.")
    composites._require(other.dim() >= 2, f"{name}: other must have at least 2 dimensions.")
    composites._require(other.shape[side] == input.shape[-2],
                        f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    composites._require(tau.dim() >= 1 and tau.shape[-1] == min(input.shape[-2:]),
                        f"{name}: tau.shape[-1] must be equal to min(other.shape[-2], "
                        f"input.shape[-1])")
    composites._require(tau.dim() == input.dim() - 1,
                        f"{name}: Expected tau to have one dimension less than input, but got "
                        f"tau.ndim equal to {tau.dim()} and input.ndim is equal to {input.dim()}")
    composites._require(other.dim() == input.dim(),
                        f"{name}: Expected other to have the same number of dimensions as input, "
                        f"but got other.ndim equal to {other.dim()} and input.ndim is equal to "
                        f"{input.dim()}")
    for what, t in (("tau", tau), ("other", other)):
        composites._require(t.dtype == input.dtype,
                            f"{name}: Expected input and {what} to have the same dtype, but input "
                            f"has dtype{scalar_type_name(input._data.dtype)} and {what} has dtype "
                            f"{scalar_type_name(t._data.dtype)}")
    for what, batch in (("tau", tau.shape[:-1]), ("other", other.shape[:-2])):
        composites._require(tuple(batch) == tuple(input.shape[:-2]),
                            f"{name}: Expected batch dimensions of {what} to be equal to "
                            f"input.shape[:-2], but got {list(batch)}")
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"ormqr_cpu\" not implemented for "
                                  f"'{scalar_type_name(input._data.dtype)}'")


def ormqr(input, tau, other, left=True, transpose=False):
    """Q C, Q^T C, C Q or C Q^T, Q = H_1 ... H_k the full (square) orthogonal matrix that
    geqrf's ``(input, tau)`` stand for."""
    _check_ormqr(input, tau, other, left)
    k = tau.shape[-1]
    mn = input.shape[-2]
    reflectors = _F.narrow(input, -1, 0, k)
    if mn > k:   # zero columns: householder_product then gives all mn columns of Q
        xp = namespace_of(input._data)
        zeros = _constant(xp.zeros(tuple(input.shape[:-1]) + (mn - k,), dtype=input._data.dtype))
        reflectors = _F.cat([reflectors, zeros], -1)
    Q = composites.householder_product(reflectors, tau)
    Q = Q.mT if transpose else Q
    return _F.matmul(Q, other) if left else _F.matmul(other, Q)


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of singular values of the matrices in dims ``dim`` (default the last two)."""
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead", UserWarning,
                  stacklevel=2)
    if isinstance(dim, bool):   # torch.nuclear_norm(x, True): keepdim passed by position
        dim, keepdim = None, dim
    return _F.linalg_matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim),
                                 keepdim=keepdim)


def frobenius_norm(input, dim=_NO_DIM, keepdim=False):
    """The 2-norm of ``input``'s values over ``dim`` (torch requires dim)."""
    if dim is _NO_DIM:
        raise TypeError('frobenius_norm() missing 1 required positional arguments: "dim"')
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.vector_norm(A, 2., dim, keepdim)` instead", UserWarning, stacklevel=2)
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    return _F.linalg_vector_norm(input, 2.0, dim=dim, keepdim=keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm over every dim but ``dim``, kept as size-1 dims (weight_norm's);
    ``dim=-1`` is the norm of all of ``v``."""
    if v._data.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {scalar_type_name(v._data.dtype)} instead.")
    if dim == -1:
        return _F.linalg_vector_norm(v, pow)
    if not -v.dim() <= dim < v.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of [{-v.dim()}, "
                         f"{v.dim() - 1}], but got {dim})")
    dim %= v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return _F.linalg_vector_norm(v, pow, dim=others, keepdim=True)


def vander(x, N=None, increasing=False):
    """Columns x^(N-1), ..., x, 1 (or 1, x, ... with ``increasing``); integers and bools
    are computed in int64, as torch."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "biu":
        x = x.long()
    xp = namespace_of(x._data)
    ones = _constant(xp.ones((x.shape[0], min(n, 1)), dtype=x._data.dtype))
    if n > 1:
        powers = _F.cumprod(x.unsqueeze(1).expand((x.shape[0], n - 1)), 1)
        ones = _F.cat([ones, powers], 1)
    return ones if increasing else _F.flip(ones, (1,))


def _matrices_only(x, what):
    if x.dim() < 2:
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of "
                           f"matrices. Got {x.dim()}-D tensor.")


def adjoint(input):
    """The conjugate transpose of the last two dims (a view; minigrad is real, so mT)."""
    if input.dim() == 0:
        return input   # torch: the identity on a 0-d tensor
    _matrices_only(input, "adjoint()")
    return input.transpose(-2, -1)


def _mH(self):
    """The conjugate transpose of each matrix (real tensors: x.mT)."""
    if self.dim() == 0:
        return self
    _matrices_only(self, "mH")
    return self.transpose(-2, -1)


def _H(self):
    """The conjugate transpose of a matrix (real tensors: x.T; a 0-d tensor itself)."""
    if self.dim() == 0:
        return self
    if self.dim() != 2:
        hint = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.{hint}")
    return self.transpose(0, 1)


for _name in ("lu", "lu_solve", "triangular_solve", "ormqr", "adjoint"):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
if not hasattr(Tensor, "geqrf"):
    Tensor.geqrf = composites.geqrf
if not hasattr(Tensor, "mH"):
    Tensor.mH = property(_mH)
if not hasattr(Tensor, "H"):
    Tensor.H = property(_H)
