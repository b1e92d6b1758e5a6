"""Formula helpers for the linalg ops (see formulas/__init__.py for the rules).

Every helper computes through ``F = ops_for(x)``, so under create_graph the
backward is itself recorded and differentiable (second order).  Constants
(identity matrices, masks) are built with the gradient's dtype so float32 stays
float32.  The matrix-function backwards follow PyTorch's FunctionsManual.cpp
(real case): inv, det, solve, cholesky, eigh, qr, svd, pinv, norms.
"""
import string

import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd.formulas.core import (array_of, normalize_dims, ops_for, reduced_shape,
                                             sum_to, values_of)
from minigrad.autograd.formulas.reductions import finite_norm_grad
from minigrad.kernels.linalg import matrix_dims, norm_kind, solve_is_vector
from minigrad import _tensor  # a module: read at call time (import cycle)


# ------------------------------------------------------------------ small pieces
def _constant(like, array):
    """``array`` as a constant of ``like``'s kind, dtype and device: records no graph."""
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    array = _xp(like).asarray(array, dtype=like.dtype)
    return _wrap(array) if isinstance(like, Tensor) else array


def _xp(like):
    """The array library of a Tensor's or an array's values."""
    return namespace_of(array_of(like))


def mT(x):
    """The transpose of the last two dims (``x.mT`` in torch)."""
    return ops_for(x).transpose(x, -2, -1)


def _eye(like, n, m=None):
    return _constant(like, _xp(like).eye(n, n if m is None else m))


def _diag_embed(x):
    """A batch of diagonal matrices with ``x``'s last dim on the diagonal."""
    F = ops_for(x)
    n = x.shape[-1]
    return F.unsqueeze(x, -1) * _eye(x, n)


def _tril(x, k=0):
    """Lower triangle (below diagonal ``k``) as a product with a constant mask."""
    n, m = x.shape[-2:]
    return x * _constant(x, _xp(x).tri(n, m, k))


def _cols(x, start, stop):
    return ops_for(x).getitem(x, (Ellipsis, slice(None), slice(start, stop)))


def _rows(x, start, stop):
    return ops_for(x).getitem(x, (Ellipsis, slice(start, stop), slice(None)))


def _mat_scalar(x):
    """A batch of scalars shaped to broadcast against a batch of matrices."""
    F = ops_for(x)
    return F.unsqueeze(F.unsqueeze(x, -1), -1)


# ------------------------------------------------------------------ products
def tensordot_grad_self(grad, other, self_ndim, dims_self, dims_other):
    """d tensordot / d self: contract the gradient with ``other``'s free dims."""
    F = ops_for(grad)
    ds = [d % self_ndim for d in dims_self]
    do = [d % other.ndim for d in dims_other]
    free_s = [d for d in range(self_ndim) if d not in ds]
    free_o = [d for d in range(other.ndim) if d not in do]
    g = F.tensordot(grad, other, list(range(len(free_s), grad.ndim)), free_o)
    # g's axes: self's free dims, then other's contracted dims in increasing order
    order = sorted(do)
    perm = [0] * self_ndim
    for i, d in enumerate(free_s):
        perm[d] = i
    for k, d in enumerate(ds):
        perm[d] = len(free_s) + order.index(do[k])
    return F.permute(g, perm)


def tensordot_grad_other(grad, self, other_ndim, dims_self, dims_other):
    """d tensordot / d other, the mirror of ``tensordot_grad_self``."""
    F = ops_for(grad)
    ds = [d % self.ndim for d in dims_self]
    do = [d % other_ndim for d in dims_other]
    free_s = [d for d in range(self.ndim) if d not in ds]
    free_o = [d for d in range(other_ndim) if d not in do]
    g = F.tensordot(self, grad, free_s, list(range(len(free_s))))
    # g's axes: self's contracted dims in increasing order, then other's free dims
    order = sorted(ds)
    perm = [0] * other_ndim
    for k, d in enumerate(do):
        perm[d] = order.index(ds[k])
    for i, d in enumerate(free_o):
        perm[d] = len(ds) + i
    return F.permute(g, perm)


