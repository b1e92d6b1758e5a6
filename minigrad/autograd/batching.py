"""Batched tangents: B tangents pushed through one JVP formula at once (``jacfwd``).

In a batched forward-AD level every tangent has a leading batch dimension.  A JVP
formula then sees its tangents as :class:`Batched` (the logical shape is the primal's)
and runs in ``BATCHED``, where each function applies its *batch rule*:

- elementwise ops and operators: the batched operands get size-1 dims after the batch
  dim, so that right-aligned broadcasting against the unbatched primals still works;
- ops with dims or shapes (sum, mean, reshape, view, transpose, permute, expand,
  unsqueeze, squeeze, matmul, sum_to ...): a rule below shifts dims past the batch dim;
- anything else loops over the batch and stacks (``python -m codegen`` lists the entries
  whose forward formulas reach such a loop).

Which ops are elementwise is derived by codegen from derivatives.yaml
(``ELEMENTWISE`` in the generated ``jvps.py``); the helpers below are elementwise in
every tensor argument.
"""
import operator

import numpy as np

from minigrad import _tensor
from minigrad._array import is_array, namespace_of
from minigrad.autograd.namespace import TENSORS

# formula helpers (minigrad/autograd/formulas) that are elementwise in all tensor arguments
ELEMENTWISE_HELPERS = frozenset({
    "maybe_multiply", "masked", "safe_reciprocal", "pow_grad_self", "pow_grad_exponent",
    "xlogy_grad_self", "logit_grad", "sinc_grad", "clamp_mask",
    "finite_mask", "extremum_share", "fmax_mask", "fmax_other_mask", "clamp_tensor_masks",
    "zeros_like"})


