"""Graph nodes: what backward runs.

Every differentiable op result points at a node (its ``grad_fn``).  A node knows
- ``next_functions``: one ``(node, output_nr)`` edge per differentiable input, in
  PyTorch's format; ``(None, 0)`` for an input that needs no gradient;
- how to turn gradients for its outputs into gradients for its inputs.

The node classes for ops are generated from derivatives.yaml into
``minigrad/_generated/nodes.py``; this module holds their base class and the one
hand-written node, ``AccumulateGrad``, that writes into a leaf's ``.grad``.
"""
import itertools
import sys
import weakref

import numpy as np

from minigrad._array import is_writeable, namespace_of
from minigrad import _tensor  # a module: Tensor is looked up at call time (import cycle)
from minigrad.autograd import anomaly as _anomaly
from minigrad.autograd.saved import FREED, SavedTensor, unpack

_sequence = itertools.count()
_ACCUMULATE_FIRST = 1 << 62


class Node:
    """Base of every graph node.

    Subclasses implement ``apply(grads, create_graph)`` -> one gradient (or None)
    per entry of ``next_functions``; generated nodes evaluate their formulas over
    ``F``: numpy functions in a plain backward, Tensor ops under ``create_graph``.
    """

    __slots__ = ("next_functions", "_sequence_nr", "_released", "_consumed", "_extras",
                 "_output_shape", "_output_dtype", "_more_output_metas", "__weakref__")

    #: names of the slots that hold saved values, set by generated subclasses
    _saved_slots = ()
    #: how many outputs the op has (gradient buffer size)
    num_outputs = 1
    #: input name -> formula text: set on nodes generated from derivatives.yaml only
    #: (the engine checks exactly the gradients those return; see output_meta)
    _formulas = None

    def __init__(self, next_functions=()):
        self.next_functions = next_functions
        self._sequence_nr = next(_sequence)
        self._released = False
        self._consumed = 0  # number of the backward that first ran it (leak check)
        self._extras = None
        # What output 0 looks like (set by Tensor's _init) and the others, if any
        self._output_shape = self._output_dtype = self._more_output_metas = None
        if _anomaly.enabled:
            _anomaly.record(self)  # the forward stack, for errors in this node's backward

    def name(self):
        return type(self).__name__

    def output_meta(self, output_nr):
        """``(shape, numpy dtype)`` of this node's output ``output_nr``, or None if unknown.

        A gradient flowing into this node for that output must look like this."""
        if output_nr == 0:
            return None if self._output_shape is None else (self._output_shape, self._output_dtype)
        return None if self._more_output_metas is None else self._more_output_metas.get(output_nr)

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

    def apply(self, grads, create_graph):
        raise NotImplementedError(f"{self.name()} does not implement apply(grads, create_graph)")

    def needs_input_grad(self, i):
        return self.next_functions[i][0] is not None

    def release(self):
        """Free saved values once backward ran without retain_graph.

        Numbers go too: PyTorch saves ``x * 2``'s 2 as a tensor and frees it, so a
        second backward through that node raises there as well."""
        if self._saved_slots:
            for slot in self._saved_slots:
                setattr(self, slot, FREED)
            self._released = True

    def rebind_output(self, output_nr, tensor):
        """An in-place op made ``tensor`` this node's output: saved outputs follow it."""
        for slot in self._saved_slots:
            saved = getattr(self, slot, None)
            if type(saved) is SavedTensor and saved.output_nr == output_nr and saved.tensor is None:
                saved.rebind(tensor)

    def saved_values(self):
        """The saved values by formula name (Tensors unpacked), for inspection."""
        return {slot[len("_raw_saved_"):]: unpack(getattr(self, slot), self, True)
                for slot in self._saved_slots if hasattr(self, slot)}

    def __getattr__(self, name):
        # PyTorch exposes saved values as grad_fn._saved_<name>.
        if name.startswith("_saved_") and not name.startswith("_saved_slots"):
            raw = "_raw" + name
            if raw in self._saved_slots:
                        return unpack(object.__getattribute__(self, raw), self, True)
        raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (PyTorch's ``Node.metadata``)."""
        return self._hook_lists().setdefault("metadata", {})

    # --- hooks (see minigrad.autograd.hooks): kept in _extras so plain nodes stay small
    def _hook_lists(self):
        if self._extras is None:
            self._extras = {}
        return self._extras

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        from minigrad.autograd.hooks import add_hook
        return add_hook(self._hook_lists().setdefault("post", {}), fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        from minigrad.autograd.hooks import add_hook
        return add_hook(self._hook_lists().setdefault("pre", {}), fn)


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable
        self._output_shape, self._output_dtype = variable._data.shape, variable._data.dtype
        # Leaves take their gradient as soon as it is ready; numbers stay unique (the
        # engine's heap never compares two nodes).
        self._sequence_nr = _ACCUMULATE_FIRST + self._sequence_nr

    def leaf_hooks(self, grads, create_graph):
        """The leaf tensor's own hooks (``register_hook`` on a leaf) applied to ``grads``."""
        extras = self.variable._extras
        hooks = extras.get("hooks") if extras is not None else None
        if hooks and grads[0] is not None:
            from minigrad.autograd.hooks import run_tensor_hooks
            grads = [run_tensor_hooks(hooks, grads[0], create_graph)]
        return grads

    def apply(self, grads, create_graph):
        Tensor, _wrap = _tensor.Tensor, _tensor._wrap
        leaf = self.variable
        extras = leaf._extras
        if extras is not None and "hooks" in extras and self._extras is None:
            # (with node hooks on this node, the engine ran the leaf's hooks before them)
            grads = self.leaf_hooks(grads, create_graph)
        grad = grads[0]
        if create_graph:
            new = grad if isinstance(grad, Tensor) else _wrap(grad)
            if new.dtype != leaf._data.dtype:
                new = new.to(leaf._data.dtype)
            leaf.grad = new if leaf.grad is None else leaf.grad + new
        else:
            array = grad._data if isinstance(grad, Tensor) else grad
            if leaf.grad is None:
                leaf.grad = _wrap(_owned_copy(array, leaf._data.dtype))
            elif leaf.grad.grad_fn is None and is_writeable(leaf.grad._data):
                namespace_of(array).add(leaf.grad._data, array, out=leaf.grad._data,
                                        casting="unsafe")
                leaf.grad._version_counter[0] += 1
            else:
                leaf.grad = _wrap(leaf.grad._data + array)
        if extras is not None and extras.get("post_accumulate"):
            from minigrad.autograd.hooks import run_post_accumulate_hooks
            run_post_accumulate_hooks(leaf)
        return ()


def _owned_copy(array, dtype):
    """``array`` for a leaf's ``.grad``: taken as is when nothing else refers to it (a fresh
    result of a formula, as PyTorch steals a gradient whose use count is 1), else a copy,
    since gradients may be shared (``a + b`` passes the same array to both)."""
    # References: the engine's buffer list, the caller's two locals, this argument,
    # and getrefcount's own argument.
    if (sys.getrefcount(array) <= 5 and type(array) is np.ndarray and array.base is None
            and array.dtype == dtype and array.flags.writeable):
        return array
    return namespace_of(array).array(array, dtype=dtype, copy=True)


def accumulator_of(leaf):
    """The leaf's AccumulateGrad, made on first use and cached weakly (as PyTorch does)."""
    extras = leaf._extras
    if extras is None:
        extras = leaf._extras = {}
    ref = extras.get("accumulator")
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        extras["accumulator"] = weakref.ref(node)
    return node


#: The edge of an input that needs no gradient (PyTorch's format: no node, output 0).
NO_EDGE = (None, 0)


def edge_of(value):
    """The ``(node, output_nr)`` a gradient for ``value`` flows into; ``NO_EDGE`` if none."""
    if isinstance(value, _tensor.Tensor):
        if value.grad_fn is not None:
            return (value.grad_fn, value._output_nr)
        if value._requires_grad:
            return (accumulator_of(value), 0)
    return NO_EDGE


def any_edge(edges):
    """Does some input need a gradient?  (A helper: the generated functions shadow ``any``.)"""
    return any(edge is not NO_EDGE for edge in edges)
