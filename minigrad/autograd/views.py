"""Views and in-place operations: how a write through one tensor reaches the others.

A view (``x[1:]``, ``x.t()``, ``x.reshape(..)`` without a copy, ``x.detach()`` ...)
is a Tensor whose numpy array looks into its base's memory; both share one version
counter (tensor.py).  Autograd has to follow two things:

1. An in-place op on a **view** changes the base.  The base's history is rewritten
   as a ``CopySlices`` node (PyTorch's name): "the base, with the view's elements
   replaced by ``op(old view, ...)``".  Its backward splits the incoming gradient:
   the view's part goes through the op's own node (declared once in
   derivatives.yaml), the rest goes to the base's old history unchanged.
2. After any in-place op on a base or one of its views, every other view of that
   base must see the new history.  The views of a base are registered (weakly)
   when they are made, and get a fresh ``AsStridedBackward0`` node that reads
   their elements out of the base's gradient.

Which elements of the base a view covers is computed from numpy's strides and byte
offsets (``view_index``), so this works for every view op, present and future,
without a per-op "view replay" function.
"""
import re
import weakref

import numpy as np

from minigrad._array import data_pointer, namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode
from minigrad.autograd.hooks import move_retain_grad
from minigrad.autograd.node import Node
from minigrad.autograd.engine import current_task
from minigrad.autograd.overlap import INTERNAL_OVERLAP_ERROR

VIEW_OF_LEAF_ERROR = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation. "
    "Update parameters under `with minigrad.no_grad():`, or clone() the leaf first.")

NO_GRAD_VIEW_ERROR = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked).")


INFERENCE_VIEW_ERROR = (
    "A view was created in inference mode and is being modified inplace in normal mode. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the inference_mode "
    "block (if you don't want the inplace to be tracked) or both outside (if you want the "
    "inplace to be tracked).")

#: How a view was made (PyTorch's CreationMeta): in grad mode, under no_grad, or in
#: inference mode.  A view of a view made under no_grad or inference mode counts as made
#: there too, as in PyTorch.
IN_GRAD_MODE, IN_NO_GRAD, IN_INFERENCE = "grad", "no_grad", "inference"
OF_NO_GRAD_VIEW = "of a no_grad view"  # made in grad mode from a view made under no_grad


def creation_error(mode, view):
    """The error for an in-place op, recorded by autograd, on ``view`` made in ``mode``."""
    if mode == IN_INFERENCE:
        return RuntimeError(INFERENCE_VIEW_ERROR)
    if mode == OF_NO_GRAD_VIEW and view.grad_fn is not None:
        name = re.sub(r"Backward\d*$", "", view.grad_fn.name())
        index = getattr(view.grad_fn, "_saved_index", None)
        if name == "Getitem" and isinstance(index, (int, slice)):  # PyTorch's op for t[k]
            name = "Slice" if isinstance(index, slice) else "Select"
        return RuntimeError(f"Output {view._output_nr} of {name} is a view of a view which was "
                            "created in no_grad mode and is being modified inplace with grad "
                            "mode enabled." + NO_GRAD_VIEW_ERROR.split("grad mode enabled.")[1])
    return RuntimeError(NO_GRAD_VIEW_ERROR)


# --------------------------------------------------------------------- registry
def register_view(view, source=None):
    """Remember ``view`` on its base, so that in-place ops can refresh its history.
    ``source`` is the tensor it was taken from (a view itself, perhaps)."""
    base = view._base
    if grad_mode.enabled:
        mode = IN_GRAD_MODE
        entry = registration(source) if source is not None and source._base is base else None
        if entry is not None and entry[1] != IN_GRAD_MODE:
            mode = IN_INFERENCE if entry[1] == IN_INFERENCE else OF_NO_GRAD_VIEW
    else:
        mode = IN_INFERENCE if grad_mode.inference else IN_NO_GRAD
    if base._extras is None:
        base._extras = {}
    views = base._extras.get("views")
    if views is None:
        views = base._extras["views"] = {}
    elif len(views) >= base._extras.get("views_limit", 64):
        # drop dead entries; the limit doubles so this stays amortized O(1) per view
        _prune(views)
        base._extras["views_limit"] = max(64, 2 * len(views))
    views[id(view)] = (weakref.ref(view), mode)


def _prune(views):
    for key in [k for k, (ref, _) in views.items() if ref() is None]:
        del views[key]