class Batched(_tensor.Tensor):
    """A tangent with a leading batch dimension; ``shape`` is the logical (primal) shape.

    A Tensor subclass only so that Python asks it first for ``tensor * batched``
    (its reflected operators win); it has none of a Tensor's fields."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    @property
    def shape(self):
        return self.value.shape[1:]

    @property
    def ndim(self):
        return self.value.ndim - 1

    @property
    def dtype(self):
        return self.value.dtype

    def __repr__(self):
        return f"Batched({self.value!r})"

    def __neg__(self):
        return Batched(-self.value)


def _operator(fn, reflected=False):
    if reflected:
        return lambda self, other: elementwise(fn, (other, self), {})
    return lambda self, other: elementwise(fn, (self, other), {})


for _name, _fn in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("pow", operator.pow),
                   ("matmul", None)):
    if _fn is not None:
        setattr(Batched, f"__{_name}__", _operator(_fn))
        setattr(Batched, f"__r{_name}__", _operator(_fn, reflected=True))
Batched.__matmul__ = lambda self, other: rule_matmul(TENSORS.matmul, self, other)
Batched.__rmatmul__ = lambda self, other: rule_matmul(TENSORS.matmul, other, self)


def _ndim(x):
    return x.ndim if isinstance(x, (_tensor.Tensor, Batched)) else 0


def _align(x, ndim):
    """A Batched operand as a plain Tensor whose dims line up with unbatched ones of ``ndim``."""
    if not isinstance(x, Batched):
        return x
    value = x.value
    missing = ndim - x.ndim
    if missing <= 0:
        return value
    return value.reshape(value.shape[:1] + (1,) * missing + value.shape[1:])


def _flat(args):
    for a in args:
        if type(a) in (list, tuple):
            yield from a
        else:
            yield a


def elementwise(fn, args, kwargs):
    ndim = max([_ndim(a) for a in _flat(args)] + [_ndim(v) for v in kwargs.values()])
    args = [[_align(x, ndim) for x in a] if type(a) in (list, tuple) else _align(a, ndim)
            for a in args]
    kwargs = {k: _align(v, ndim) for k, v in kwargs.items()}
    return Batched(fn(*args, **kwargs))


def loop(fn, args, kwargs):
    """The fallback: one call per batch element, stacked."""
    size = next(a for a in _flat(list(args) + list(kwargs.values())) if isinstance(a, Batched)).value.shape[0]

    def pick(x, b):
        if type(x) in (list, tuple):
            return type(x)(pick(v, b) for v in x)
        return x.value[b] if isinstance(x, Batched) else x

    results = [fn(*[pick(a, b) for a in args], **{k: pick(v, b) for k, v in kwargs.items()})
               for b in range(size)]
    first = results[0]
    if isinstance(first, (list, tuple)):
        return type(first)(Batched(TENSORS.stack([r[i] for r in results]))
                            for i in range(len(first)))
    return Batched(TENSORS.stack(results))


# ----------------------------------------------------------------- rules with dims
def _dims(dim, ndim):
    """Logical dims -> dims of the batched value (past the batch dim)."""
    if dim is None:
        return tuple(range(1, ndim + 1))
    if isinstance(dim, int):
        return (dim % max(ndim, 1)) + 1
    return tuple((d % max(ndim, 1)) + 1 for d in dim)


def _reduction(fn, self, dim=None, keepdim=False, **kwargs):
    if self.ndim == 0:  # a 0-d tensor reduced over its only "dim" is itself
        return self if kwargs.get("dtype") is None else Batched(self.value.to(kwargs["dtype"]))
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None  # torch: an empty dim list reduces over every dim
    if dim is None and not keepdim:
        return Batched(fn(self.value, _dims(None, self.ndim), False, **kwargs)) if self.ndim \
            else self
    return Batched(fn(self.value, _dims(dim, self.ndim), keepdim, **kwargs))


def rule_sum(fn, self, dim=None, keepdim=False, *, dtype=None):
    return _reduction(fn, self, dim, keepdim, dtype=dtype)


def rule_mean(fn, self, dim=None, keepdim=False, *, dtype=None):
    return _reduction(fn, self, dim, keepdim, dtype=dtype)


def rule_reshape(fn, self, shape):
    return Batched(fn(self.value, (self.value.shape[0],) + tuple(shape)))


def rule_view(fn, self, size):
    return Batched(fn(self.value, (self.value.shape[0],) + tuple(size)))


def rule_transpose(fn, self, dim0, dim1):
    return Batched(fn(self.value, _dims(dim0, self.ndim), _dims(dim1, self.ndim)))


def rule_permute(fn, self, dims):
    return Batched(fn(self.value, (0,) + _dims(tuple(dims), self.ndim)))


def rule_expand(fn, self, size):
    value = _align(self, len(size))
    return Batched(fn(value, (value.shape[0],) + tuple(size)))


def rule_unsqueeze(fn, self, dim):
    return Batched(fn(self.value, (dim % (self.ndim + 1)) + 1))


def rule_squeeze(fn, self, dim=None):
    if dim is None:
        dim = tuple(i for i, s in enumerate(self.shape) if s == 1)
    return Batched(fn(self.value, _dims(dim, self.ndim)))


def rule_sum_to(fn, x, shape):
    """sum_to(x, shape) of a batched x: sum the broadcast dims, never the batch dim."""
    shape = tuple(shape)
    lead = x.ndim - len(shape)
    dims = tuple(range(1, lead + 1)) + tuple(
        lead + i + 1 for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1)
    value = x.value.sum(dims, keepdim=True) if dims else x.value
    return Batched(value.reshape((value.shape[0],) + shape))


def rule_matmul(fn, self, other):
    """matmul with a batched operand: 1-d operands become matrices, batched ones get their
    batch dim in front of matmul's own broadcast dims, then the added dims go again."""
    a_vec, b_vec = _ndim(self) == 1, _ndim(other) == 1
    a = _as_matrix(self, -2) if a_vec else self
    b = _as_matrix(other, -1) if b_vec else other
    ndim = max(_ndim(a), _ndim(b))
    out = fn(_align(a, ndim), _align(b, ndim))
    if b_vec:
        out = out.squeeze(-1)
    if a_vec:
        out = out.squeeze(-1 if b_vec else -2)
    return Batched(out)


def _as_matrix(x, where):
    if isinstance(x, Batched):
        return Batched(x.value.unsqueeze(where))
    return x.unsqueeze(where)


