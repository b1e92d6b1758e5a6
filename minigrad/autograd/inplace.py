"""In-place ops: run the out-of-place op, write its value into the tensor, rebase history.

PyTorch's ``rebase_history``: an in-place op has no derivative of its own; the
out-of-place op's node (declared once in derivatives.yaml) becomes the tensor's
``grad_fn`` and the tensor's version counter moves, so saved copies know they are
stale.  In-place ops on views also rewrite their base's history (autograd/views.py).

>>> import minigrad as mg
>>> x = mg.tensor([1.0, 2.0], requires_grad=True).clone()
>>> x.mul_(3.0).grad_fn
<MulBackward0>
"""
from __future__ import annotations

import warnings

import numpy as np

from minigrad._array import is_writeable, namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode
from minigrad.autograd.errors import LEAF_INPLACE_ERROR
from minigrad.autograd.forward_ad import inplace_with_tangent, state as forward_ad
from minigrad.autograd.hooks import move_retain_grad
from minigrad.autograd.numpy_errors import setitem_shape_error
from minigrad.autograd.overlap import (
    INTERNAL_OVERLAP_ERROR, check_no_overlap, check_partial_overlap, has_internal_overlap)
from minigrad.autograd.promotion import CATEGORY
from minigrad.autograd.saved import SavedTensor
from minigrad.functional import index_put_source
from minigrad.autograd.views import (
    IN_GRAD_MODE, VIEW_OF_LEAF_ERROR, CopySlices, IndexMap, creation_error, refresh_views,
    registration)
from minigrad.kernels.core import index_key, scalar_type_name, split_selects, torch_key
from minigrad.kernels.quiet import QUIET

READ_ONLY_ERROR = (
    "unsupported operation: the written-to tensor's memory is read-only (a read-only numpy "
    "array). Please clone() the tensor before performing the operation.")
EXPANDED_WARNING = (
    "Use of {op} on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. {example}")

INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


def apply_inplace(self, op, *args, **kwargs):
    """Run ``op`` out of place, write the result into ``self``, and rebase history.

    The derivative is the out-of-place op's, declared once in derivatives.yaml; the
    tensor's ``grad_fn`` becomes that op's node.  Views of ``self`` see the new data
    and the shared version counter moves, so saved copies know they are stale.
    An in-place op on a view also rewrites its base's history (autograd/views.py).
    As in PyTorch, an input that shares some but not all of ``self``'s memory
    (``x.add_(x[0])``) is refused (check_overlaps).
    """
    if self._extras is not None and self._extras.get("inference") and not grad_mode.inference:
        raise RuntimeError(INFERENCE_INPLACE_ERROR)
    if not grad_mode.flags.enabled and not kwargs and not forward_ad.active \
            and _plain_update(self, op, args):
        return self
    if forward_ad.active:  # a dual level is open: the tangent changes too
        return inplace_with_tangent(self, op, args, kwargs, apply_inplace)
    recording = grad_mode.enabled and (
        self._requires_grad or any_requires_grad(args) or any_requires_grad(kwargs.values())
        or (self._base is not None and self._base._requires_grad))
    if recording and self.grad_fn is None and self._requires_grad and self._base is None:
        raise RuntimeError(LEAF_INPLACE_ERROR)
    if recording and self._base is not None:
        return inplace_on_view(self, op, args, kwargs)
    where = positions_written(self, op, args) if has_internal_overlap(self._data) else None
    check_overlaps(self, op, args, kwargs)  # (after positions_written's warning, as torch)
    if not recording:
        _write_unrecorded(self, op, args, kwargs, where)
        return self
    rebase(self, op, args, kwargs, where)
    if self._extras is not None and self._extras.get("views"):
        refresh_views(self)
    return self


