"""Helpers for forward formulas (`result:` in derivatives.yaml)."""
import numpy as np

from minigrad import _tensor
from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import ops_for
from minigrad.autograd.formulas.linalg import mT

__all__ = ["ones_like", "einsum_jvp", "multi_dot_jvp", "via_backward", "pick", "solve_jvp_rhs",
           "matrix_power_jvp", "triangular_part", "cholesky_jvp", "eigh_jvp", "eigvalsh_jvp",
           "layer_norm_input_jvp", "rms_norm_input_jvp", "channel_view", "batch_norm_input_jvp",
           "group_norm_input_jvp", "svdvals_jvp", "pinv_jvp", "cumprod_jvp",
           "sum_over_classes", "svd_jvp", "torch_svd_jvp", "qr_jvp",
           "logcumsumexp_jvp"]


def ones_like(x):
    """Constant ones shaped like ``x`` (a Tensor when ``x`` is one): the gradient that
    turns a reduction's backward into the weights its forward derivative sums with."""
    ones = namespace_of(getattr(x, "_data", x)).ones(x.shape, dtype=x.dtype)
    return _tensor._wrap(ones) if isinstance(x, _tensor.Tensor) else ones


def einsum_jvp(equation, tensors, tangents):
    """einsum is linear in each operand: the sum over operands with a tangent of einsum with
    that operand replaced by its tangent."""
    return _multilinear(lambda ops: ops_for(tangents[0] if tangents[0] is not None else tensors[0])
                        .einsum(equation, ops), tensors, tangents)


def multi_dot_jvp(tensors, tangents):
    return _multilinear(lambda ops: ops_for(ops[0]).linalg_multi_dot(ops), tensors, tangents)


def _multilinear(fn, tensors, tangents):
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        term = fn(list(tensors[:i]) + [t] + list(tensors[i + 1:]))
        total = term if total is None else total + term
    return total


def via_backward(op, args, kwargs, tangents):
    """The forward derivative J t of an op from its backward formula, by transposition:
    <J^T u, t> is linear in u, and its gradient in u is J t.  Used (and reported by
    codegen) for entries whose explicit forward formula is not written yet; costs one
    forward and two backwards, and loops over a batch of tangents."""
    from minigrad.autograd.batching import Batched  # lazy: formulas load before batching
    batched = next((t for t in tangents if isinstance(t, Batched)), None)
    if batched is not None:
        from minigrad._generated import functions  # lazy: generated code imports formulas
        columns = [via_backward(op, args, kwargs,
                                [t.value[b] if isinstance(t, Batched) else t for t in tangents])
                   for b in range(batched.value.shape[0])]
        if isinstance(columns[0], tuple):
            return tuple(Batched(functions.stack([c[i] for c in columns]))
                         for i in range(len(columns[0])))
        return Batched(functions.stack(columns))
    return _transposed(op, args, kwargs, tangents)


def _transposed(op, args, kwargs, tangents):
    from minigrad.autograd import grad_mode  # lazy: generated code imports the formulas
    from minigrad.autograd.api import grad  # lazy: the engine imports the formulas
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    differentiable = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    positions = [i for i, t in zip(differentiable, tangents) if t is not None]
    used = [t for t in tangents if t is not None]
    keep_graph = grad_mode.enabled
    with grad_mode.enable_grad():
        args = list(args)
        for i in positions:
            args[i] = args[i].detach().requires_grad_()
        out = op(*args, **kwargs)
        several = isinstance(out, tuple)
        every = list(out) if several else [out]
        outs = [o for o in every if o._data.dtype.kind == "f"]
        # any u works (J^T u is linear in u); ones keep log-space backwards (logcumsumexp)
        # away from their u = 0 branch
        us = [_wrap(namespace_of(o._data).ones_like(o._data)).requires_grad_() for o in outs]
        vjps = grad(outs, [args[i] for i in positions], us, create_graph=True, allow_unused=True)
        total = sum(((v * t).sum() for v, t in zip(vjps, used) if v is not None), start=0.0)
        if not isinstance(total, Tensor) or total.grad_fn is None:
            found = [None] * len(us)
        else:
            found = grad(total, us, create_graph=keep_graph, allow_unused=True)
    jvps = iter(j.detach() if j is not None and not keep_graph else
                j if j is not None else _wrap(namespace_of(u._data).zeros_like(u._data)) for j, u in zip(found, us))
    jvps = [next(jvps) if o._data.dtype.kind == "f" else None for o in every]
    return tuple(jvps) if several else jvps[0]