def _batched(x, size):
    if isinstance(x, Batched):
        return x.value
    return x.expand((size,) + tuple(x.shape))


def rule_cat(fn, tensors, dim=0):
    size = next(t for t in tensors if isinstance(t, Batched)).value.shape[0]
    ndim = next(t.ndim for t in tensors if t.ndim > 0)
    return Batched(fn([_batched(t, size) for t in tensors], _dims(dim, ndim)))


def rule_stack(fn, tensors, dim=0):
    size = next(t for t in tensors if isinstance(t, Batched)).value.shape[0]
    return Batched(fn([_batched(t, size) for t in tensors], (dim % (tensors[0].ndim + 1)) + 1))


def _shift(dim, ndim):
    """One logical dim (may be negative) -> the batched value's dim."""
    return (dim % max(ndim, 1)) + 1


def _same(fn, self, *args, **kwargs):
    """Ops on trailing dims only (tril, triu): the batch dim is one more leading dim."""
    return Batched(fn(self.value, *args, **kwargs))


def rule_tril(fn, self, diagonal=0):
    return _same(fn, self, diagonal)


def rule_triu(fn, self, diagonal=0):
    return _same(fn, self, diagonal)


def rule__to_copy(fn, self, dtype):
    return _same(fn, self, dtype)


def rule_cumsum(fn, self, dim, *, dtype=None):
    if self.ndim == 0:
        return self if dtype is None else Batched(self.value.to(dtype))
    return Batched(fn(self.value, _shift(dim, self.ndim), dtype=dtype))


def rule_flatten(fn, self, start_dim=0, end_dim=-1):
    if self.ndim == 0:
        return Batched(self.value.reshape((self.value.shape[0], 1)))
    return Batched(fn(self.value, _shift(start_dim, self.ndim), _shift(end_dim, self.ndim)))


def rule_ravel(fn, self):
    return Batched(self.value.reshape((self.value.shape[0], -1)))


def rule_unflatten(fn, self, dim, sizes):
    return Batched(fn(self.value, _shift(dim, self.ndim), sizes))


def rule_swapaxes(fn, self, axis0, axis1):
    return Batched(fn(self.value, _shift(axis0, self.ndim), _shift(axis1, self.ndim)))


def rule_swapdims(fn, self, dim0, dim1):
    return Batched(fn(self.value, _shift(dim0, self.ndim), _shift(dim1, self.ndim)))


def rule_movedim(fn, self, source, destination):
    ints = isinstance(source, int)
    source = _dims((source,) if ints else source, self.ndim)
    destination = _dims((destination,) if isinstance(destination, int) else destination, self.ndim)
    return Batched(fn(self.value, source, destination))


def rule_moveaxis(fn, self, source, destination):
    return rule_movedim(fn, self, source, destination)


def rule_t(fn, self):
    return self if self.ndim < 2 else Batched(self.value.transpose(1, 2))


def rule_expand_as(fn, self, other):
    return rule_expand(TENSORS.expand, self, tuple(other.shape))


def rule_broadcast_to(fn, self, size):
    return rule_expand(TENSORS.expand, self, tuple(size))


def rule_view_as(fn, self, other):
    return Batched(self.value.reshape((self.value.shape[0],) + tuple(other.shape)))


def rule_reshape_as(fn, self, other):
    return rule_view_as(fn, self, other)


def rule_narrow(fn, self, dim, start, length):
    return Batched(fn(self.value, _shift(dim, self.ndim), start, length))


def rule_select(fn, self, dim, index):
    return Batched(fn(self.value, _shift(dim, self.ndim), index))


def rule_diagonal(fn, self, offset=0, dim1=0, dim2=1):
    return Batched(fn(self.value, offset, _shift(dim1, self.ndim), _shift(dim2, self.ndim)))


def rule_diag_embed(fn, self, offset=0, dim1=-2, dim2=-1):
    out_ndim = self.ndim + 1
    return Batched(fn(self.value, offset, _shift(dim1, out_ndim), _shift(dim2, out_ndim)))


def rule_flip(fn, self, dims):
    return Batched(fn(self.value, _dims(tuple(dims), self.ndim)))


