"""Building sample inputs and checking an op's gradients: what tests/generated runs.

Shipped with the package so a contributor can check an op by hand:

>>> from minigrad.testing import TensorSpec as T, check_first_order
>>> check_first_order(minigrad.mul, (0,), {"self": T([3]), "other": T([3])})

Samples are built on the CPU unless ``set_sample_device("cuda")`` says otherwise: the
device-generic run of the generated suite (tests/conftest.py, MINIGRAD_TEST_DEVICE)
builds every sample tensor on the GPU, or on the CuPy-like test backend.

``assert_close`` is PyTorch's ``torch.testing.assert_close`` (minigrad/_assert_close.py).
"""
import numpy as np

from minigrad import _array
from minigrad._assert_close import assert_close  # noqa: F401 - torch.testing's check
from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.gradcheck import GradcheckError, gradgradcheck, jacobian_blocks
from minigrad._tensor import Tensor, _wrap
from minigrad.kernels.core import on_device_of


_sample_device = ["cpu"]


def set_sample_device(device_type):
    """Build sample tensors on ``device_type`` ("cpu" or "cuda") from now on."""
    _sample_device[0] = device_type


def sample_device():
    return _sample_device[0]


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
        extras = "".join(f", {k}={v!r}" for k, v in (
            ("domain", self.domain if self.domain != (-2.0, 2.0) else None),
            ("values", self.values), ("distinct", self.distinct or None),
            ("noncontiguous", self.noncontiguous or None), ("spectrum", self.spectrum),
            ("symmetric", self.symmetric or None)) if v is not None)
        return f"T({list(self.shape)}, dtype={self.dtype.name}{extras})"

    def build(self, rng):
        array = _array.to_device(self._values(rng), _sample_device[0])
        if self.noncontiguous:
            array = _noncontiguous_copy(array)
        differentiable = self.dtype.kind == "f" and self.requires_grad
        return _wrap(array).requires_grad_() if differentiable else _wrap(array)

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
    xp = _array.namespace_of(array)
    wide = xp.zeros(array.shape[:-1] + (2 * array.shape[-1],), dtype=array.dtype)
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
    return [leaf for leaf, _ in _named_leaves(kwargs)]


def _named_leaves(kwargs):
    """[(leaf, (argument name, position in a Tensor[] or None))] in call order."""
    found = []
    for name, value in kwargs.items():
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for k, v in items:
            if isinstance(v, Tensor) and v.requires_grad:
                found.append((v, (name, k)))
    return found


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


class _Context:
    """What a failing check says: the op, the input, its formula and YAML line, the sample."""

    def __init__(self, op, sample, node, kwargs):
        self.op, self.sample, self.node = op, sample, node
        self.names = [where for _, where in _named_leaves(kwargs)]

    def op_name(self):
        return getattr(self.node, "_op_name", None) or getattr(self.op, "__name__", repr(self.op))

    def describe(self, j):
        """`` input `other` (derivatives.yaml:455: `sum_to(grad * self, other.shape)`)``."""
        name, k = self.names[j]
        label = f"input `{name}`" + (f" (tensor {k} of the list)" if k is not None else "")
        formulas = getattr(self.node, "_formulas", {})
        if name in formulas:
            label += (f" ({getattr(self.node, '_yaml_path', 'derivatives.yaml')}:"
                      f"{self.node._yaml_lines[name]}: `{formulas[name]}`)")
        return label

    def fail(self, j, what, details):
        raise AssertionError(f"{self.op_name()}: {what} of {self.describe(j)} is wrong on sample "
                             f"{self.sample}: {details}")


def check_first_order(op, outputs, sample, fast=False, node=None):
    """Gradients of every input against float64 central differences of the forward.

    ``node`` (the entry's generated node class) names the formula and YAML line when a
    check fails.  float32 samples: the float32 gradient against float64 finite
    differences of the forward at the same point, to 1e-3 of its norm.
    """
    kwargs = build_sample(sample)
    fn, leaves = _as_positional(op, outputs, kwargs, sample)
    if not leaves:
        return
    context = _Context(op, sample, node, kwargs)
    if _is_float32(leaves):
        return check_float32_against_finite_differences(fn, leaves, context, fast)
    for (i, j), (numerical, analytical) in jacobian_blocks(fn, leaves, fast_mode=fast):
        _compare_block(context, fn, leaves, i, j, numerical, analytical, fast)


def _compare_block(context, fn, leaves, i, j, numerical, analytical, fast, atol=1e-5, rtol=1e-3):
    excess = np.abs(analytical - numerical) - (atol + rtol * np.abs(numerical))
    excess = np.where(np.isnan(analytical) & np.isnan(numerical), -np.inf, np.nan_to_num(excess, nan=np.inf))
    if excess.size == 0 or np.max(excess) <= 0:
        return
    row, column = np.unravel_index(int(np.argmax(excess)), excess.shape)
    if fast:
        where = "the random projection u^T J v"
    else:
        out_shape = tuple(fn(*leaves)[i].shape)
        where = (f"input index {_index(column, leaves[j].shape)}, output {i} index "
                 f"{_index(row, out_shape)}")
    context.fail(j, "the gradient", f"largest error {abs(analytical[row, column] - numerical[row, column]):.3g} "
                 f"at {where}: analytical {analytical[row, column]:.8g}, numerical (finite "
                 f"differences) {numerical[row, column]:.8g} (atol={atol}, rtol={rtol})")


