"""Building sample inputs and checking an op's gradients: what tests/generated runs.

Shipped with the package so a contributor can check an op by hand:

>>> from minigrad.testing import TensorSpec as T, check_first_order
>>> check_first_order(minigrad.mul, (0,), {"self": T([3]), "other": T([3])})
"""
import numpy as np

from minigrad.autograd.functional import grad as autograd_grad
from minigrad.autograd.gradcheck import gradcheck, gradgradcheck
from minigrad._tensor import Tensor, _wrap


class TensorSpec:
    """How to build one sample tensor (see SAMPLES in derivatives.yaml's header)."""

    def __init__(self, shape=(3, 4), domain=(-2.0, 2.0), dtype="float64", values=None,
                 high=None, distinct=False, noncontiguous=False, requires_grad=True,
                 spectrum=None, symmetric=False):
        self.shape, self.domain, self.dtype = tuple(shape), tuple(domain), np.dtype(dtype)
        self.values, self.high, self.distinct = values, high, distinct
        self.noncontiguous, self.requires_grad = noncontiguous, requires_grad
        self.spectrum, self.symmetric = spectrum, symmetric

    def __repr__(self):
        return f"T({list(self.shape)}, dtype={self.dtype.name})"

    def build(self, rng):
        array = self._values(rng)
        if self.noncontiguous:
            array = _noncontiguous_copy(array)
        differentiable = self.dtype.kind == "f" and self.requires_grad
        return Tensor(array).requires_grad_() if differentiable else _wrap(array)

    def _values(self, rng):
        if self.spectrum is not None:
            matrices = _matrix_with_spectrum(self.shape, self.spectrum, self.symmetric, rng)
            return matrices.astype(self.dtype)
        if self.symmetric:
            values = self._plain_values(rng)
            return ((values + np.swapaxes(values, -1, -2)) / 2).astype(self.dtype)
        return self._plain_values(rng)

    def _plain_values(self, rng):
        if self.values is not None:
            return np.array(self.values, dtype=self.dtype)
        if self.dtype.kind == "b":
            return rng.random(self.shape) < 0.5
        if self.dtype.kind in "iu":
            return rng.integers(0, self.high or 5, self.shape).astype(self.dtype)
        lo, hi = self.domain
        if self.distinct:
            # a shuffled grid: pairwise gaps of at least 0.1 keep ties and kinks away
            n = int(np.prod(self.shape))
            grid = lo + (hi - lo) * (np.arange(n) + 0.5) / max(n, 1)
            return rng.permutation(grid).reshape(self.shape).astype(self.dtype)
        return rng.uniform(lo, hi, self.shape).astype(self.dtype)


def _matrix_with_spectrum(shape, spectrum, symmetric, rng):
    """Matrices Q1 diag(spectrum) Q2^T with random orthogonal Q1, Q2 (Q2 = Q1 if symmetric).

    So the singular values (or, symmetric, the eigenvalues) are exactly ``spectrum``:
    well-conditioned, distinct, away from zero -- what matrix-function gradients need.
    """
    if len(shape) < 2:
        raise ValueError(f"spectrum needs a matrix shape, got {list(shape)}")
    *batch, m, n = shape
    k = min(m, n)
    s = np.asarray(spectrum, dtype=np.float64)
    if s.shape != (k,) or (symmetric and m != n):
        raise ValueError(f"spectrum must list min(m, n) = {k} values for shape {list(shape)}"
                         f"{' (and symmetric needs square matrices)' if symmetric else ''}")
    q1 = np.linalg.qr(rng.standard_normal((*batch, m, m)))[0][..., :, :k]
    q2 = q1 if symmetric else np.linalg.qr(rng.standard_normal((*batch, n, n)))[0][..., :, :k]
    out = np.matmul(q1 * s, np.swapaxes(q2, -1, -2))
    return (out + np.swapaxes(out, -1, -2)) / 2 if symmetric else out


def _noncontiguous_copy(array):
    """The same values, laid out so the array is a strided view, not contiguous."""
    if array.ndim == 0:
        return array
    wide = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), dtype=array.dtype)
    view = wide[..., ::2]
    view[...] = array
    return view


def call_op(op, kwargs):
    """``op(**kwargs)`` with the schema's argument names: ``self`` is passed as ``input``,
    the name torch's (and minigrad's) Python functions give it."""
    if "self" in kwargs:
        kwargs = dict(kwargs)
        kwargs["input"] = kwargs.pop("self")
    return op(**kwargs)


def build_sample(sample, seed=0):
    """Turn a sample description into keyword arguments with fresh tensors."""
    rng = np.random.default_rng(seed)

    def make(value):
        if isinstance(value, TensorSpec):
            return value.build(rng)
        if isinstance(value, list) and value and isinstance(value[0], TensorSpec):
            return [v.build(rng) for v in value]
        return value
    return {name: make(value) for name, value in sample.items()}


