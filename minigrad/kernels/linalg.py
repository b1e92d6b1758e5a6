"""numpy building blocks for the linalg ops' `forward:` expressions.

They check shapes the way torch does, so a wrong call fails with torch's message
instead of numpy silently broadcasting or contracting something else.
"""
import contextlib
import functools

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import cpp_type_name, scalar_type_name, xp_of
from minigrad.kernels.lu import (cholesky_info, lu_factor_array, not_positive_definite_error,
                                 singular_inverse_error, singular_solve_error)


def _status_checked(xp):
    """A context in which ``xp.linalg`` raises numpy's LinAlgError where a factorization
    fails (a singular matrix, one not positive-definite), as numpy's always does.  CuPy
    checks cuSOLVER's status only when asked; reading it waits for the GPU, as PyTorch's
    CUDA inv, solve and cholesky do to raise their errors."""
    if getattr(xp, "__name__", "") != "cupy":
        return contextlib.nullcontext()
    import cupyx  # lazily: CuPy is an optional extra
    return cupyx.errstate(linalg="raise")


def _require(ok, message):
    if not ok:
        raise RuntimeError(message)


# PyTorch's matrix products take one dtype (no promotion): float32 @ float64 is an error
def check_mm_dtypes(a, b):
    _require(a.dtype == b.dtype, f"expected m1 and m2 to have the same dtype, but got: "
                                 f"{cpp_type_name(a.dtype)} != {cpp_type_name(b.dtype)}")


def check_addmm_dtypes(self, mat1, mat2):
    _require(self.dtype == mat2.dtype, f"self and mat2 must have the same dtype, but got "
                                       f"{scalar_type_name(self.dtype)} and "
                                       f"{scalar_type_name(mat2.dtype)}")
    _require(mat1.dtype == mat2.dtype, f"mat1 and mat2 must have the same dtype, but got "
                                       f"{scalar_type_name(mat1.dtype)} and "
                                       f"{scalar_type_name(mat2.dtype)}")


def check_bmm_dtypes(a, b):
    _require(a.dtype == b.dtype, f"expected scalar type {scalar_type_name(a.dtype)} but found "
                                 f"{scalar_type_name(b.dtype)}")


def check_mv_dtypes(a, v):
    v_name = scalar_type_name(v.dtype)
    _require(a.dtype == v.dtype, f"addmv input tensors must have the same dtype, but got "
                                 f"{v_name}, {scalar_type_name(a.dtype)}, and {v_name}")


def matmul_array(a, b):
    """numpy's matmul, refusing two dtypes as PyTorch does, with the message of the kernel
    it would run (dot, mv, mm or bmm); a shape error comes first, as in PyTorch."""
    try:
        same = a.dtype is b.dtype or a.dtype == b.dtype
    except AttributeError:  # a Python number: numpy refuses it below
        same = True
    if same:
        return (np if a.__class__ is np.ndarray else namespace_of(a)).matmul(a, b)
    # Two dtypes: always an error, PyTorch's shape error first where it has one
    if a.ndim == 1 and b.ndim == 1:
        dot_array(a, b)  # (dot checks the dtypes before the sizes)
    namespace_of(a).matmul(a, b)  # numpy's shape errors, which the caller translates
    check = check_mv_dtypes if b.ndim == 1 else check_mm_dtypes if b.ndim == 2 else \
        check_bmm_dtypes
    check(a, b)   # (raises: the dtypes differ)


def mm_array(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{'self' if a.ndim != 2 else 'mat2'} must be a matrix (mm takes 2-D "
                           f"matrices, got {a.ndim}-D and {b.ndim}-D: use matmul for vectors or "
                           "batches)")
    _require(a.shape[1] == b.shape[0],
             f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
             f"{b.shape[0]}x{b.shape[1]})")
    check_mm_dtypes(a, b)
    return a @ b


def bmm_array(a, b):
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"{'batch1' if a.ndim != 3 else 'batch2'} must be a 3D tensor (got "
                           f"{a.ndim}-D and {b.ndim}-D: use matmul to broadcast batch dimensions)")
    _require(a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1],
             f"Expected size for first two dimensions of batch2 tensor to be: "
             f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    check_bmm_dtypes(a, b)
    return a @ b