def rule_index_select(fn, self, dim, index):
    return Batched(fn(self.value, _shift(dim, self.ndim), index))


def _array_of(index):
    """The array of an index argument: a Tensor's, a device array itself, a list as numpy."""
    if isinstance(index, _tensor.Tensor):
        return index._data
    return index if is_array(index) else np.asarray(index)


def rule_gather(fn, self, dim, index):
    if self.ndim == 0:
        return self
    size = self.value.shape[0]
    array = _array_of(index)
    index = _tensor._wrap(namespace_of(array).broadcast_to(array, (size,) + array.shape))
    return Batched(fn(self.value, _shift(dim, self.ndim), index))


def _split_rule(fn, self, first, dim):
    return [Batched(piece) for piece in fn(self.value, first, _shift(dim, self.ndim))]


def rule_split(fn, self, split_size_or_sections, dim=0):
    return _split_rule(fn, self, split_size_or_sections, dim)


def rule_chunk(fn, self, chunks, dim=0):
    return _split_rule(fn, self, chunks, dim)


def rule_unbind(fn, self, dim=0):
    return [Batched(piece) for piece in fn(self.value, _shift(dim, self.ndim))]


def rule_trace(fn, self):
    return Batched(self.value.diagonal(0, -2, -1).sum(-1))


def rule_getitem(fn, self, index):
    """x[index] with a batch dim in front: prepend a full slice, unless advanced indices are
    split by slices (numpy then moves their dims first, in front of the batch dim)."""
    parts = index if isinstance(index, tuple) else (index,)
    advanced = [i for i, p in enumerate(parts)
                if not (p is None or p is Ellipsis or isinstance(p, (slice, int)))]
    if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
        return loop(fn, (self, index), {})
    return Batched(fn(self.value, (slice(None),) + parts))


def rule_outer(fn, self, vec2):
    return elementwise(lambda a, b: a.unsqueeze(-1) * b,
                       (Batched(self.value) if isinstance(self, Batched) else self, vec2), {}) \
        if not isinstance(vec2, Batched) else \
        elementwise(lambda a, b: a * b, (_unsqueezed(self), vec2), {})


def _unsqueezed(x):
    return Batched(x.value.unsqueeze(-1)) if isinstance(x, Batched) else x.unsqueeze(-1)


def rule_linear(fn, input, weight, bias=None):
    out = rule_matmul(TENSORS.matmul, input, weight.transpose(-2, -1) if not isinstance(weight, Batched)
                      else Batched(weight.value.transpose(-2, -1)))
    return out if bias is None else out + bias


def rule_bmm(fn, self, mat2):
    return rule_matmul(TENSORS.matmul, self, mat2)


def rule_mv(fn, self, vec):
    return rule_matmul(TENSORS.matmul, self, vec)


def rule_dot(fn, self, tensor):
    return rule_matmul(TENSORS.matmul, self, tensor)


def rule_vdot(fn, self, other):
    return rule_matmul(TENSORS.matmul, self, other)


def rule_sum_to_size(fn, self, size):
    return rule_sum_to(fn, self, tuple(size))


def rule_repeat(fn, self, repeats):
    value = _align(self, len(repeats))
    return Batched(fn(value, (1,) + tuple(repeats)))


def rule_tile(fn, self, dims):
    dims = (1,) * (self.ndim - len(dims)) + tuple(dims)
    return rule_repeat(TENSORS.repeat, self, dims)


def rule_roll(fn, self, shifts, dims=None):
    if dims is None:  # rolls the flattened tensor
        flat = self.value.reshape((self.value.shape[0], -1))
        return Batched(fn(flat, shifts, (1,)).reshape(self.value.shape))
    return Batched(fn(self.value, shifts, _dims(tuple(dims) if not isinstance(dims, int)
                                                   else (dims,), self.ndim)))


def rule_linalg_vecdot(fn, x, y, *, dim=-1):
    ndim = max(_ndim(x), _ndim(y))
    return Batched(fn(_align(x, ndim), _align(y, ndim), dim=dim if dim < 0 else dim - ndim))