def _live_views(base):
    views = (base._extras or {}).get("views") or {}
    result = []
    for ref, mode in list(views.values()):
        view = ref()
        if view is not None and view._base is base and mode == IN_GRAD_MODE:
            result.append(view)
    return result


def registration(view):
    entry = ((view._base._extras or {}).get("views") or {}).get(id(view))
    if entry is None or entry[0]() is not view:
        return None
    return entry


# ------------------------------------------------------------------ index maps
def view_index(view_array, base_array):
    """For every element of ``view_array``, its flat (C-order) index in ``base_array``.

    Both arrays share memory; an element is identified by its byte address.
    """
    origin = data_pointer(base_array)
    view_offsets = _byte_offsets(view_array, origin)
    if base_array.flags.c_contiguous:   # the usual base: element k sits at byte k * itemsize
        return view_offsets // base_array.itemsize
    base_offsets = _byte_offsets(base_array, origin).ravel()
    order = np.argsort(base_offsets, kind="stable")
    ordered = base_offsets[order]
    pos = np.clip(np.searchsorted(ordered, view_offsets), 0, max(len(ordered) - 1, 0))
    if ordered.size == 0 or not np.array_equal(ordered[pos], view_offsets):
        raise RuntimeError("internal error: a view's elements are not inside its base's storage")
    return order[pos]


