"""torch.svd_lowrank and torch.pca_lowrank: randomized low-rank SVD (Halko, Martinsson and
Tropp 2009), following torch/_lowrank.py step by step.  The random test matrix is drawn
from minigrad's generator (minigrad.manual_seed), so the values are reproducible within
minigrad but are not torch's numbers for the same seed; for a matrix of rank <= q both give
its exact SVD up to signs.  Composed of randn, matmul, linalg.qr and linalg.svd, so
gradients flow through Q and the small SVD as in torch.
"""
from minigrad import _sampling
from minigrad._generated import functions as _F

__all__ = ["svd_lowrank", "pca_lowrank"]


def _approximate_basis(A, q, niter, M):
    """Q with q orthonormal columns such that Q Q^T (A - M) approximates A - M."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A._data.dtype.kind == "f" else None   # torch: float32 for integers
    R = _sampling.randn(A.shape[-1], q, dtype=dtype, device=A.device)

    def range_of(X_of):   # (A - M) applied through X_of, then orthonormalised
        X = X_of(A)
        if M is not None:
            X = X - X_of(M)
        return _F.linalg_qr(X)[0]

    Q = range_of(lambda T: _F.matmul(T, R))
    for _ in range(niter):
        Q = range_of(lambda T: _F.matmul(T.mT, Q))
        Q = range_of(lambda T: _F.matmul(T, Q))
    return Q


def _svd_lowrank(A, q, niter, M):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))
    if m < n:
        A = A.mT
        M = None if M is None else M.mT
    Q = _approximate_basis(A, q, niter, M)
    B = _F.matmul(Q.mT, A)
    if M is not None:
        B = B - _F.matmul(Q.mT, M)
    U, S, Vh = _F.linalg_svd(B, full_matrices=False)
    U, V = _F.matmul(Q, U), Vh.mT
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~ U diag(S) V^T, of rank q."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the low-rank SVD of A with its column means taken off (``center``):
    V's columns are the principal directions, S**2 / (m - 1) the variances along them."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A, q, niter, None)