def _fold(fn, x, spatial, *args, **kwargs):
    """An (N, C, *spatial) op on a batched input: the batch dim folds into N (an unbatched
    (C, *spatial) input's batch dim simply is N)."""
    value = x.value
    if x.ndim == spatial + 1:
        return Batched(fn(value, *args, **kwargs))
    size, n = value.shape[0], value.shape[1]
    out = fn(value.reshape((size * n,) + tuple(value.shape[2:])), *args, **kwargs)
    return Batched(out.reshape((size, n) + tuple(out.shape[1:])))


def rule_avg_pool1d(fn, input, *args, **kwargs):
    return _fold(fn, input, 1, *args, **kwargs)


def rule_avg_pool2d(fn, input, *args, **kwargs):
    return _fold(fn, input, 2, *args, **kwargs)


def rule_adaptive_avg_pool1d(fn, input, output_size):
    return _fold(fn, input, 1, output_size)


def rule_adaptive_avg_pool2d(fn, input, output_size):
    return _fold(fn, input, 2, output_size)


def rule_avg_pool3d(fn, input, *args, **kwargs):
    return _fold(fn, input, 3, *args, **kwargs)


def rule_adaptive_avg_pool3d(fn, input, output_size):
    return _fold(fn, input, 3, output_size)


def _conv_rule(fn, spatial, input, weight, *args, **kwargs):
    if isinstance(weight, Batched) or not isinstance(input, Batched):
        return loop(fn, (input, weight) + args, kwargs)
    return _fold(fn, input, spatial, weight, *args, **kwargs)


def rule_conv1d(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 1, input, weight, *args, **kwargs)


def rule_conv2d(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 2, input, weight, *args, **kwargs)


def rule_conv_transpose1d(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 1, input, weight, *args, **kwargs)


def rule_conv_transpose2d(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 2, input, weight, *args, **kwargs)


def rule_conv3d(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 3, input, weight, *args, **kwargs)


def rule_conv_transpose3d(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 3, input, weight, *args, **kwargs)


def rule_embedding(fn, input, weight, *args, **kwargs):
    """Rows of a batched weight: index after the batch dim (max_norm would renormalize the
    weight itself, so that case loops)."""
    if isinstance(input, Batched) or (len(args) > 1 and args[1] is not None) \
            or kwargs.get("max_norm") is not None:
        return loop(fn, (input, weight) + args, kwargs)
    index = _array_of(input)
    return Batched(weight.value[:, index])


def _size(args):
    return next(a for a in _flat(args) if isinstance(a, Batched)).value.shape[0]


def _leading(fn, args, kwargs):
    """Helpers that work on trailing dims and broadcast over leading ones (matrix functions,
    normalizations over trailing dims): the batch dim is one more leading dim."""
    ndim = max([_ndim(a) for a in args] + [_ndim(v) for v in kwargs.values()])
    out = fn(*[_align(a, ndim) for a in args], **{k: _align(v, ndim) for k, v in kwargs.items()})
    return tuple(Batched(o) for o in out) if isinstance(out, tuple) else Batched(out)


def rule_cholesky_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_eigh_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_eigvalsh_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_svd_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_svdvals_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_qr_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_pinv_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_matrix_power_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_triangular_part(fn, *args):
    return _leading(fn, args, {})


def rule_layer_norm_input_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_rms_norm_input_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_batch_norm_input_jvp(fn, *args):
    return _leading(fn, args, {})


def rule_linalg_solve(fn, A, B, *, left=True):
    """A batched right-hand side of matrices is a leading batch dim; vectors (ambiguous with
    matrices once batched) and batched A loop."""
    if isinstance(A, Batched) or B.ndim != A.ndim:
        return loop(fn, (A, B), {"left": left})
    return Batched(fn(A, _align(B, A.ndim), left=left))