def _differentiable_leaves(kwargs):
    leaves = []
    for value in kwargs.values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, Tensor) and v.requires_grad:
                leaves.append(v)
    return leaves


def _symmetrized(sample, kwargs):
    """ids of the built tensors whose spec says ``symmetric``.

    An op on symmetric matrices (eigh, cholesky) reads one triangle; its gradient, as in
    PyTorch, is the symmetric one.  Checked like PyTorch does: the op sees (X + X^T) / 2.
    """
    ids = set()
    for name, spec in sample.items():
        specs, values = (spec, kwargs[name]) if isinstance(spec, list) else ([spec], [kwargs[name]])
        for s, v in zip(specs, values):
            if isinstance(s, TensorSpec) and s.symmetric and s.dtype.kind == "f":
                ids.add(id(v))
    return ids


def _symmetrize(x):
    return (x + x.transpose(-2, -1)) * 0.5


def _as_positional(op, outputs, kwargs, sample=None):
    """``fn(*leaves)`` calling ``op(**kwargs)`` with the leaves substituted, and the leaves."""
    leaves = _differentiable_leaves(kwargs)
    symmetric = _symmetrized(sample, kwargs) if sample else set()

    def fn(*new_leaves):
        swap = {id(old): (_symmetrize(new) if id(old) in symmetric else new)
                for old, new in zip(leaves, new_leaves)}
        call = {k: ([swap.get(id(x), x) for x in v] if isinstance(v, list) else swap.get(id(v), v))
                for k, v in kwargs.items()}
        out = call_op(op, call)
        outs = (out,) if isinstance(out, Tensor) else tuple(out)
        if outputs is None:  # a Tensor[] output: every piece
            return outs
        return tuple(outs[i] for i in outputs) if len(outs) > 1 or outputs != (0,) else outs
    return fn, leaves


def _is_float32(leaves):
    return any(leaf.dtype == np.float32 for leaf in leaves)


def check_first_order(op, outputs, sample, fast=False):
    fn, leaves = _as_positional(op, outputs, build_sample(sample), sample)
    if not leaves:
        return
    if _is_float32(leaves):
        return check_float32_against_float64(fn, leaves)
    assert gradcheck(fn, leaves, fast_mode=fast)


def check_second_order(op, outputs, sample, fast=False, once_differentiable=""):
    fn, leaves = _as_positional(op, outputs, build_sample(sample), sample)
    if not leaves or _is_float32(leaves):
        return
    if once_differentiable:
        return check_once_differentiable_raises(fn, leaves)
    assert gradgradcheck(fn, leaves, fast_mode=fast)


def check_once_differentiable_raises(fn, leaves):
    outs = fn(*leaves)
    first = autograd_grad([o for o in outs], leaves,
                          [_wrap(np.ones(o.shape)) for o in outs], create_graph=True,
                          allow_unused=True)
    total = sum(g.sum() for g in first if g is not None)
    try:
        autograd_grad(total, leaves, allow_unused=True)
    except RuntimeError as exc:
        if "not differentiable twice" in str(exc):
            return
        raise
    raise AssertionError("double backward of a once_differentiable op did not raise")


def check_zero_grad(op, outputs, sample):
    fn, leaves = _as_positional(op, outputs, build_sample(sample), sample)
    if not leaves:
        return
    outs = [o for o in fn(*leaves) if o.requires_grad]
    if not outs:
        return
    zeros = [_wrap(np.zeros(o.shape, dtype=o.dtype)) for o in outs]
    grads = autograd_grad(outs, leaves, zeros, allow_unused=True)
    for leaf, g in zip(leaves, grads):
        assert g is None or not np.any(g._data), f"zero gradient in gave {g} for {leaf.shape}"


def check_float32_against_float64(fn, leaves, rtol=1e-3, atol=1e-4):
    """float32 gradients keep their dtype and match the float64 ones closely."""
    rng = np.random.default_rng(1)
    outs32 = fn(*leaves)
    if not any(o.requires_grad for o in outs32):
        return  # a non-differentiable op (argmax ...): nothing to compare
    cotangents = [rng.standard_normal(o.shape) for o in outs32]
    grads32 = autograd_grad(outs32, leaves, [_wrap(c.astype(o.dtype)) for c, o in zip(cotangents, outs32)],
                            allow_unused=True)
    leaves64 = [Tensor(leaf._data.astype(np.float64)).requires_grad_() for leaf in leaves]
    outs64 = fn(*leaves64)
    grads64 = autograd_grad(outs64, leaves64, [_wrap(c) for c in cotangents], allow_unused=True)
    for leaf, g32, g64 in zip(leaves, grads32, grads64):
        if g32 is None or g64 is None:
            assert g32 is None and g64 is None
            continue
        assert g32.dtype == leaf.dtype, f"gradient of a {leaf.dtype} input came back {g32.dtype}"
        np.testing.assert_allclose(g32._data, g64._data, rtol=rtol, atol=atol)