def inner_grad_self(grad, self_shape, other):
    """d inner(self, other) / d self (a 0-d operand makes inner a product)."""
    if len(self_shape) == 0 or other.ndim == 0:
        return sum_to(grad * other, self_shape)
    return tensordot_grad_self(grad, other, len(self_shape), [-1], [-1])


def inner_grad_other(grad, self, other_shape):
    if self.ndim == 0 or len(other_shape) == 0:
        return sum_to(grad * self, other_shape)
    return tensordot_grad_other(grad, self, len(other_shape), [-1], [-1])


def _einsum_parse(equation, shapes):
    """Explicit subscripts per operand and for the output; ellipses become letters.

    An ellipsis dim of size 1 that broadcasts against a larger one gets a letter of
    its own (summed over a size-1 dim: the same value), so every letter has one size.
    """
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise RuntimeError(f"einsum(): the equation '{equation}' names {len(ins)} operands but "
                           f"{len(shapes)} were given")
    fresh = iter([c for c in string.ascii_letters if c not in eq])
    lengths = [len(shape) - len(sub.replace("...", "")) for sub, shape in zip(ins, shapes)]
    ell_nd = max([k for sub, k in zip(ins, lengths) if "..." in sub], default=0)
    ell = [next(fresh) for _ in range(ell_nd)]
    ell_shapes = [tuple(shape[len(sub.split("...")[0]):][:k])
                  for sub, shape, k in zip(ins, shapes, lengths) if "..." in sub]
    broadcast = np.broadcast_shapes(*ell_shapes) if ell_shapes else ()
    explicit = []
    for sub, shape, k in zip(ins, shapes, lengths):
        if "..." in sub:
            pre, post = sub.split("...")
            letters = ""
            for j in range(k):
                full = ell_nd - k + j
                size = shape[len(pre) + j]
                letters += next(fresh) if size == 1 and broadcast[full] != 1 else ell[full]
            sub = pre + letters + post
        explicit.append(sub)
    if not arrow:
        plain = lhs.replace("...", "").replace(",", "")
        out = "".join(ell) + "".join(sorted(c for c in set(plain) if plain.count(c) == 1))
    else:
        out = out.replace("...", "".join(ell))
    return explicit, out, fresh