def mv_array(a, v):
    _require(a.ndim == 2 and v.ndim == 1,
             f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    _require(a.shape[1] == v.shape[0],
             f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
             f"vec ({v.shape[0]})")
    check_mv_dtypes(a, v)
    return a @ v


def dot_array(a, b):
    """torch.dot and torch.vdot (which share their checks and messages)."""
    _require(a.ndim == 1 and b.ndim == 1,
             f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    _require(a.dtype == b.dtype, f"dot : expected both vectors to have same dtype, but found "
                                 f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}")
    _require(a.shape[0] == b.shape[0],
             f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
             f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
             f"respectively")
    return namespace_of(a).dot(a, b)


def inner_array(a, b):
    xp = xp_of(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return xp.multiply(a, b)
    _require(a.shape[-1] == b.shape[-1],
             f"inner() the last dimension must match on both input tensors but got shapes "
             f"{list(a.shape)} and {list(b.shape)}")
    return xp.inner(a, b)


def outer_array(a, b):
    _require(a.ndim == 1 and b.ndim == 1,
             f"outer: expected two 1-D vectors, got {a.ndim}-D and {b.ndim}-D")
    return namespace_of(a).multiply.outer(a, b)


def tensordot_array(a, b, dims_a, dims_b):
    dims_a, dims_b = tuple(dims_a), tuple(dims_b)
    _require(len(dims_a) == len(dims_b),
             f"tensordot: both dimension lists should have the same length, got {list(dims_a)} "
             f"and {list(dims_b)}")
    for da, db in zip(dims_a, dims_b):
        _require(a.shape[da] == b.shape[db],
                 f"tensordot: contracted dimensions need to match, but first has size "
                 f"{a.shape[da]} in dim {da} and second has size {b.shape[db]} in dim {db}")
    return namespace_of(a).tensordot(a, b, axes=(dims_a, dims_b))


def einsum_array(equation, operands):
    try:
        return xp_of(*operands).einsum(equation, *operands)
    except ValueError as exc:
        raise RuntimeError(f"einsum(): {exc} (equation '{equation}', operand shapes "
                           f"{[list(o.shape) for o in operands]})") from None


def kron_array(a, b):
    return namespace_of(a).kron(a, b)


def addmm_array(self, mat1, mat2, beta, alpha):
    check_addmm_dtypes(self, mat1, mat2)
    product = mm_array(mat1, mat2)
    return _scaled_sum(self, product, beta, alpha, skip_zero_alpha=True)


def addmv_array(self, mat, vec, beta, alpha):
    """beta * self + alpha * (mat @ vec), ``self`` a (n,) vector or one element."""
    _require(self.ndim <= 1 and mat.ndim == 2 and vec.ndim == 1,
             f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}")
    _require(mat.shape[1] == vec.shape[0] and (self.size == mat.shape[0] or self.size == 1),
             f"size mismatch, got input ({self.shape[0] if self.ndim else 1}), mat "
             f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    _require(self.dtype == mat.dtype == vec.dtype,
             f"addmv input tensors must have the same dtype, but got "
             f"{scalar_type_name(self.dtype)}, {scalar_type_name(mat.dtype)}, and "
             f"{scalar_type_name(vec.dtype)}")
    return _scaled_sum(self, mat @ vec, beta, alpha, skip_zero_alpha=True)


def baddbmm_array(self, batch1, batch2, beta, alpha):
    _require(self.dtype == batch1.dtype,
             f"Input dtypes must be the same, got: input {cpp_type_name(self.dtype)}, batch1: "
             f"{cpp_type_name(batch1.dtype)}, batch2: {cpp_type_name(batch2.dtype)}")
    product = bmm_array(batch1, batch2)
    return _scaled_sum(self, product, beta, alpha)


def _scaled_sum(self, product, beta, alpha, skip_zero_alpha=False):
    """beta * self + alpha * product.  As PyTorch: beta == 0 ignores self entirely (nan and
    inf in it do not propagate), and so does alpha == 0 the product where PyTorch calls
    BLAS (``skip_zero_alpha``: addmm, addmv); integer tensors take the scalars truncated."""
    xp = namespace_of(product)
    if product.dtype.kind in "iu":
        beta, alpha = int(beta), int(alpha)
    if alpha == 0 and skip_zero_alpha:
        product = xp.zeros_like(product)
    scaled = product if alpha == 1 else xp.multiply(alpha, product)
    if beta == 0:
        return xp.array(xp.broadcast_to(scaled, np.broadcast_shapes(self.shape, scaled.shape)))
    return xp.add(self if beta == 1 else xp.multiply(beta, self), scaled)


def cross_dim(a_shape, b_shape, dim):
    """torch.cross's dim: None means the first dimension of size 3 (broadcast shape)."""
    _require(len(a_shape) == len(b_shape),
             "linalg.cross: inputs must have the same number of dimensions.")
    shape = np.broadcast_shapes(tuple(a_shape), tuple(b_shape))
    if dim is None:
        for i, n in enumerate(shape):
            if n == 3:
                return i
        raise RuntimeError(f"no dimension of size 3 in input of shape {list(shape)}; pass dim=")
    _require(shape[dim] == 3,
             f"linalg.cross: inputs dimension {dim} must have length 3. Got {shape[dim]}")
    return dim % len(shape)


def cross_array(a, b, dim):
    dim = cross_dim(a.shape, b.shape, dim)
    shape = np.broadcast_shapes(a.shape, b.shape)
    xp = namespace_of(a)
    return xp.cross(xp.broadcast_to(a, shape), xp.broadcast_to(b, shape), axis=dim)


def trace_array(a):
    _require(a.ndim == 2, f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    xp = namespace_of(a)
    return xp.asarray(xp.trace(a))


def _square(a, name):
    _require(a.ndim >= 2 and a.shape[-1] == a.shape[-2],
             f"linalg.{name}: A must be batches of square matrices, but they are "
             f"{a.shape[-2] if a.ndim >= 2 else 1} by {a.shape[-1] if a.ndim else 1} matrices")
    return a


def inv_array(a):
    _square(a, "inv")
    xp = namespace_of(a)
    try:
        with _status_checked(xp):
            return xp.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise singular_inverse_error("linalg.inv", lu_factor_array(a)[2]) from None


def det_array(a):
    xp = namespace_of(a)
    return xp.asarray(xp.linalg.det(_square(a, "det")))


def slogdet_array(a):
    xp = namespace_of(a)
    sign, logabsdet = xp.linalg.slogdet(_square(a, "slogdet"))
    return xp.asarray(sign), xp.asarray(logabsdet)


def logdet_array(a):
    xp = namespace_of(a)
    sign, logabsdet = xp.linalg.slogdet(_square(a, "logdet"))
    return xp.asarray(xp.where(sign < 0, np.nan, xp.where(sign == 0, -np.inf, logabsdet)),
                      dtype=a.dtype)


def solve_is_vector(a_shape, b_shape):
    """torch.linalg.solve's rule: B is a (batch of) vector(s) when it has one dim less."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1
                                 and tuple(b_shape) == tuple(a_shape[:-1]))


def solve_array(a, b, left=True):
    _square(a, "solve")
    vector = solve_is_vector(a.shape, b.shape)
    n = a.shape[-1]
    rows, cols = (b.shape[-1], 1) if vector else b.shape[-2:]
    _require(rows == n if left or vector else cols == n,
             f"linalg.solve: Incompatible shapes of A and B for the equation "
             f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})")
    xp = xp_of(a, b)
    try:
        if left:
            if vector:
                return _solve_batches(xp, a, b[..., None])[..., 0]
            return _solve_batches(xp, a, b)
        at = a.swapaxes(-1, -2)
        if vector:
            return _solve_batches(xp, at, b[..., None])[..., 0]
        return _solve_batches(xp, at, b.swapaxes(-1, -2)).swapaxes(-1, -2)
    except np.linalg.LinAlgError:
        raise singular_solve_error("torch.linalg.solve", lu_factor_array(a)[2]) from None


def _solve_batches(xp, a, b):
    """``xp.linalg.solve`` of matrices ``a`` and ``b`` with their batch dims broadcast
    first: numpy's broadcasts them, CuPy's does not."""
    if xp is not np and a.shape[:-2] != b.shape[:-2]:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
    with _status_checked(xp):
        return xp.linalg.solve(a, b)


def cholesky_array(a, upper=False, name="linalg.cholesky"):
    _square(a, "cholesky")
    xp = namespace_of(a)
    try:
        with _status_checked(xp):
            lower = xp.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise not_positive_definite_error(name, cholesky_info(a)) from None
    return lower.swapaxes(-1, -2).copy() if upper else lower


def eigh_array(a, UPLO="L"):
    _square(a, "eigh")
    _require(UPLO in ("L", "U"), f"linalg.eigh: UPLO must be 'L' or 'U', got '{UPLO}'")
    values, vectors = namespace_of(a).linalg.eigh(a, UPLO=UPLO)
    return values, vectors


def qr_array(a, mode="reduced"):
    _require(mode in ("reduced", "complete", "r"),
             f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
             "'r', or 'complete'")
    _require(a.ndim >= 2, f"linalg.qr: The input tensor A must have at least 2 dimensions.")
    xp = namespace_of(a)
    q, r = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        return xp.zeros((0,), dtype=a.dtype), r
    return q, r


def svd_array(a, full_matrices=True):
    _require(a.ndim >= 2, f"linalg.svd: The input tensor A must have at least 2 dimensions.")
    u, s, vh = namespace_of(a).linalg.svd(a, full_matrices=full_matrices)
    return u, s, vh


def vector_norm_array(x, ord=2, dim=None, keepdim=False):
    if x.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name(x.dtype)}")
    axis = None if dim is None else ((dim,) if isinstance(dim, (int, np.integer)) else tuple(dim))
    if axis == ():
        axis = None
    xp = namespace_of(x)
    ax = xp.abs(x)
    if ord == 0:
        out = xp.sum(ax != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    elif ord == np.inf:
        out = xp.amax(ax, axis=axis, keepdims=keepdim)
    elif ord == -np.inf:
        out = xp.amin(ax, axis=axis, keepdims=keepdim)
    elif ord == 1:
        out = xp.sum(ax, axis=axis, keepdims=keepdim)
    elif ord == 2:
        out = xp.sqrt(xp.sum(ax * ax, axis=axis, keepdims=keepdim))
    else:
        out = xp.power(xp.sum(xp.power(ax, ord), axis=axis, keepdims=keepdim), 1.0 / ord)
    return xp.asarray(out, dtype=x.dtype)


MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)


def matrix_dims(ndim, dim):
    _require(ndim >= 2, f"linalg.matrix_norm: The input tensor A must have at least 2 "
                        f"dimensions, got {ndim}")
    dim = tuple(dim)
    _require(len(dim) == 2, f"linalg.matrix_norm: dim must be a 2-tuple. Got "
             f"{' '.join(map(str, dim))}")  # torch prints the dims space-separated
    d0, d1 = dim[0] % ndim, dim[1] % ndim
    _require(d0 != d1, f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm_array(a, ord="fro", dim=(-2, -1), keepdim=False):
    _require(ord in MATRIX_ORDS,
             f"linalg.matrix_norm: Order {ord} not supported; use 'fro', 'nuc', 1, -1, 2, -2, "
             "inf or -inf")
    d0, d1 = matrix_dims(a.ndim, dim)
    xp = namespace_of(a)
    if xp is not np and ord in (2, -2, "nuc"):
        out = _singular_value_norm(xp, a, ord, d0, d1, keepdim)
    else:
        out = xp.linalg.norm(a, ord=ord, axis=(d0, d1), keepdims=keepdim)
    return xp.asarray(out, dtype=a.dtype)


def _singular_value_norm(xp, a, ord, d0, d1, keepdim):
    """The 2, -2 and nuclear matrix norms from the singular values (CuPy's norm has none)."""
    s = xp.linalg.svd(xp.moveaxis(a, (d0, d1), (-2, -1)), compute_uv=False)
    out = s.sum(axis=-1) if ord == "nuc" else (s.max(axis=-1) if ord == 2 else s.min(axis=-1))
    if keepdim:
        for d in sorted((d0, d1)):
            out = xp.expand_dims(out, d)
    return out


def norm_kind(ndim, ord, dim):
    """torch.linalg.norm: 'vector' or 'matrix', and the dims it reduces."""
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        _require(len(dim) in (1, 2), f"linalg.norm: If dim is specified, it must be of length 1 "
                                     f"or 2. Got {list(dim)}")
        return ("vector" if len(dim) == 1 else "matrix"), dim
    if ord is None:
        return "vector", None
    _require(ndim in (1, 2), f"linalg.norm: If dim is not specified but ord is, the input must "
                             f"be 1D or 2D. Got {ndim}D.")
    return ("vector", None) if ndim == 1 else ("matrix", (-2, -1))


def norm_array(x, ord=None, dim=None, keepdim=False):
    kind, dims = norm_kind(x.ndim, ord, dim)
    if kind == "matrix":
        return matrix_norm_array(x, "fro" if ord is None else ord, dims, keepdim)
    _require(not isinstance(ord, str), f"linalg.norm: order '{ord}' is a matrix norm; pass a "
                                       "2-tuple dim or a 2-D input")
    return vector_norm_array(x, 2 if ord is None else ord, dims, keepdim)


def pinv_array(a, atol=None, rtol=None, hermitian=False):
    _require(a.ndim >= 2, "linalg.pinv: The input tensor A must have at least 2 dimensions.")
    xp = namespace_of(a)
    if hermitian:
        # as torch (which uses eigh): only the lower triangle is read
        lower = xp.tril(a)
        a = lower + xp.tril(a, -1).swapaxes(-1, -2)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    smax = xp.amax(s, axis=-1, keepdims=True) if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,))
    if rtol is None:
        rtol = 0.0 if (atol is not None and atol > 0) else max(a.shape[-2:]) * np.finfo(a.dtype).eps
    cutoff = xp.maximum(0.0 if atol is None else atol, rtol * smax)
    s_inv = xp.where(s > cutoff, 1.0 / xp.where(s > cutoff, s, 1.0), 0.0).astype(a.dtype)
    return (vh.swapaxes(-1, -2) * s_inv[..., None, :]) @ u.swapaxes(-1, -2)


def torch_svd_array(a, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with V, not Vh; zero U and V when compute_uv=False."""
    if not compute_uv:
        xp = namespace_of(a)
        s = xp.linalg.svd(a, compute_uv=False)
        m, n = a.shape[-2:]
        return (xp.zeros(a.shape[:-2] + (m, m), a.dtype), s,
                xp.zeros(a.shape[:-2] + (n, n), a.dtype))
    u, s, vh = svd_array(a, full_matrices=not some)
    return u, s, vh.swapaxes(-1, -2).copy()


def torch_norm_array(x, p=2, dim=None, keepdim=False):
    """torch.norm: a vector norm of any order over ``dim`` (all dims if None), or
    p='fro' (the vector 2-norm) or p='nuc' (the nuclear norm over a 2-tuple dim)."""
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if p == "nuc":
        return matrix_norm_array(x, "nuc", tuple(range(x.ndim)) if dim is None else dim, keepdim)
    if isinstance(p, str):
        _require(p == "fro", f"norm: p must be 'fro', 'nuc' or a number, got '{p}'")
        p = 2
    return vector_norm_array(x, 2 if p is None else p, dim, keepdim)


def _triangle(a, upper, unitriangular=False):
    """The triangle of ``a`` a triangular solve reads (unit diagonal if unitriangular)."""
    xp = namespace_of(a)
    t = xp.triu(a) if upper else xp.tril(a)
    if unitriangular:
        n = a.shape[-1]
        t = t - t * xp.eye(n, dtype=a.dtype) + xp.eye(n, dtype=a.dtype)
    return t


def solve_triangular_array(a, b, upper, left=True, unitriangular=False):
    _square(a, "solve_triangular")
    _require(b.ndim >= 2, f"linalg.solve_triangular: The input tensor B must have at least 2 "
                          f"dimensions, got {b.ndim}")
    t = _triangle(a, upper, unitriangular)
    if not left:
        t, b = t.swapaxes(-1, -2), b.swapaxes(-1, -2)
    xp = namespace_of(t)
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = xp.broadcast_to(t, batch + t.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    try:
        with _status_checked(xp):
            x = xp.linalg.solve(t, b)
    except np.linalg.LinAlgError:  # a zero on the diagonal: no error in PyTorch (trsm)
        x = _substitution(t, b, upper == left)
    return x.swapaxes(-1, -2).copy() if not left else x


def _substitution(t, b, upper):
    """T X = B by back (``upper``) or forward substitution, a row at a time, as BLAS's trsm:
    a zero on T's diagonal gives inf and NaN (no error, as in PyTorch)."""
    xp = namespace_of(t)
    n = t.shape[-1]
    x = xp.zeros(np.broadcast_shapes(t.shape[:-1], b.shape[:-2] + (n,)) + b.shape[-1:],
                 dtype=np.result_type(t.dtype, b.dtype))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (reversed(range(n)) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            known = xp.einsum("...k,...kj->...j", t[..., i, done], x[..., done, :])
            x[..., i, :] = (b[..., i, :] - known) / t[..., i, i, None]
    return x


def vecdot_array(x, y, dim=-1):
    xp = xp_of(x, y)
    return xp.sum(xp.multiply(x, y), axis=dim)


def multi_dot_array(tensors):
    _require(len(tensors) >= 2, f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        ok = t.ndim == 2 or (t.ndim == 1 and i in (0, len(tensors) - 1))
        _require(ok, f"multi_dot(): tensor {i} must be 2D" +
                 (" or 1D" if i in (0, len(tensors) - 1) else "") + f" but got {t.ndim}D")
    xp = xp_of(*tensors)
    multi_dot = getattr(xp.linalg, "multi_dot", None)
    if multi_dot is None:  # CuPy has none: left to right (the same product, another order)
        return xp.asarray(functools.reduce(xp.dot, tensors))
    return xp.asarray(multi_dot(tensors))


def matrix_power_array(a, n):
    _square(a, "matrix_power")
    xp = namespace_of(a)
    try:
        with _status_checked(xp):
            return xp.linalg.matrix_power(a, n)
    except np.linalg.LinAlgError:
        raise singular_inverse_error("linalg.inv", lu_factor_array(a)[2]) from None