def _byte_offsets(array, origin):
    offsets = np.full(array.shape, data_pointer(array) - origin, dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[axis] = n
        offsets = offsets + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return offsets


class IndexMap:
    """A view's place in its base, computed on first use (most graphs never need it)."""

    __slots__ = ("view_array", "base_array", "_index")

    def __init__(self, view_array, base_array):
        self.view_array, self.base_array, self._index = view_array, base_array, None

    @property
    def index(self):
        if self._index is None:
            self._index = view_index(self.view_array, self.base_array)
            self.view_array = None
        return self._index

    @property
    def base_shape(self):
        return self.base_array.shape

    @property
    def size(self):
        return self.base_array.size


def _index_on(xp, index):
    """The host-computed index map on the gradient's device."""
    return index if xp is np else xp.asarray(index)


def _scatter(grad, where, create_graph):
    """Zeros shaped like the base with ``grad`` (shaped like the view) added at the view."""
    if create_graph:
        from minigrad._generated import functions as Fn  # generated ops import views (cycle)
        flat = Fn.getitem_backward(grad, (where.size,), _index_on(namespace_of(grad._data),
                                                                  where.index))
        return Fn.reshape(flat, where.base_shape)
    xp = namespace_of(grad)
    flat = xp.zeros(where.size, dtype=grad.dtype)
    xp.add.at(flat, _index_on(xp, where.index), grad)  # add: an expanded view repeats elements
    return flat.reshape(where.base_shape)


# ------------------------------------------------------------------------ nodes
class AsStridedBackward0(Node):
    """The history of a view after its base changed in place: pick its elements."""

    __slots__ = ("where",)

    def __init__(self, base_edge, where):
        super().__init__((base_edge,))
        self.where = where

    def apply(self, grads, create_graph):
        return (_scatter(grads[0], self.where, create_graph),)


class NoGradViewSink(Node):
    """Where gradients for a view made under no_grad of a tensor that requires grad go:
    nowhere.  PyTorch marks such a view as requiring grad but gives it neither a grad_fn
    nor a gradient accumulator, so ops on it record, and their gradient for it is dropped."""

    __slots__ = ()

    def apply(self, grads, create_graph):
        return ()


def mark_no_grad_view(view):
    """``view`` (made under no_grad or inference_mode) of a tensor that requires grad."""
    view._requires_grad = True
    sink = NoGradViewSink()
    if view._extras is None:
        view._extras = {}
    view._extras["no_grad_sink"] = sink  # accumulator_of keeps only a weak reference
    view._extras["accumulator"] = weakref.ref(sink)


class CopySlices(Node):
    """A base after an in-place op on one of its views.

    ``next_functions`` are the base's old history, then the op's other inputs.
    Backward: the gradient of the view's elements goes through the op's node
    (``fn``); the result replaces those elements of the base's gradient.
    """

    __slots__ = ("fn", "where", "view_nr", "overlapping")

    def __init__(self, base_edge, fn, where, view_nr=0, overlapping=False):
        # view_nr: which input of ``fn`` the view is (not the first for a custom
        # Function's mark_dirty); fn's other inputs keep their edges, in order
        others = fn.next_functions[:view_nr] + fn.next_functions[view_nr + 1:]
        super().__init__((base_edge,) + tuple(others))
        self.fn = fn
        self.where = where
        self.view_nr = view_nr
        # the view was expanded (its elements share memory): PyTorch's backward writes
        # the view's gradient into an expanded view of the base's, and refuses to
        self.overlapping = overlapping

    def _view_first(self, results):
        k = self.view_nr
        return tuple(results) if k == 0 else (results[k],) + tuple(results[:k]) + tuple(results[k + 1:])

    def apply(self, grads, create_graph):
        if self.overlapping and self._base_gradient_needed():
            raise RuntimeError(INTERNAL_OVERLAP_ERROR)
        grad, where = grads[0], self.where
        index = where.index
        if create_graph:
            from minigrad._generated import functions as Fn  # generated ops import views (cycle)
            grad = grad if isinstance(grad, Tensor) else _wrap(grad)
            index = _index_on(namespace_of(grad._data), index)
            flat = Fn.reshape(grad, (-1,))
            results = self._view_first(self.fn.apply([Fn.getitem(flat, index)], True))
            keep = namespace_of(grad._data).ones(where.size, dtype=bool)
            keep[index.ravel()] = False
            flat = Fn.where(keep, flat, 0.0)  # select, not multiply: inf * 0 would be NaN
            if results[0] is not None:
                flat = Fn.add(flat, Fn.getitem_backward(results[0], (where.size,), index))
            return (Fn.reshape(flat, where.base_shape),) + tuple(results[1:])
        xp = namespace_of(grad)
        index = _index_on(xp, index)
        flat = grad.copy().reshape(-1)
        results = self._view_first(self.fn.apply([flat[index]], False))
        flat[index.ravel()] = 0
        if results[0] is not None:
            xp.add.at(flat, index, xp.broadcast_to(results[0], index.shape))
        return (flat.reshape(where.base_shape),) + tuple(results[1:])

    def _base_gradient_needed(self):
        """PyTorch's should_compute_output(0): the base's old history gets a gradient."""
        node = self.next_functions[0][0]
        if node is None:
            return False
        task = current_task()
        plan = task.plan if task is not None else None
        return plan is None or node in plan.runs or node in plan.edges

    def release(self):
        self.fn.release()
        self._released = self.fn._released

    def saved_values(self):
        return self.fn.saved_values()


# --------------------------------------------------------------- the operations
def rebase_on_view(view, fn, view_nr):
    """A custom Function (node ``fn``, whose input ``view_nr`` is ``view``) changed ``view``
    in place and said so with ``mark_dirty``: the base's history becomes CopySlices(fn)
    and the view reads its elements from it, as for a built-in in-place op.

    Returns False for a view with no autograd link to its base (``detach()``): then
    only the view itself gets ``fn`` as its history."""
    base = view._base
    entry = registration(view)
    if entry is None:
        return False
    if entry[1] != IN_GRAD_MODE:
        raise creation_error(entry[1], view)
    if base._requires_grad and base.grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_ERROR)
    base_edge = (base.grad_fn, base._output_nr) if base.grad_fn is not None else (None, 0)
    base.grad_fn = CopySlices(base_edge, fn, IndexMap(view._data, base._data), view_nr)
    base._output_nr, base._requires_grad = 0, True
    if base._extras is not None and base._extras.get("retains_grad"):
        move_retain_grad(base, base_edge[0], base_edge[1])
    refresh_views(base)
    if not isinstance(view.grad_fn, AsStridedBackward0):  # a view the registry does not know
        view.grad_fn = AsStridedBackward0((base.grad_fn, 0), IndexMap(view._data, base._data))
        view._output_nr, view._requires_grad = 0, True
    return True


def refresh_views(base):
    """Give every live view of ``base`` a history that reads from the base's new one."""
    if not base._requires_grad:
        return
    edge = (base.grad_fn, base._output_nr)
    for view in _live_views(base):
        old_fn, old_nr = view.grad_fn, view._output_nr
        view.grad_fn = AsStridedBackward0(edge, IndexMap(view._data, base._data))
        view._output_nr = 0
        view._requires_grad = True
        if view._extras is not None and view._extras.get("retains_grad"):
                move_retain_grad(view, old_fn, old_nr)