def _plain_update(self, op, args):
    """``p -= lr * p.grad`` under no_grad, its common case in one numpy call, or False.

    ``self``'s data owns its memory (it is no view), and so does the other Tensor's
    (same float dtype and shape), or the other is a Python float: neither can overlap
    the other partially, so there is nothing to check.  Everything else (other dtypes,
    views, broadcasting, other devices) takes the general path below, which computes
    the same in these cases after ~10 us of checks: more than the update itself of a
    256-vector in an optimizer step."""
    ufunc = _NUMPY_INPLACE.get(op)
    data = self._data
    if ufunc is None or len(args) != 1 or type(data) is not np.ndarray or data.base is not None \
            or data.dtype.kind != "f" or not data.flags.writeable:
        return False
    other = args[0]
    if type(other) is Tensor:
        other = other._data
        if type(other) is not np.ndarray or other.dtype is not data.dtype \
                or other.base is not None or other.shape != data.shape:
            return False
    elif type(other) is not float:
        return False
    _write_ufunc(self, ufunc, other)
    return True


def _write_ufunc(self, ufunc, other):
    """``ufunc(self, other)`` written into ``self``'s memory (1 / 0 is inf, silently, as in
    PyTorch); the version counter moves once it is written."""
    # (in a copy of the quiet context, as the generated forwards: cheaper than setting
    # and resetting numpy's context variable, kernels/quiet.py)
    QUIET.copy().run(ufunc, self._data, other, out=self._data)
    self._version_counter[0] += 1


def _write_unrecorded(self, op, args, kwargs, where):
    if where is None and _numpy_inplace(self, op, args, kwargs):
        return
    with grad_mode.no_grad():
        out = op(self, *args, **kwargs)
    write(self, out._data, where)


def positions_written(self, op, args):
    """Where ``op`` writes into ``self``, whose elements share memory (an expanded tensor).

    PyTorch refuses such writes (which element's value would the memory keep?) except
    ``fill_`` with a number, ``x[key] = v`` and ``masked_fill_`` (the last two deprecated,
    with a warning); they write only the elements they select.  Returns True for all
    elements, else a boolean mask of ``self``'s shape."""
    data = self._data
    xp = namespace_of(data)
    if op is _F._fill and not isinstance(args[0], Tensor):
        return True
    if op is _F._index_put:
        _warn_expanded("index_put_", "tensor[indices] = tensor")
        value = args[1] if len(args) > 1 else None
        if _is_mask(args[0]) and (not isinstance(value, Tensor) or value._data.size == 1):
            _warn_expanded("masked_fill_", "tensor[mask] = scalar")  # runs as masked_fill_
        where = xp.zeros(data.shape, dtype=bool)
        where[index_key(args[0], data)] = True
        return where
    if op is _F.masked_fill:
        _warn_expanded("masked_fill_", "tensor[mask] = scalar")
        return xp.broadcast_to(args[0]._data, data.shape)
    raise RuntimeError(INTERNAL_OVERLAP_ERROR)


def _warn_expanded(op, example):
    warnings.warn(EXPANDED_WARNING.format(op=op, example=example), UserWarning, stacklevel=4)


def check_overlaps(self, op, args, kwargs):
    """PyTorch's refusal to write ``self`` while reading a tensor that shares part of its
    memory (autograd/overlap.py); ``x[index] = v`` refuses any sharing."""
    if op is _F._fill:
        return  # fill_ reads a number (a 0-d tensor's value), not memory
    check = check_partial_overlap
    if op is _F._index_put:
        value = args[1] if len(args) > 1 else None
        if isinstance(value, Tensor) and value._data.size == 1 and _is_mask(args[0]):
            return  # PyTorch runs this as masked_fill_ with the value's number
        check = check_no_overlap
    for arg in args:
        if isinstance(arg, Tensor):
            check(self._data, arg._data)
    for arg in kwargs.values():
        if isinstance(arg, Tensor):
            check(self._data, arg._data)


def _is_mask(key):
    return isinstance(key, Tensor) and key._data.dtype == np.bool_