def rule_einsum_jvp(fn, equation, tensors, tangents):
    """einsum with one more index letter for the batch of tangents."""
    from minigrad.autograd.formulas.forward import _multilinear  # lazy: formulas import us
    letter = next(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"
                  if c not in equation)
    inputs, _, output = equation.replace(" ", "").partition("->")
    specs = inputs.split(",")
    if not output and "->" not in equation:
        return loop(fn, (equation, tensors, tangents), {})  # implicit output: letters sorted

    def one(operands):
        which = [letter + spec if isinstance(op, Batched) else spec
                 for spec, op in zip(specs, operands)]
        values = [op.value if isinstance(op, Batched) else op for op in operands]
        return Batched(TENSORS.einsum(",".join(which) + "->" + letter + output, values))

    return _multilinear(one, tensors, tangents)


def rule_group_norm_input_jvp(fn, input_t, input, num_groups, weight, eps):
    """Per sample: the batch of tangents folds into N, the input repeated to match."""
    value = input_t.value
    size, shape = value.shape[0], tuple(input.shape)
    folded = value.reshape((size * shape[0],) + shape[1:])
    repeated = input.expand((size,) + shape).reshape((size * shape[0],) + shape[1:])
    return Batched(fn(folded, repeated, num_groups, weight, eps).reshape((size,) + shape))


def rule_trapezoid_dx(fn, y, *, dx=1, dim=-1):
    return Batched(fn(y.value, dx=dx, dim=_negative(dim, y.ndim)))


def rule_trapezoid_x(fn, y, x, *, dim=-1):
    if isinstance(x, Batched) and x.ndim != _ndim(y):
        return loop(fn, (y, x), {"dim": dim})
    ndim = max(_ndim(y), _ndim(x))
    group = [y, x]
    y = _full(y, ndim, group)
    x = _full(x, ndim, group) if isinstance(x, Batched) or _ndim(x) == ndim else x
    return Batched(fn(y, x, dim=_negative(dim, ndim)))


def _negative(dim, ndim):
    return None if dim is None else (dim % max(ndim, 1)) - max(ndim, 1)


def rule_cumprod_jvp(fn, self_t, self, result, dim):
    return _leading(fn, (self_t, self, result, _negative(dim, self.ndim) if self.ndim else dim), {})


def rule_logcumsumexp_jvp(fn, self_t, self, result, dim):
    return _leading(fn, (self_t, self, result, _negative(dim, self.ndim) if self.ndim else dim), {})


def rule_channel_view(fn, v, ndim):
    value = v.value
    return Batched(value.reshape(tuple(value.shape[:2]) + (1,) * (ndim - 2)))


def rule_sum_over_classes(fn, x, result):
    if result.ndim == 0:
        return Batched(x.value.sum(tuple(range(1, x.value.ndim))) if x.ndim else x.value)
    return Batched(x.value.sum(2))


def rule_diff(fn, self, n=1, dim=-1, prepend=None, append=None):
    ndim = max(_ndim(self), _ndim(prepend), _ndim(append))
    return Batched(fn(_full(self, ndim, [self, prepend, append]), n,
                      _negative(dim, ndim), _full(prepend, ndim, [self, prepend, append]),
                      _full(append, ndim, [self, prepend, append])))


def _full(x, ndim, group):
    """``x`` with the batch dim (expanded if it has none) and ``ndim`` logical dims."""
    if x is None:
        return None
    size = _size(group)
    if isinstance(x, Batched):
        return _align(x, ndim)
    return x.expand((size,) + tuple(x.shape))


def rule_cross(fn, self, other, dim=None):
    ndim = max(_ndim(self), _ndim(other))
    if dim is None:
        shape = np.broadcast_shapes(tuple(self.shape), tuple(other.shape))
        dim = next(i for i, s in enumerate(shape) if s == 3)
    group = [self, other]
    return Batched(fn(_full(self, ndim, group), _full(other, ndim, group), _negative(dim, ndim)))


def rule_linalg_cross(fn, self, other, *, dim=-1):
    ndim = max(_ndim(self), _ndim(other))
    group = [self, other]
    return Batched(fn(_full(self, ndim, group), _full(other, ndim, group), dim=_negative(dim, ndim)))


def rule_flipud(fn, self):
    return Batched(self.value.flip((1,)))


