"""Custom Functions: an op whose forward and backward the user writes.

>>> class Cube(minigrad.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, grad):
...         x, = ctx.saved_tensors
...         return 3 * x ** 2 * grad
>>> y = Cube.apply(x)

As in PyTorch, ``ctx`` *is* the graph node (``y.grad_fn``, named ``CubeBackward``).
``forward`` runs with grad mode off; ``backward`` receives Tensors and runs in the
engine's grad mode, so a backward written with minigrad ops is itself
differentiable under ``create_graph=True`` (second order for free), unless it is
decorated with ``@once_differentiable``.
"""
import functools

import numpy as np

from minigrad._array import namespace_of
from minigrad.autograd import grad_mode
from minigrad.autograd.forward_ad import state as forward_ad
from minigrad.autograd.errors import FREED_GRAPH_ERROR, LEAF_INPLACE_ERROR
from minigrad.autograd.node import Node, edge_of
from minigrad.autograd.saved import SavedTensor


class FunctionCtx:
    """What ``forward`` may call on ``ctx`` (mixed into the Function's node)."""

    def save_for_backward(self, *tensors):
        """Keep tensors for backward; they are version-checked when unpacked."""
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place (they must be returned)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (indices, masks ...)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, gradients that did not arrive are ``None`` instead of zeros."""
        self._materialize_grads = bool(value)

    def save_for_forward(self, *tensors):
        """Keep tensors for ``jvp`` (forward mode), where ``ctx.saved_tensors`` returns them."""
        self._saved_for_forward = tensors

    @property
    def saved_tensors(self):
        if getattr(self, "_in_jvp", False):
            return tuple(self._saved_for_forward)
        if self._released:
            raise RuntimeError(FREED_GRAPH_ERROR)
        return tuple(s.unpack(self, True) if type(s) is SavedTensor else s for s in self._saved)


class BackwardCFunction(FunctionCtx, Node):
    """Base of the node class made for every Function subclass (``<Name>Backward``)."""

    _forward_cls = None

    def __init__(self, next_functions):
        Node.__init__(self, next_functions)
        self._to_save = ()
        self._saved = ()
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self.needs_input_grad = ()
        self._arg_metas = ()      # (shape, dtype) per argument, None for non-tensors
        self._output_metas = ()   # (shape, dtype) per output, None for non-tensors
        self.num_outputs = 1

    def apply(self, grads, create_graph):
        if self._released:
            raise RuntimeError(FREED_GRAPH_ERROR)
        from minigrad._tensor import Tensor, _wrap
        grads = list(grads) + [None] * (len(self._output_metas) - len(grads))
        given = next((g for g in grads if g is not None), None)  # zeros go where grads are
        xp = namespace_of(given._data if isinstance(given, Tensor) else given)
        tensors = []
        for g, meta in zip(grads, self._output_metas):
            if g is None:
                if self._materialize_grads and meta is not None:
                    g = _wrap(xp.zeros(meta[0], dtype=meta[1]))
            elif not isinstance(g, Tensor):
                g = _wrap(g)
            tensors.append(g)
        results = self._forward_cls.backward(self, *tensors)
        return self._check_results(results, create_graph)

    def _check_results(self, results, create_graph):
        from minigrad._tensor import Tensor
        if not isinstance(results, tuple):
            results = (results,)
        expected = len(self._arg_metas)
        if len(results) > expected and all(r is None for r in results[expected:]):
            results = results[:expected]
        if len(results) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(results)})")
        grads = []
        for i, (r, meta) in enumerate(zip(results, self._arg_metas)):
            if meta is None:
                if r is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a Tensor")
                continue
            if r is None or not self.needs_input_grad[i]:
                grads.append(None)
                continue
            if not isinstance(r, Tensor):
                raise TypeError(f"function {self.name()} returned a {type(r).__name__} as the "
                                f"gradient at position {i + 1}; return a Tensor or None")
            grads.append(self._fit(r, meta, i, create_graph))
        return tuple(grads)

    def _fit(self, grad, meta, i, create_graph):
        shape, dtype = meta
        if grad.shape != shape:
            try:
                summable = np.broadcast_shapes(grad.shape, shape) == grad.shape
            except ValueError:
                summable = False
            if not summable:
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
            from minigrad._generated import functions as Fn
            grad = Fn.sum_to_size(grad, shape)
        if grad.dtype != dtype:
            grad = grad.to(dtype)
        return grad if create_graph else grad._data

    def release(self):
        self._saved = ()
        self._released = True

    def saved_values(self):
        return {f"saved_tensors[{i}]": v for i, v in enumerate(self.saved_tensors)}


class FunctionMeta(type):
    """Gives every Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call
    ``apply``.  (Or PyTorch 2's style: ``forward(*args)`` plus ``setup_context``.)"""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    setup_context = None

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Custom Functions are used through their apply: "
                           f"{type(self).__name__}.apply(...), not by making an instance")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if forward_ad.active:  # a dual level is open: outputs get tangents from cls.jvp
            from minigrad.autograd.forward_ad import function_with_jvp  # lazy: rare path
            return function_with_jvp(cls, args, kwargs)
        return cls._run(args, kwargs)[0]

    @classmethod
    def _run(cls, args, kwargs):
        """(outputs, ctx): the forward, and the node that is its ``ctx``."""
        from minigrad._tensor import Tensor
        is_tensor = [isinstance(a, Tensor) for a in args]
        needs = tuple(t and a._requires_grad for t, a in zip(is_tensor, args))
        recording = grad_mode.enabled and any(needs)
        node = cls._backward_cls(tuple(edge_of(a) for a, t in zip(args, is_tensor) if t))
        node.needs_input_grad = needs if recording else tuple(False for _ in args)
        node._arg_metas = tuple((a.shape, a.dtype) if t else None for a, t in zip(args, is_tensor))
        with grad_mode.no_grad():
            if cls.setup_context is not None:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        if recording:
            outputs = _attach_outputs(node, args, outputs)
        elif node._dirty:
            outputs = tuple(outputs)
        node._saved = _save(node, node._to_save, outputs) if recording else ()
        node._to_save = ()
        return (outputs[0] if single else outputs), node