_NUMPY_INPLACE = {_F.add: np.add, _F.sub: np.subtract, _F.mul: np.multiply, _F.div: np.true_divide}


def _numpy_inplace(self, op, args, kwargs):
    """``p -= lr * p.grad`` under no_grad: numpy's in-place ufunc, no temporary copy.

    Only for the four arithmetic ops; anything unusual (broadcasting into ``self``,
    a dtype change, extra arguments) returns False and takes the general path."""
    ufunc = _NUMPY_INPLACE.get(op)
    if ufunc is None or len(args) != 1 or (kwargs and kwargs != {"alpha": 1}):
        return False
    other = args[0]._data if isinstance(args[0], Tensor) else args[0]
    if not is_writeable(self._data) or \
            np.result_type(self._data.dtype, getattr(other, "dtype", other)) != self._data.dtype:
        return False
    try:
        _write_ufunc(self, ufunc, other)
    except (ValueError, TypeError):  # no broadcast to self's shape; another device's array
        return False
    return True


def rebase(self, op, args, kwargs, where=None):
    """Record ``op(self, ...)``, write its value into ``self``, make its node ``self``'s grad_fn.
    ``where``: the elements written, for an expanded ``self`` (positions_written)."""
    # The op saves its inputs by reference; give it a snapshot of ``self`` that
    # keeps the old value and the old history, since ``self`` is about to change.
    snapshot = _wrap(self._data.copy(), self.grad_fn, self._output_nr)
    snapshot._requires_grad = self._requires_grad
    out = op(snapshot, *args, **kwargs)
    write(self, out._data, where)
    self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
    self._requires_grad = out._requires_grad
    out.grad_fn.rebind_output(out._output_nr, self)
    if self._extras is not None and self._extras.get("retains_grad"):
        move_retain_grad(self, snapshot.grad_fn, snapshot._output_nr)
    return out.grad_fn


def write(self, values, where=None):
    """Copy ``values`` into ``self``'s storage (same shape; cast to ``self``'s dtype);
    for an expanded ``self``, only the elements ``where`` selects (positions_written)."""
    data = self._data
    if type(data) is np.ndarray and not data.flags.writeable:
        raise RuntimeError(READ_ONLY_ERROR)
    if where is None and has_internal_overlap(data):
        raise RuntimeError(INTERNAL_OVERLAP_ERROR)
    if values.shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast "
            f"shape {list(values.shape)}")
    if CATEGORY.get(values.dtype.kind, 4) > CATEGORY.get(data.dtype.kind, 4):
        # x.sqrt_() on an int tensor: torch refuses to truncate a float result (bool < int < float)
        raise RuntimeError(f"result type {scalar_type_name(values.dtype)} can't be cast to the "
                           f"desired output type {scalar_type_name(data.dtype)}")
    if where is None or where is True:
        namespace_of(data).copyto(data, values, casting="unsafe")
    else:  # an expanded tensor: only the elements selected (positions_written)
        namespace_of(data).copyto(data, values, casting="unsafe", where=where)
    self._version_counter[0] += 1


def any_requires_grad(values):
    for v in values:
        if isinstance(v, Tensor) and v._requires_grad:
            return True
    return False


