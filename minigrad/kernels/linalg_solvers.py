"""Solvers beyond numpy's: torch.linalg.lstsq (through the SVD, giving each LAPACK driver's
outputs as torch does), and the solve and inverse from a Cholesky factor."""
import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import scalar_type_name
from minigrad.kernels.lu import singular_inverse_error

LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _require(ok, message):
    if not ok:
        raise RuntimeError(message)


def _check_lstsq(a, b, driver):
    name = "torch.linalg.lstsq"
    _require(a.ndim >= 2, f"{name}: input must have at least 2 dimensions.")
    _require(b.ndim >= 1, f"{name}: other must have at least 1 dimension.")
    _require(a.dtype.kind == "f" and b.dtype.kind == "f",
             "This function doesn't handle types other than float and double")
    _require(a.dtype == b.dtype, f"{name}: Expected input and other to have the same dtype, but "
                                 f"got input's dtype {scalar_type_name(a.dtype)} and other's "
                                 f"dtype {scalar_type_name(b.dtype)}")
    _require(0 <= a.ndim - b.ndim <= 1, f"{name}: input.dim() must be greater or equal to "
                                        "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = a.ndim - b.ndim == 1
    _require(a.shape[-2] == (b.shape[-1] if vector else b.shape[-2]),
             f"{name}: input.size(-2) should match other.size({-1 if vector else -2})")
    _require(driver is None or driver in LSTSQ_DRIVERS,
             f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    return vector


def lstsq_array(a, b, rcond=None, driver=None):
    """(solution, residuals, rank, singular_values) of min |A X - B|, as torch.linalg.lstsq
    with ``driver`` (CPU default 'gelsy').  The minimum-norm solution is computed from the
    SVD, keeping the singular values above rcond * the largest (rcond default: eps *
    max(m, n)), as the rank-revealing drivers do; 'gels' assumes full rank.  As torch:
    residuals (squared, per column of B) only where m > n, the driver is not 'gelsy' and
    every matrix has full rank ('gels': always where m > n); the rank except for 'gels';
    the singular values for 'gelsd' and 'gelss'; the others are empty."""
    vector = _check_lstsq(a, b, driver)
    driver = driver or "gelsy"
    xp = namespace_of(a)
    bm = b[..., None] if vector else b
    m, n = a.shape[-2:]
    try:
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    except ValueError:
        raise RuntimeError(f"torch.linalg.lstsq: the batch dimensions of input "
                           f"{list(a.shape[:-2])} and other {list(bm.shape[:-2])} do not "
                           "broadcast") from None
    a_ = xp.broadcast_to(a, batch + (m, n))
    b_ = xp.broadcast_to(bm, batch + bm.shape[-2:])
    u, s, vh = xp.linalg.svd(a_, full_matrices=False)
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    largest = s[..., :1] if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,), dtype=s.dtype)
    keep = s > (0 if driver == "gels" else rcond * largest)
    s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(a.dtype)
    x = vh.swapaxes(-1, -2) @ (s_inv[..., None] * (u.swapaxes(-1, -2) @ b_))
    rank = xp.sum(keep, axis=-1).astype(xp.int64)
    empty = xp.zeros((0,), dtype=a.dtype)
    full_rank = driver == "gels" or bool(xp.all(rank == n))
    if m > n and driver != "gelsy" and full_rank:
        residuals = xp.sum((a_ @ x - b_) ** 2, axis=-2).astype(a.dtype)
    else:
        residuals = empty
    if driver == "gels":
        rank = xp.zeros((0,), dtype=xp.int64)
    values = s.astype(a.dtype) if driver in ("gelsd", "gelss") else empty
    return (x[..., 0] if vector else x), residuals, rank, values


def _triangle_inverse(t, name):
    """The inverse of a batch of triangular matrices; a zero on a diagonal is LAPACK's
    singular case (``info`` its 1-based index)."""
    xp = namespace_of(t)
    diagonal = xp.diagonal(t, axis1=-2, axis2=-1)
    zero = diagonal == 0
    if bool(xp.any(zero)):
        info = xp.where(xp.any(zero, axis=-1), xp.argmax(zero, axis=-1) + 1, 0)
        raise singular_inverse_error(name, info)
    return xp.linalg.solve(t, xp.broadcast_to(xp.eye(t.shape[-1], dtype=t.dtype), t.shape))


def _factor_triangle(factor, upper):
    xp = namespace_of(factor)
    return xp.triu(factor) if upper else xp.tril(factor)


def cholesky_inverse_array(factor, upper=False):
    """(L L^T)^-1 from the lower factor L, or (U^T U)^-1 from the upper factor U; only that
    triangle of ``factor`` is read."""
    _require(factor.ndim >= 2,
             "cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    _require(factor.shape[-1] == factor.shape[-2],
             f"cholesky_inverse: A must be batches of square matrices, but they are "
             f"{factor.shape[-2]} by {factor.shape[-1]} matrices")
    if factor.dtype.kind not in "fc":
        raise NotImplementedError("\"cholesky_inverse_out_cpu\" not implemented for "
                                  f"'{scalar_type_name(factor.dtype)}'")
    t_inv = _triangle_inverse(_factor_triangle(factor, upper), "cholesky_inverse")
    if upper:
        return t_inv @ t_inv.swapaxes(-1, -2)
    return t_inv.swapaxes(-1, -2) @ t_inv


def cholesky_solve_array(b, factor, upper=False):
    """X with (L L^T) X = B (or (U^T U) X = B), batch dims broadcast; a zero on the factor's
    diagonal gives NaN, as LAPACK's potrs (it does not check)."""
    _require(b.ndim >= 2, f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                          "instead")
    _require(factor.ndim >= 2, f"u should have at least 2 dimensions, but has {factor.ndim} "
                               "dimensions instead")
    _require(b.dtype == factor.dtype,
             f"Expected b and A to have the same dtype, but found b of type "
             f"{scalar_type_name(b.dtype)} and A of type {scalar_type_name(factor.dtype)} "
             "instead.")
    _require(factor.shape[-1] == factor.shape[-2],
             f"A must be batches of square matrices, but they are {factor.shape[-2]} by "
             f"{factor.shape[-1]} matrices")
    _require(factor.shape[-1] == b.shape[-2],
             f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
             f"{factor.shape[-2]} by {factor.shape[-1]} but each b matrix is {b.shape[-2]} by "
             f"{b.shape[-1]}")
    if b.dtype.kind not in "fc":
        raise NotImplementedError("\"cholesky_solve_cpu\" not implemented for "
                                  f"'{scalar_type_name(b.dtype)}'")
    xp = namespace_of(b)
    batch = np.broadcast_shapes(b.shape[:-2], factor.shape[:-2])
    t = _factor_triangle(factor, upper)
    if bool(xp.any(xp.diagonal(t, axis1=-2, axis2=-1) == 0)):
        return xp.full(batch + b.shape[-2:], np.nan, dtype=b.dtype)
    lower = t.swapaxes(-1, -2) if upper else t
    lower = xp.broadcast_to(lower, batch + lower.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    y = xp.linalg.solve(lower, b)
    return xp.linalg.solve(lower.swapaxes(-1, -2), y)