def _attach_outputs(node, args, outputs):
    """Make the node the grad_fn of every differentiable output."""
    from minigrad._tensor import Tensor, _make_view
    dirty = {id(t) for t in node._dirty}
    non_diff = {id(t) for t in node._non_differentiable}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    node.num_outputs = len(outputs)
    node._output_metas = tuple((o.shape, o.dtype) if isinstance(o, Tensor) else None
                               for o in outputs)
    result = []
    for nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            result.append(out)
            continue
        if id(out) in dirty:
            if out.grad_fn is None and out._requires_grad:
                raise RuntimeError(LEAF_INPLACE_ERROR)
            if out._base is not None and _dirty_view(node, args, outputs, out):
                result.append(out)
                continue
        elif id(out) in inputs:
            out = _make_view(out._data, out)  # an input returned as is: a new alias
        if id(out) in non_diff or out.dtype.kind != "f":
            out._requires_grad = False
        else:
            out.grad_fn, out._output_nr, out._requires_grad = node, nr, True
        result.append(out)
    return tuple(result)


def _dirty_view(node, args, outputs, view):
    """``view`` was changed in place by the Function: rewrite its base's history.
    False when the view has no autograd link to its base (then it is a plain output)."""
    from minigrad._tensor import Tensor
    from minigrad.autograd.views import rebase_on_view
    if sum(isinstance(o, Tensor) for o in outputs) != 1:
        raise RuntimeError(
            f"{node.name()}: mark_dirty on a view is supported when the view is the "
            "Function's only Tensor output; clone() the input before the Function, or "
            "return the other outputs from a second Function")
    tensors = [a for a in args if isinstance(a, Tensor)]
    view_nr = next((i for i, t in enumerate(tensors) if t is view), None)
    if view_nr is None:
        raise RuntimeError(f"{node.name()}: mark_dirty was given a tensor that is not an input")
    node.num_outputs = 1
    return rebase_on_view(view, node, view_nr)


def _save(node, to_save, outputs):
    from minigrad._tensor import Tensor
    output_ids = {id(o) for o in outputs if isinstance(o, Tensor) and o.grad_fn is node}
    saved = []
    for t in to_save:
        if t is None:
            saved.append(None)
        elif not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save Tensors or None, not {type(t).__name__}")
        else:
            saved.append(SavedTensor(t, is_output=id(t) in output_ids))
    return tuple(saved)


def once_differentiable(backward):
    """Mark a Function's backward as not differentiable: under ``create_graph=True`` its
    gradients are computed once, and differentiating them again raises."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        from minigrad.autograd.support import DelayedError
        from minigrad._tensor import Tensor, _wrap
        with grad_mode.no_grad():
            results = backward(ctx, *grads)
        if not grad_mode.enabled:
            return results
        edges = tuple(edge_of(g) for g in grads if isinstance(g, Tensor))
        if not any(node is not None for node, _ in edges):
            return results
        error = DelayedError(ctx.name(), "its backward is decorated with @once_differentiable",
                             edges)
        single = not isinstance(results, tuple)
        wrapped = tuple(_wrap(r._data, error) if isinstance(r, Tensor) else r
                        for r in ((results,) if single else results))
        return wrapped[0] if single else wrapped
    return wrapper