def pick(values, which):
    """The outputs ``which`` (an index or a list of them) of a tuple of tangents."""
    if isinstance(which, int):
        return values[which]
    return tuple(values[i] for i in which)


def solve_jvp_rhs(A_t, X, left):
    """A_t X (left) or X A_t (right) for linalg_solve's forward derivative, where X may be a
    (batch of) vector(s) as linalg.solve's B may be."""
    F = ops_for(X)
    if X.ndim == A_t.ndim - 1:  # vectors: A_t x
        return F.squeeze(F.matmul(A_t, F.unsqueeze(X, -1)), [-1])
    return F.matmul(A_t, X) if left else F.matmul(X, A_t)


# ------------------------------------------------------------------ linear algebra
def matrix_power_jvp(A, A_t, n):
    """d(A^n) = dA A^(n-1) + A d(A^(n-1)); negative n through inv(A), whose tangent is
    -inv(A) dA inv(A)."""
    F = ops_for(A_t)
    if n == 0:
        return A_t * 0.0
    if n < 0:
        M = F.linalg_inv(A)
        return matrix_power_jvp(M, -F.matmul(M, F.matmul(A_t, M)), -n)
    tangent, power = A_t, A
    for _ in range(n - 1):
        tangent = F.matmul(A_t, power) + F.matmul(A, tangent)
        power = F.matmul(A, power)
    return tangent


def triangular_part(A_t, upper, unitriangular):
    """The part of a tangent that linalg.solve_triangular reads (a unit diagonal is fixed)."""
    F = ops_for(A_t)
    if upper:
        return F.triu(A_t, 1 if unitriangular else 0)
    return F.tril(A_t, -1 if unitriangular else 0)


def cholesky_jvp(A_t, result, upper):
    """dL = L phi(L^-1 dA L^-T), phi: the lower triangle with the diagonal halved (PyTorch's
    cholesky_jvp); for upper=True the result is L^T."""
    F = ops_for(A_t)
    L = mT(result) if upper else result
    inner = F.linalg_solve_triangular(L, mT(F.linalg_solve_triangular(L, A_t, upper=False)),
                                      upper=False)
    phi = F.tril(inner, -1) + 0.5 * F.diag_embed(F.diagonal(inner, 0, -2, -1))
    tangent = F.matmul(L, phi)
    return mT(tangent) if upper else tangent


def eigh_jvp(A_t, values, vectors):
    """(dL, dV) of a symmetric eigendecomposition: dL = diag(V^T dA V), dV = V (V^T dA V / E)
    with E_ij = L_j - L_i off the diagonal and 0 on it (PyTorch's linalg_eig_jvp)."""
    F = ops_for(A_t)
    inner = F.matmul(mT(vectors), F.matmul(A_t, vectors))
    n = values.shape[-1]
    eye = _eye_like(values, n)
    gaps = F.unsqueeze(values, -2) - F.unsqueeze(values, -1) + eye
    return F.diagonal(inner, 0, -2, -1), F.matmul(vectors, inner * (1.0 - eye) / gaps)


def eigvalsh_jvp(A_t, A, UPLO):
    F = ops_for(A_t)
    _, V = F.linalg_eigh(A, UPLO)
    return F.diagonal(F.matmul(mT(V), F.matmul(A_t, V)), 0, -2, -1)


# ------------------------------------------------------------------ normalization
def _trailing(x, normalized_shape):
    """The trailing dims ``normalized_shape`` (an int or a list, as torch) covers, counted
    from the end (so a leading batch of tangents does not move them)."""
    count = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    return tuple(range(-count, 0))


def _normalized_jvp(x, t, dims, eps):
    """The tangent of xhat = (x - mean) / sqrt(var + eps) over ``dims``:
    rstd (t' - xhat mean(xhat t')) with t' = t - mean(t)."""
    F = ops_for(t)
    centered = x - F.mean(x, dims, True)
    rstd = 1.0 / F.sqrt(F.mean(centered * centered, dims, True) + eps)
    xhat = centered * rstd
    t = t - F.mean(t, dims, True)
    return rstd * (t - xhat * F.mean(xhat * t, dims, True))


def layer_norm_input_jvp(input_t, input, normalized_shape, weight, eps):
    tangent = _normalized_jvp(input, input_t, _trailing(input, normalized_shape), eps)
    return tangent if weight is None else tangent * weight