def rule_fliplr(fn, self):
    return Batched(self.value.flip((2,)))


def rule_rot90(fn, self, k=1, dims=(0, 1)):
    return Batched(fn(self.value, k, _dims(tuple(dims), self.ndim)))


def rule_masked_fill_Scalar(fn, self, mask, value):
    return Batched(fn(self.value, mask, value))


def _expanded_index(index, size):
    array = _array_of(index)
    return _tensor._wrap(namespace_of(array).broadcast_to(array, (size,) + array.shape))


def rule_scatter_value(fn, self, dim, index, value):
    size = self.value.shape[0]
    return Batched(fn(self.value, _shift(dim, self.ndim), _expanded_index(index, size), value))


def rule_scatter_src(fn, self, dim, index, src):
    size = _size([self, src])
    ndim = max(_ndim(self), 1)
    return Batched(fn(_full(self, _ndim(self), [self, src]), _shift(dim, ndim),
                      _expanded_index(index, size), _full(src, _ndim(src), [self, src])))


def rule_scatter_add(fn, self, dim, index, src):
    return rule_scatter_src(fn, self, dim, index, src)


def rule_index_add(fn, self, dim, index, source, *, alpha=1):
    group = [self, source]
    return Batched(fn(_full(self, _ndim(self), group), _shift(dim, _ndim(self)), index,
                      _full(source, _ndim(source), group), alpha=alpha))


def rule_take_along_dim(fn, self, indices, dim=None):
    if dim is None:
        return loop(fn, (self, indices, dim), {})
    size = self.value.shape[0]
    array = _array_of(indices)
    array = array.reshape((1,) * (self.ndim - array.ndim) + array.shape)
    return Batched(fn(self.value, _tensor._wrap(namespace_of(array).broadcast_to(array, (size,) + array.shape)),
                      _shift(dim, self.ndim)))


def rule_getitem_backward(fn, self, shape, index):
    parts = index if isinstance(index, tuple) else (index,)
    advanced = [i for i, p in enumerate(parts)
                if not (p is None or p is Ellipsis or isinstance(p, (slice, int)))]
    if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
        return loop(fn, (self, shape, index), {})
    return Batched(fn(self.value, (self.value.shape[0],) + tuple(shape), (slice(None),) + parts))


def rule_gather_backward(fn, self, dim, index, shape):
    size = self.value.shape[0]
    return Batched(fn(self.value, _shift(dim, len(shape)), _expanded_index(index, size),
                      (size,) + tuple(shape)))


def rule_pad(fn, input, pad, mode="constant", value=None):
    if mode == "constant":
        return Batched(fn(input.value, pad, mode, value))
    return _fold(fn, input, len(pad) // 2, pad, mode, value)


def rule_conv1d_padding(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 1, input, weight, *args, **kwargs)


def rule_conv2d_padding(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 2, input, weight, *args, **kwargs)


def rule_conv3d_padding(fn, input, weight, *args, **kwargs):
    return _conv_rule(fn, 3, input, weight, *args, **kwargs)


def rule_mm(fn, self, mat2):
    return rule_matmul(TENSORS.matmul, self, mat2)


RULES = {name[len("rule_"):]: fn for name, fn in list(globals().items())
         if name.startswith("rule_")}


class BatchedNamespace:
    """``F`` for forward formulas in a batched level: every function applies its batch rule
    when a Batched tangent reaches it, and is the plain Tensor op otherwise."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = getattr(TENSORS, name)
        rule = RULES.get(name)
        if rule is None:
            from minigrad._generated.jvps import ELEMENTWISE  # lazy: generated, imports us
            mode = elementwise if name in ELEMENTWISE or name in ELEMENTWISE_HELPERS else loop

            def rule(fn, *args, **kwargs):
                return mode(fn, args, kwargs)

        def batched(*args, **kwargs):
            for a in _flat(list(args) + list(kwargs.values())):
                if isinstance(a, Batched):
                    return rule(fn, *args, **kwargs)
            return fn(*args, **kwargs)

        batched.__name__ = name
        setattr(self, name, batched)
        return batched


BATCHED = BatchedNamespace()
