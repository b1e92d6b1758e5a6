"""The maps ``parametrizations.orthogonal`` needs that minigrad has no op for, composed
from differentiable ops (so their gradients come from the ops' own derivatives):
``matrix_exp`` (torch.matrix_exp) and ``householder_product``
(torch.linalg.householder_product), plus the Householder QR factors (torch.geqrf).
"""
import math

from minigrad.creation import eye
from minigrad._array import namespace_of
from minigrad._tensor import _wrap

# Taylor terms of exp(B) for ||B||_1 <= 1/2: the first omitted term is below 2**-19 / 19!,
# far under float64's rounding
_TAYLOR_DEGREE = 18


def matrix_exp(A):
    """exp(A) of a (batch of) square matrices by scaling and squaring: exp(A) =
    exp(A / 2**s) ** (2**s), with the Taylor series for the scaled matrix."""
    xp = namespace_of(A._data)
    norm = float(xp.abs(A._data).sum(axis=-2).max()) if A.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    B = A / (2.0 ** squarings)
    identity = eye(A.size(-1), dtype=A.dtype, device=A.device).expand(A.shape)
    # Horner: I + B(I + B/2 (I + B/3 (...)))
    result = identity
    for k in range(_TAYLOR_DEGREE, 0, -1):
        result = identity + (B @ result) / k
    for _ in range(squarings):
        result = result @ result
    return result


def householder_product(A, tau):
    """The first ``k`` columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T, v_i being
    column i of ``A`` below the diagonal with a 1 on it (LAPACK's orgqr)."""
    n, k = A.size(-2), tau.size(-1)
    if A.size(-1) < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    identity = eye(n, dtype=A.dtype, device=A.device)
    below = A.tril(-1) + identity[:, :A.size(-1)]
    Q = identity[:, :k].expand(*A.shape[:-2], n, k)
    for i in range(k - 1, -1, -1):
        v = below[..., :, i:i + 1]                        # (..., n, 1)
        t = tau[..., i:i + 1].unsqueeze(-1)                # (..., 1, 1)
        Q = Q - (t * v) @ (v.mT @ Q)
    return Q


def geqrf(A):
    """LAPACK's compact QR of ``A`` (Householder vectors below R's diagonal, and tau), no
    gradient: torch.geqrf."""
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
    return _wrap(out), _wrap(tau)