def channel_view(v, ndim):
    """A per-channel (C,) vector shaped to broadcast along dim 1 of an (N, C, ...) input."""
    if v is None:
        return None
    return ops_for(v).reshape(v, (v.shape[0],) + (1,) * (ndim - 2))


def batch_norm_input_jvp(input_t, input, weight, eps):
    # every dim but the channel dim, counted from the end (a batch of tangents leads)
    dims = (-input.ndim,) + tuple(range(2 - input.ndim, 0))
    tangent = _normalized_jvp(input, input_t, dims, eps)
    return tangent if weight is None else tangent * channel_view(weight, input.ndim)


def group_norm_input_jvp(input_t, input, num_groups, weight, eps):
    F = ops_for(input_t)
    grouped = (input.shape[0], num_groups, -1)
    tangent = F.reshape(_normalized_jvp(F.reshape(input, grouped), F.reshape(input_t, grouped),
                                        (2,), eps), tuple(input.shape))
    return tangent if weight is None else tangent * channel_view(weight, input.ndim)


def rms_norm_input_jvp(input_t, input, normalized_shape, weight, eps):
    """y = x rrms w, rrms = 1 / sqrt(mean(x^2) + eps): dy = rrms (t - x rrms^2 mean(x t)) w."""
    F = ops_for(input_t)
    if eps is None:
        eps = float(np.finfo(input.dtype).eps)
    dims = _trailing(input, normalized_shape)
    rrms = 1.0 / F.sqrt(F.mean(input * input, dims, True) + eps)
    tangent = rrms * (input_t - input * rrms * rrms * F.mean(input * input_t, dims, True))
    return tangent if weight is None else tangent * weight


def svdvals_jvp(A_t, A):
    """dS = diag(U^T dA V) with the reduced SVD (singular values distinct)."""
    F = ops_for(A_t)
    U, _, Vh = F.linalg_svd(A, False)
    return F.diagonal(F.matmul(mT(U), F.matmul(A_t, mT(Vh))), 0, -2, -1)


def pinv_jvp(A, pinvA, A_t):
    """PyTorch's pinv_jvp (real case), choosing the products of the smallest size."""
    F = ops_for(A_t)
    m, n = A.shape[-2], A.shape[-1]
    dAh, pinvAh = mT(A_t), mT(pinvA)
    if m <= n:
        K = F.matmul(pinvAh, dAh)
        return (F.matmul(pinvA, K - mT(K) - F.matmul(K, F.matmul(A, pinvA)))
                + F.matmul(dAh - F.matmul(pinvA, F.matmul(A, dAh)), F.matmul(pinvAh, pinvA)))
    K = F.matmul(pinvA, A_t)
    Kh = mT(K)
    return (F.matmul(Kh - K - F.matmul(F.matmul(pinvA, A), Kh), pinvA)
            + F.matmul(F.matmul(pinvA, pinvAh), dAh - F.matmul(F.matmul(dAh, A), pinvA)))


def cumprod_jvp(self_t, self, result, dim):
    """PyTorch's cumprod_jvp: cumsum(t / x) * result where no zero came yet; from the first
    zero of each line on, the cumprod of x with t in place of that zero (then 0 after a
    second zero)."""
    F = ops_for(self_t)
    data = self._data if isinstance(self, _tensor.Tensor) else np.asarray(self)
    zeros = data == 0
    if data.ndim == 0:
        return F.where(zeros, self_t, self_t / self * result)
    first_zero = zeros & (np.cumsum(zeros, axis=dim) == 1)
    after_first = np.cumsum(first_zero, axis=dim) > 0
    safe = F.where(zeros, 1.0, self)
    generic = F.cumsum(F.where(zeros, 0.0, self_t / safe), dim) * result
    replaced = F.cumprod(F.where(first_zero, self_t, self), dim)
    return F.where(after_first, replaced, generic)


def sum_over_classes(x, result):
    """``x`` (shaped like cross_entropy's input) summed down to the loss ``result``: over the
    class dim for reduction='none', over everything for a scalar loss."""
    F = ops_for(x)
    if result.ndim == 0:
        return F.sum(x)
    return F.sum(x, 1)


def _eye_like(values, n):
    eye = namespace_of(getattr(values, "_data", values)).eye(n, dtype=values.dtype)
    return _tensor._wrap(eye) if isinstance(values, _tensor.Tensor) else eye