def einsum_backward(grad, equation, tensors):
    """One gradient per operand: einsum of the gradient with the other operands.

    A repeated index in an operand (a diagonal, as in 'ii->i') is routed through an
    identity matrix, and an index only that operand has (summed away) is broadcast
    back by a vector of ones.
    """
    F = ops_for(grad)
    ins, out, fresh = _einsum_parse(equation, [t.shape for t in tensors])
    sizes = {}
    for sub, t in zip(ins, tensors):
        for c, n in zip(sub, t.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    grads = []
    for i, sub in enumerate(ins):
        target, subs, operands = [], [out] + [s for j, s in enumerate(ins) if j != i], \
            [grad] + [t for j, t in enumerate(tensors) if j != i]
        for c in sub:
            if c in target:
                new = next(fresh)
                subs.append(c + new)
                operands.append(_eye(grad, sizes[c]))
                target.append(new)
            else:
                target.append(c)
        available = set("".join(subs))
        for c in dict.fromkeys(target):
            if c not in available:
                subs.append(c)
                operands.append(_constant(grad, _xp(grad).ones(tensors[i].shape[target.index(c)])))
        grads.append(F.einsum(",".join(subs) + "->" + "".join(target), operands))
    return grads


def _kron_shapes(a_shape, b_shape):
    n = max(len(a_shape), len(b_shape))
    a = (1,) * (n - len(a_shape)) + tuple(a_shape)
    b = (1,) * (n - len(b_shape)) + tuple(b_shape)
    interleaved = tuple(x for pair in zip(a, b) for x in pair)
    return a, b, interleaved


def kron_grad_self(grad, self_shape, other):
    """d kron(self, other) / d self: the gradient blocks, each weighted by ``other``."""
    F = ops_for(grad)
    a, b, interleaved = _kron_shapes(self_shape, other.shape)
    g = F.reshape(grad, interleaved)
    weights = F.reshape(other, tuple(x for n in b for x in (1, n)))
    summed = F.sum(g * weights, list(range(1, 2 * len(a), 2)))
    return F.reshape(summed, self_shape)


def kron_grad_other(grad, self, other_shape):
    F = ops_for(grad)
    a, b, interleaved = _kron_shapes(self.shape, other_shape)
    g = F.reshape(grad, interleaved)
    weights = F.reshape(self, tuple(x for n in a for x in (n, 1)))
    summed = F.sum(g * weights, list(range(0, 2 * len(a), 2)))
    return F.reshape(summed, other_shape)


def vecdot_grad(grad, other, dim, shape):
    """d vecdot(x, y) / dx = grad * y along ``dim``, summed over broadcast dims."""
    F = ops_for(grad)
    return sum_to(F.unsqueeze(grad, dim % (grad.ndim + 1)) * other, shape)


def multi_dot_backward(grad, tensors):
    """linalg.multi_dot: operand i gets (A_0..A_{i-1})^T G (A_{i+1}..A_k)^T."""
    F = ops_for(grad)
    mats = list(tensors)
    first_vector, last_vector = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vector:
        mats[0] = F.unsqueeze(mats[0], 0)
    if last_vector:
        mats[-1] = F.unsqueeze(mats[-1], -1)
    g = grad
    if first_vector:
        g = F.unsqueeze(g, 0)
    if last_vector:
        g = F.unsqueeze(g, -1)
    grads = []
    for i, t in enumerate(tensors):
        gi = g
        if i > 0:
            prefix = mats[0]
            for m in mats[1:i]:
                prefix = F.matmul(prefix, m)
            gi = F.matmul(mT(prefix), gi)
        if i < len(mats) - 1:
            suffix = mats[i + 1]
            for m in mats[i + 2:]:
                suffix = F.matmul(suffix, m)
            gi = F.matmul(gi, mT(suffix))
        grads.append(F.reshape(gi, t.shape))
    return grads


def matrix_power_backward(grad, A, n):
    """d A^n / dA = sum_k (A^T)^k G (A^T)^(n-1-k); negative n goes through the inverse."""
    F = ops_for(grad)
    if n == 0:
        return F.zeros_like(A) * grad
    base = A if n > 0 else F.linalg_inv(A)
    k = abs(n)
    powers = [None] * k            # powers[j] = base^j (None for the identity)
    for j in range(1, k):
        powers[j] = base if j == 1 else F.matmul(powers[j - 1], base)
    total = None
    for j in range(k):
        term = grad if powers[j] is None else F.matmul(mT(powers[j]), grad)
        if powers[k - 1 - j] is not None:
            term = F.matmul(term, mT(powers[k - 1 - j]))
        total = term if total is None else total + term
    if n > 0:
        return total
    return -F.matmul(mT(base), F.matmul(total, mT(base)))


def trace_backward(grad, shape):
    """d trace / d self: the gradient on the diagonal."""
    return grad * _eye(grad, shape[0], shape[1])


# ------------------------------------------------------------------ matrix functions
def det_backward(grad, A, det):
    """d det(A) / dA: the cofactor matrix, det(A) A^{-T} when A is invertible.

    For a singular A (as PyTorch) it comes from the SVD A = U S Vh:
    cofactor(A) = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh.
    """
    F = ops_for(grad)
    if _invertible(A, det):
        return _mat_scalar(grad * det) * mT(F.linalg_inv(A))
    U, S, Vh = F.linalg_svd(A, False)
    n = S.shape[-1]
    column = [F.getitem(S, (Ellipsis, j)) for j in range(n)]
    others = []
    for i in range(n):
        product = None
        for j in range(n):
            if j != i:
                product = column[j] if product is None else product * column[j]
        others.append(product if product is not None else _constant(S, _xp(S).ones(S.shape[:-1])))
    data_U, data_Vh = _data(U), _data(Vh)
    xp = namespace_of(data_U)
    sign = _constant(S, xp.linalg.det(data_U) * xp.linalg.det(data_Vh))
    cofactor = F.matmul(U * F.unsqueeze(F.stack(others, -1) * F.unsqueeze(sign, -1), -2), Vh)
    return _mat_scalar(grad) * cofactor


def _data(x):
    """The values of a Tensor read in Python (``values_of``), or the array itself."""
    return values_of(x)


def _invertible(A, det):
    """Whether A (every matrix of a batch) is invertible in floating point: LU meets no zero
    pivot (as PyTorch decides), and |det A| is above rounding against Hadamard's bound
    (|det A| <= the product of its rows' norms).  The second test catches an exactly
    singular matrix whose LU rounds past the zero pivot, as cuSOLVER's does; there the
    inverse is noise of size 1/eps, and so is its derivative."""
    data = _data(A)
    xp = namespace_of(data)
    n = data.shape[-1]
    bound = xp.prod(xp.sqrt(xp.sum(data * data, axis=-1)), axis=-1)
    if bool(xp.any(xp.abs(_data(det)) <= n * xp.finfo(data.dtype).eps * bound)):
        return False
    try:  # CuPy's inv of a singular matrix gives infinities rather than raising
        return bool(xp.all(xp.isfinite(xp.linalg.inv(data))))
    except np.linalg.LinAlgError:
        return False


def logabsdet_backward(grad, A):
    """d log|det A| / dA = A^{-T}."""
    F = ops_for(grad)
    return _mat_scalar(grad) * mT(F.linalg_inv(A))


def solve_grad_B(grad, A, B_shape, left):
    """linalg.solve: gB solves the transposed system."""
    F = ops_for(grad)
    return sum_to(F.linalg_solve(mT(A), grad, left=left), B_shape)


def solve_grad_A(grad, A, result, B_shape, left):
    """linalg.solve: gA = -gB X^T (left) or -X^T gB (right), summed over broadcast batches."""
    F = ops_for(grad)
    gB = F.linalg_solve(mT(A), grad, left=left)
    if solve_is_vector(A.shape, B_shape):
        outer = (F.unsqueeze(gB, -1) * F.unsqueeze(result, -2) if left
                 else F.unsqueeze(result, -1) * F.unsqueeze(gB, -2))
        return sum_to(-outer, A.shape)
    if left:
        return sum_to(-F.matmul(gB, mT(result)), A.shape)
    return sum_to(-F.matmul(mT(result), gB), A.shape)


def cholesky_backward(grad, L, upper):
    """PyTorch's cholesky_backward: L^{-T} Phi(L^T gL) L^{-1}, symmetrized."""
    F = ops_for(grad)
    if upper:
        L, grad = mT(L), mT(grad)
    gA = _tril(F.matmul(mT(L), grad))
    gA = 0.5 * (gA + mT(_tril(gA, -1)))
    gA = F.linalg_solve_triangular(mT(L), gA, upper=True)
    return F.linalg_solve_triangular(L, gA, upper=False, left=False)


def solve_triangular_grad_B(grad, A, B_shape, upper, left, unitriangular):
    """linalg.solve_triangular: gB solves the transposed (other-triangle) system."""
    F = ops_for(grad)
    gB = F.linalg_solve_triangular(mT(A), grad, upper=not upper, left=left,
                                   unitriangular=unitriangular)
    return sum_to(gB, B_shape)


def solve_triangular_grad_A(grad, A, result, upper, left, unitriangular):
    """linalg.solve_triangular: -gB X^T (or -X^T gB) on the triangle A's solve reads."""
    F = ops_for(grad)
    gB = F.linalg_solve_triangular(mT(A), grad, upper=not upper, left=left,
                                   unitriangular=unitriangular)
    gA = -F.matmul(gB, mT(result)) if left else -F.matmul(mT(result), gB)
    offset = 1 if unitriangular else 0
    gA = mT(_tril(mT(gA), -offset)) if upper else _tril(gA, -offset)
    return sum_to(gA, A.shape)


def eigh_backward(grad_values, grad_vectors, values, vectors):
    """PyTorch's linalg_eig_backward, Hermitian case: V (diag(gL) + skew(V^T gV)/E) V^T."""
    F = ops_for(values)
    n = values.shape[-1]
    E = F.unsqueeze(values, -2) - F.unsqueeze(values, -1) + _eye(values, n)
    VtgV = F.matmul(mT(vectors), grad_vectors)
    inner = 0.5 * (VtgV - mT(VtgV)) / E + _diag_embed(grad_values)
    return F.matmul(vectors, F.matmul(inner, mT(vectors)))


def eigvalsh_backward(grad, A, UPLO):
    """d eigvalsh / dA = V diag(g) V^T, through eigh (so it differentiates again)."""
    F = ops_for(grad)
    _, V = F.linalg_eigh(A, UPLO)
    return F.matmul(V * F.unsqueeze(grad, -2), mT(V))


def svdvals_backward(grad, A):
    """d svdvals / dA = U diag(g) Vh, through the reduced SVD."""
    F = ops_for(grad)
    U, _, Vh = F.linalg_svd(A, False)
    return F.matmul(U * F.unsqueeze(grad, -2), Vh)


def qr_backward(grad_Q, grad_R, Q, R, mode):
    """PyTorch's linalg_qr_backward (real case), for m >= n and for m < n."""
    F = ops_for(R)
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols. Use mode='reduced'.")
    if m >= n:
        return _qr_backward_tall(grad_Q, grad_R, Q, R)
    # A = Q [X | Y], X square: Y = Q R_Y contributes through gQ, then the square case
    R_X, R_Y = _cols(R, 0, m), _cols(R, m, n)
    grad_RX, grad_RY = _cols(grad_R, 0, m), _cols(grad_R, m, n)
    A_Y = F.matmul(Q, R_Y)
    grad_X = _qr_backward_tall(grad_Q + F.matmul(A_Y, mT(grad_RY)), grad_RX, Q, R_X)
    return F.cat([grad_X, F.matmul(Q, grad_RY)], -1)


def _qr_backward_tall(grad_Q, grad_R, Q, R):
    # gA = (gQ + Q copyltu(M)) R^{-T},  M = R gR^T - gQ^T Q
    F = ops_for(R)
    M = F.matmul(R, mT(grad_R)) - F.matmul(mT(grad_Q), Q)
    M = _tril(M) + mT(_tril(M, -1))
    B = grad_Q + F.matmul(Q, M)
    return F.linalg_solve(mT(R), B, left=False)


def svd_backward(grad_U, grad_S, grad_Vh, U, S, Vh, full_matrices):
    """PyTorch's svd_backward (real case).

    With full_matrices=True, the extra columns of U (rows of Vh) are an arbitrary basis
    of a subspace: their gradients are ignored, as in PyTorch.
    """
    F = ops_for(S)
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    if full_matrices and m != n:
        U, grad_U = _cols(U, 0, k), _cols(grad_U, 0, k)
        Vh, grad_Vh = _rows(Vh, 0, k), _rows(grad_Vh, 0, k)
    UtgU = F.matmul(mT(U), grad_U)
    VtgV = F.matmul(Vh, mT(grad_Vh))
    UtgU = UtgU - mT(UtgU)
    VtgV = VtgV - mT(VtgV)
    S2 = S * S
    E = F.unsqueeze(S2, -2) - F.unsqueeze(S2, -1) + _eye(S, k)
    gA = (UtgU * F.unsqueeze(S, -2) + F.unsqueeze(S, -1) * VtgV) / E + _diag_embed(grad_S)
    if m > n:
        gA = F.matmul(U, gA)
        gUSinv = grad_U / F.unsqueeze(S, -2)
        gA = gA + gUSinv - F.matmul(U, F.matmul(mT(U), gUSinv))
        return F.matmul(gA, Vh)
    if m < n:
        gA = F.matmul(gA, Vh)
        SinvgVh = grad_Vh / F.unsqueeze(S, -1)
        gA = gA + SinvgVh - F.matmul(F.matmul(SinvgVh, mT(Vh)), Vh)
        return F.matmul(U, gA)
    return F.matmul(U, F.matmul(gA, Vh))


def torch_svd_backward(grad_U, grad_S, grad_V, self, U, S, V, some, compute_uv):
    """torch.svd (U, S, V): svd_backward with Vh = V^T; through svdvals without U, V."""
    if not compute_uv:
        return svdvals_backward(grad_S, self)
    return svd_backward(grad_U, grad_S, mT(grad_V), U, S, mT(V), not some)


def qr_mode(some):
    """torch.qr's ``some`` as linalg.qr's mode."""
    return "reduced" if some else "complete"


def pinv_backward(grad, pinvA, A):
    """PyTorch's pinv_backward (full-rank A)."""
    F = ops_for(grad)
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = mT(pinvA), mT(grad)
    if m <= n:
        K = F.matmul(gradh, pinvA)
        KpinvAh = F.matmul(K, pinvAh)
        return (-mT(F.matmul(pinvA, K)) + KpinvAh
                - F.matmul(F.matmul(A, pinvA), KpinvAh)
                + F.matmul(F.matmul(pinvAh, pinvA), gradh - F.matmul(K, A)))
    K = F.matmul(pinvA, gradh)
    pinvAhK = F.matmul(pinvAh, K)
    return (-mT(F.matmul(K, pinvA))
            + F.matmul(F.matmul(gradh - F.matmul(A, K), pinvA), pinvAh)
            + pinvAhK - F.matmul(F.matmul(pinvAhK, pinvA), A))


# ------------------------------------------------------------------ norms
def _keep(x, shape, dims, keepdim):
    """A reduction's output with the reduced ``dims`` kept as size 1."""
    return x if keepdim else ops_for(x).reshape(x, reduced_shape(shape, dims))


def vector_norm_backward(grad, x, result, ord, dim, keepdim):
    """PyTorch's norm_backward for vector norms of any order."""
    F = ops_for(grad)
    dims = normalize_dims(dim, x.ndim)
    g = _keep(grad, x.shape, dims, keepdim)
    r = _keep(result, x.shape, dims, keepdim)
    if ord in (np.inf, -np.inf):
        return g * F.sign(x) * _extremum_weights(F.abs(x), r, dims)
    return finite_norm_grad(g, x, r, ord)


def _extremum_weights(values, extremum, dims):
    """1/count on the entries equal to the reduced extremum, as amax's backward."""
    F = ops_for(values)
    mask = (values == extremum) * _constant(values, 1.0)
    return mask / F.sum(mask, list(dims), True)


def matrix_norm_backward(grad, A, result, ord, dim, keepdim):
    """Frobenius, nuclear, spectral (2, -2) and max-sum (1, -1, inf, -inf) norms."""
    F = ops_for(grad)
    d0, d1 = matrix_dims(A.ndim, dim)
    g = _keep(grad, A.shape, (d0, d1), keepdim)
    r = _keep(result, A.shape, (d0, d1), keepdim)
    if ord == "fro":
        return finite_norm_grad(g, A, r, 2)  # PyTorch's 'fro' is the vector 2-norm
    if ord in (1, -1, np.inf, -np.inf):
        summed, extremal = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = F.sum(F.abs(A), [summed], True)
        return g * F.sign(A) * _extremum_weights(sums, r, [extremal])
    # nuclear and spectral norms through the SVD of the matrices moved to the last dims
    perm = [d for d in range(A.ndim) if d not in (d0, d1)] + [d0, d1]
    U, S, Vh = F.linalg_svd(F.permute(A, perm), False)
    if ord == "nuc":
        G = F.matmul(U, Vh)
    else:
        i = 0 if ord == 2 else S.shape[-1] - 1
        G = F.matmul(_cols(U, i, i + 1), _rows(Vh, i, i + 1))
    inverse = [0] * A.ndim
    for i, d in enumerate(perm):
        inverse[d] = i
    return g * F.permute(G, inverse)


def torch_norm_backward(grad, x, result, p, dim, keepdim):
    """torch.norm: a vector norm, or 'fro' (the 2-norm) or 'nuc' over a 2-tuple dim."""
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if p == "nuc":
        dims = tuple(range(x.ndim)) if dim is None else dim
        return matrix_norm_backward(grad, x, result, "nuc", dims, keepdim)
    p = 2 if p is None or p == "fro" else p
    return vector_norm_backward(grad, x, result, p, dim, keepdim)


def norm_backward(grad, x, result, ord, dim, keepdim):
    """torch.linalg.norm: a vector or a matrix norm, by ``ord`` and ``dim``."""
    kind, dims = norm_kind(x.ndim, ord, dim)
    if kind == "matrix":
        return matrix_norm_backward(grad, x, result, "fro" if ord is None else ord, dims, keepdim)
    return vector_norm_backward(grad, x, result, 2 if ord is None else ord, dims, keepdim)