def _index(flat, shape):
    return tuple(int(k) for k in np.unravel_index(flat, shape)) if shape else ()


def check_second_order(op, outputs, sample, fast=False, once_differentiable="", node=None):
    kwargs = build_sample(sample)
    fn, leaves = _as_positional(op, outputs, kwargs, sample)
    if not leaves or _is_float32(leaves):
        return
    if once_differentiable:
        return check_once_differentiable_raises(fn, leaves)
    try:
        gradgradcheck(fn, leaves, fast_mode=fast)
    except GradcheckError as exc:
        context = _Context(op, sample, node, kwargs)
        legend = ", ".join(f"{j}: {context.describe(j)}" for j in range(len(leaves)))
        raise AssertionError(f"{context.op_name()}: second derivative wrong on sample {sample} "
                             f"(gradgradcheck inputs {legend}, then the cotangents): "
                             f"{exc}") from None


def check_once_differentiable_raises(fn, leaves):
    outs = fn(*leaves)
    first = autograd_grad([o for o in outs], leaves,
                          [_wrap(_array.namespace_of(o._data).ones(o.shape)) for o in outs],
                          create_graph=True,
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
    zeros = [_wrap(_array.namespace_of(o._data).zeros(o.shape, dtype=o.dtype)) for o in outs]
    grads = autograd_grad(outs, leaves, zeros, allow_unused=True)
    for leaf, g in zip(leaves, grads):
        assert g is None or not np.any(_array.to_host(g._data)), \
            f"zero gradient in gave {g} for {leaf.shape}"


def check_float32_against_finite_differences(fn, leaves, context=None, fast=False,
                                             rtol=1e-3, eps=1e-6):
    """The float32 gradient keeps its dtype and matches float64 central differences of the
    forward at the same point: ``|g32 - J^T u| <= rtol |J^T u|`` for a random cotangent u.

    Not the formula rerun in float64, which would repeat a wrong formula's mistake; 1e-3
    of the norm leaves float32 rounding room and catches a formula off by 0.2%.
    """
    rng = np.random.default_rng(1)
    outs32 = fn(*leaves)
    if not any(o.requires_grad for o in outs32):
        return  # a non-differentiable op (argmax ...): nothing to compare
    cotangents = [rng.standard_normal(o.shape) for o in outs32]
    live = [(o, c) for o, c in zip(outs32, cotangents) if o.requires_grad]
    grads32 = autograd_grad([o for o, _ in live], leaves,
                            [_wrap(on_device_of(o._data, c.astype(o.dtype))) for o, c in live],
                            allow_unused=True)
    points = [_array.to_host(leaf._data).astype(np.float64) for leaf in leaves]
    device = leaves[0].device
    for j, (leaf, g32) in enumerate(zip(leaves, grads32)):
        if g32 is not None and g32.dtype != leaf.dtype:
            _fail(context, j, "the dtype of the gradient",
                  f"a {leaf.dtype} input got a {g32.dtype} gradient")
        got = np.zeros(leaf.shape) if g32 is None else _array.to_host(g32._data).astype(np.float64)
        if fast:
            v = rng.standard_normal(leaf.shape)
            got, want = np.array([np.sum(got * v)]), np.array([_directional(fn, points, j, v, cotangents, eps, device)])
        else:
            want = np.array([_directional(fn, points, j, _unit(leaf.shape, k), cotangents, eps, device)
                             for k in range(leaf._data.size)]).reshape(leaf.shape)
        error = np.abs(got - want)
        if np.linalg.norm(error) > rtol * np.linalg.norm(want) + 1e-6 or not np.all(np.isfinite(got) == np.isfinite(want)):
            k = int(np.argmax(np.nan_to_num(error, nan=np.inf)))
            where = "the random projection" if fast else f"index {_index(k, leaf.shape)}"
            _fail(context, j, "the float32 gradient",
                  f"relative error {np.linalg.norm(error) / max(np.linalg.norm(want), 1e-30):.3g} "
                  f"(over rtol={rtol}) against float64 finite differences of the forward; largest "
                  f"error {error.flat[k]:.3g} at {where}: float32 gradient {got.flat[k]:.8g}, "
                  f"finite differences {want.flat[k]:.8g}")


def _unit(shape, k):
    e = np.zeros(shape)
    e.flat[k] = 1.0
    return e


def _directional(fn, points, j, direction, cotangents, eps, device):
    """u . (f(x + eps d) - f(x - eps d)) / 2 eps, the forward run in float64 (on ``device``)."""
    def at(sign):
        args = [_wrap(_array.to_device(p + sign * eps * direction if i == j else p, device.type,
                                       device.index)) for i, p in enumerate(points)]
        return [_array.to_host(o._data).astype(np.float64) for o in fn(*args)]
    plus, minus = at(1.0), at(-1.0)
    return sum(float(np.sum(c * (p - m))) for c, p, m in zip(cotangents, plus, minus)) / (2 * eps)


def _fail(context, j, what, details):
    if context is None:
        raise AssertionError(f"{what} of input {j} is wrong: {details}")
    context.fail(j, what, details)