def svd_jvp(A_t, U, S, Vh, full_matrices):
    """(dU, dS, dVh) of A = U diag(S) Vh (PyTorch's linalg_svd_jvp, real case): with
    dP = U^T dA V, dS = diag(dP), dU = U (sym(dP S) / E) + (I - U U^T) dA V S^-1 and
    dVh = -(sym(S dP) / E) Vh + S^-1 U^T dA (I - V Vh), E_ij = S_j^2 - S_i^2 off the diagonal."""
    F = ops_for(A_t)
    m, n, k = A_t.shape[-2], A_t.shape[-1], S.shape[-1]
    if full_matrices and m != n:
        raise RuntimeError("linalg.svd: forward-mode AD with full_matrices=True needs a square "
                           "matrix (the extra singular vectors are not unique); use "
                           "full_matrices=False")
    V = mT(Vh)
    dP = F.matmul(mT(U), F.matmul(A_t, V))
    dS = F.diagonal(dP, 0, -2, -1)
    eye = _eye_like(S, k)
    S2 = S * S
    E = F.unsqueeze(S2, -2) - F.unsqueeze(S2, -1) + eye
    off = 1.0 - eye
    dU_inner = dP * F.unsqueeze(S, -2)
    dU = F.matmul(U, (dU_inner + mT(dU_inner)) / E * off)
    if m > k:
        dAV = F.matmul(A_t, V)
        dU = dU + (dAV - F.matmul(U, F.matmul(mT(U), dAV))) / F.unsqueeze(S, -2)
    dVh_inner = dP * F.unsqueeze(S, -1)
    dVh = -F.matmul((dVh_inner + mT(dVh_inner)) / E * off, Vh)
    if n > k:
        UtdA = F.matmul(mT(U), A_t)
        dVh = dVh + (UtdA - F.matmul(F.matmul(UtdA, V), Vh)) / F.unsqueeze(S, -1)
    return dU, dS, dVh


def torch_svd_jvp(self_t, self, U, S, V, some, compute_uv):
    """torch.svd's outputs (U, S, V); without compute_uv, U and V are zeros (constant)."""
    F = ops_for(self_t)
    if not compute_uv:
        U_, _, Vh_ = F.linalg_svd(self, False)
        dS = F.diagonal(F.matmul(mT(U_), F.matmul(self_t, mT(Vh_))), 0, -2, -1)
        return U * 0.0, dS, V * 0.0
    dU, dS, dVh = svd_jvp(self_t, U, S, mT(V), not some)
    return dU, dS, mT(dVh)


def qr_jvp(A_t, Q, R, mode):
    """(dQ, dR) of A = QR (PyTorch's linalg_qr_jvp): for m >= n, with X = Q^T dA R^-1,
    dR = syminv(X + X^T) R and dQ = dA R^-1 - Q syminv(X + X^T), syminv taking the upper
    triangle with the diagonal halved; for m < n through the first m columns."""
    F = ops_for(A_t)
    m, n = A_t.shape[-2], A_t.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    if m >= n:
        dARinv = F.linalg_solve_triangular(R, A_t, upper=True, left=False)
        X = F.matmul(mT(Q), dARinv)
        sym = X + mT(X)
        inner = F.triu(sym, 1) + 0.5 * F.diag_embed(F.diagonal(sym, 0, -2, -1))
        return dARinv - F.matmul(Q, inner), F.matmul(inner, R)
    dQ, dR1 = qr_jvp(F.narrow(A_t, -1, 0, m), Q, F.narrow(R, -1, 0, m), mode)
    dR2 = F.matmul(mT(Q), F.narrow(A_t, -1, m, n - m) - F.matmul(dQ, F.narrow(R, -1, m, n - m)))
    return dQ, F.cat([dR1, dR2], -1)


def logcumsumexp_jvp(self_t, self, result, dim):
    """sum_{j <= i} t_j exp(x_j - r_i), with the positive and negative parts of t carried in
    log space by logcumsumexp (as its backward does), so nothing over- or underflows."""
    F = ops_for(self_t)
    if self.ndim == 0:
        return self_t * 1.0
    lowest = float(np.finfo(np.result_type(self.dtype, np.float32)).min) / 8
    log_abs = F.log(F.where(self_t == 0, 1.0, F.abs(self_t)))
    positive = F.where(self_t > 0, log_abs, lowest)
    negative = F.where(self_t < 0, log_abs, lowest)
    return (F.exp(F.logcumsumexp(positive + self, dim) - result)
            - F.exp(F.logcumsumexp(negative + self, dim) - result))