# ------------------------------------------------------------- on views
def inplace_on_view(view, op, args, kwargs):
    """``op`` in place on ``view`` while recording: rebase the view's base onto CopySlices."""
    base = view._base
    entry = registration(view)
    if entry is not None and entry[1] != IN_GRAD_MODE:  # made under no_grad/inference_mode
        raise creation_error(entry[1], view)
    if entry is not None and base._requires_grad and base.grad_fn is None:
        # also for a view made before the leaf's requires_grad_(), as PyTorch
        raise RuntimeError(VIEW_OF_LEAF_ERROR)
    # an expanded view: the elements written (positions_written; torch warns here)
    written = positions_written(view, op, args) if has_internal_overlap(view._data) else None
    check_overlaps(view, op, args, kwargs)
    inputs_require_grad = any_requires_grad(args) or any_requires_grad(kwargs.values())
    if entry is None or not (view._requires_grad or inputs_require_grad):
        # detach() and other views with no autograd link to their base: the base's
        # history does not change, as in PyTorch.
        if view._requires_grad or inputs_require_grad:
            rebase(view, op, args, kwargs, written)
        else:
            _write_unrecorded(view, op, args, kwargs, written)
        return view
    if base._requires_grad and base.grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_ERROR)
    where = IndexMap(view._data, base._data)
    old = _wrap(view._data.copy(), view.grad_fn, view._output_nr)
    old._requires_grad = view._requires_grad
    out = op(old, *args, **kwargs)
    write(view, out._data, written)
    base_edge = (base.grad_fn, base._output_nr) if base.grad_fn is not None else (None, 0)
    # torch's backward writes the view's gradient into an expanded view too, and refuses
    node = CopySlices(base_edge, out.grad_fn, where, overlapping=written is not None)
    out.grad_fn.rebind_output(out._output_nr, view)
    base.grad_fn, base._output_nr, base._requires_grad = node, 0, True
    if base._extras.get("retains_grad"):
        move_retain_grad(base, base_edge[0], base_edge[1])
    refresh_views(base)
    _saved_result_follows_view(out.grad_fn, out._output_nr, view)
    return view


def _saved_result_follows_view(fn, output_nr, view):
    """``exp_``/``sigmoid_`` on a view save their result, which is now the view's value.

    Under create_graph that saved result must carry the view's new history (a read
    of the base's CopySlices), as in PyTorch, not ``fn`` itself: CopySlices owns
    ``fn`` and frees it after its backward, so a second backward through ``fn``
    would fail.  (This makes a reference cycle fn -> saved -> view's node ->
    CopySlices -> fn, which the garbage collector frees.)"""
    if view.grad_fn is fn:
        return
    for slot in fn._saved_slots:
        saved = getattr(fn, slot, None)
        if type(saved) is SavedTensor and saved.output_nr == output_nr and saved.tensor is None:
            saved.history = view.grad_fn


def setitem(tensor, key, value):
    """``tensor[key] = value``: a copy into a view for a basic key, index_put otherwise."""
    if not isinstance(value, (Tensor, int, float, complex, np.integer)):
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {name} to a {tensor.type()}")
    key = torch_key(key, tensor._data.ndim)
    if key is True or key is False:  # PyTorch: x.unsqueeze(0) written, or nothing
        if key:
            tensor[None] = value
        return
    split = split_selects(key)
    if split is not None:  # integers select first, as in PyTorch (split_selects)
        setitem(tensor[split[0]], split[1], value)
        return
    if _is_basic_key(key):
        view = tensor[key]
        if view._base is not None or view._data.base is not None:
            if isinstance(value, Tensor) and value._data.shape != view._data.shape:
                value = _expanded_for_setitem(view, value)
            view.copy_(value)
            return
    if isinstance(value, Tensor):
        value = index_put_source(tensor, key, value)
    apply_inplace(tensor, _F._index_put, key, value)  # IndexPutBackward0, from derivatives.yaml


def _expanded_for_setitem(view, value):
    """``value`` expanded to ``view``'s shape as PyTorch's setitem does (leading 1s
    dropped first), with PyTorch's error when it does not fit."""
    error = setitem_shape_error(view._data.shape, value._data.shape, value.type())
    if error is not None:
        raise error
    shape = value._data.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    return value.reshape(shape).expand(view._data.shape)


def _is_basic_key(key):
    parts = key if isinstance(key, tuple) else (key,)
    return all(p is None or p is Ellipsis or isinstance(p, slice)
               or (isinstance(p, (int, np.integer)) and not isinstance(p, bool)) for p in parts)
