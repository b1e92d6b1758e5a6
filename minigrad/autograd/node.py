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
# The flags object itself: `_anomaly.enabled` is a property call, and even `_anomaly.flags`
# is a slow read (a module of its own class is not specialized by CPython 3.11).
from minigrad.autograd.anomaly import flags as _anomaly_flags, used as _anomaly_used
from minigrad.autograd.saved import FREED, SavedTensor, unpack

node_sequence = itertools.count()  # every node's _sequence_nr (the engine's order)
_ACCUMULATE_FIRST = 1 << 62


class _NodeType(type):
    """Node's metaclass, for one thing: keep ``_grad_check`` (how the engine checks the
    gradients a node class returns) true when ``apply`` is assigned after the class was
    made (a test simulating a wrong formula, a patch): the shapes of the generated
    formulas are certain (codegen/exactness.py), those of a replacement are not."""

    def __setattr__(cls, name, value):
        super().__setattr__(name, value)
        if name in ("apply", "_formulas", "_shape_sources", "_dtype_certain"):
            _set_grad_check(cls)


class Node(metaclass=_NodeType):
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
    #: set on generated nodes whose formulas' gradient shapes are certain by construction
    #: (codegen/exactness.py): per input, where its shape is ("grad": the incoming
    #: gradient's; else a slot).  The engine then checks their gradients' dtypes only,
    #: as long as ``apply`` is still the generated one (``_generated_apply``).
    _shape_sources = None
    #: the apply generated for the class (any generated class), and whether ``apply`` is
    #: still it (kept by _set_grad_check).  The engine then calls
    #: ``apply(grads, create_graph, release)``: that apply returns one gradient per edge
    #: and, with ``release``, frees the saved values itself (the engine's ``release()``
    #: call, a Python frame per node, saved).
    _generated_apply = None
    _generated = False
    #: ``_grad_check`` where ``_generated``, else None: what the engine reads (one class
    #: attribute read per node, where two cost twice as much)
    _plain_check = None
    #: set (True) on those of them whose gradients' dtypes are certain too, when the
    #: node's output and the input are both float32 or both float64 (codegen/exactness.py);
    #: their generated forward tests that, once (support.check_every_gradient)
    _dtype_certain = False
    #: what the engine checks in the gradients apply returns (in a plain backward, and
    #: under create_graph, where the formulas run as Tensor ops), kept by _set_grad_check:
    #: NO_CHECK (hand-written nodes, and nodes whose forward did the check), FULL_CHECK
    #: (shape and dtype), DTYPE_CHECK
    _grad_check = 0
    _graph_check = 0
    #: output numbers whose tensor hooks and retain_grad the node runs itself, not the
    #: engine before it, and whose captured gradient (autograd.grad's inputs) it makes
    #: whole (``whole_gradients``): a compiled region's outputs it also reads (the
    #: gradient from outside is only part of theirs; compile/runtime.py)
    hooked_inside = ()

    def __init__(self, next_functions=()):
        init_node(self, next_functions)

    def name(self):
        return type(self).__name__

    def output_meta(self, output_nr):
        """``(shape, numpy dtype)`` of this node's output ``output_nr``, or None if unknown.

        A gradient flowing into this node for that output must look like this.  The shape
        of output 0 is None where only consumers with certain shapes recorded nothing
        (support.record_shapes)."""
        if output_nr == 0:
            dtype = getattr(self, "_output_dtype", None)
            return None if dtype is None else (getattr(self, "_output_shape", None), dtype)
        metas = getattr(self, "_more_output_metas", None)
        return None if metas is None else metas.get(output_nr)

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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_formulas" in cls.__dict__:  # a generated class: its own apply
            type.__setattr__(cls, "_generated_apply", cls.__dict__.get("apply"))
        _set_grad_check(cls)
        # PyTorch exposes saved values as grad_fn._saved_<name>: one property per saved
        # slot of the class.  Properties, not a __getattr__: a class with __getattr__
        # makes every attribute read on its instances about 4x slower (CPython 3.11 does
        # not specialize LOAD_ATTR for it), and the engine and the formulas read node
        # attributes in their hottest loops.
        for slot in cls.__dict__.get("_saved_slots", ()):
            name = slot[len("_raw"):]
            if slot.startswith("_raw_saved_") and not hasattr(cls, name):
                setattr(cls, name, _saved_value(slot))

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


def init_node(node, next_functions):
    """``Node.__init__``'s work, returned.  The generated forwards do the same inline
    (codegen/templates/functions.py.j2), and so do compile/runtime.py's CompiledBackward
    and _init_accumulator (AccumulateGrad): keep the four in step."""
    node.next_functions = next_functions
    node._sequence_nr = next(node_sequence)
    node._released = False
    node._consumed = 0  # number of the backward that first ran it (leak check)
    node._extras = None
    # _output_shape, _output_dtype, _more_output_metas: what the outputs look like, for
    # the engine's gradient check; set when known (the generated forwards, Tensor's
    # _init, record_shapes), and left unset until then (readers use getattr): nodes are
    # made by the thousand.
    if _anomaly_used.on and _anomaly_flags.enabled:
        _anomaly.record(node)  # the forward stack, for errors in this node's backward
    return node


NO_CHECK, FULL_CHECK, DTYPE_CHECK = 0, 1, 2
_new = object.__new__


def _set_grad_check(cls):
    """How the engine checks the gradients ``cls.apply`` returns, for ``cls`` and its
    subclasses: nothing (hand-written nodes: custom Functions and hooks have PyTorch's own
    rules), shape and dtype (generated nodes), the dtype only where the generated
    formulas' shapes are certain and ``apply`` is still the generated one, or (dtypes
    certain as well, in a plain backward) nothing: the forward tested that the output and
    the inputs share float32 or float64, and had every gradient checked where they do not
    (support.check_every_gradient).  Under create_graph the Tensor formulas run, whose
    dtypes exactness.py does not prove: their dtypes are checked."""
    if cls._formulas is None:
        check = graph_check = NO_CHECK
    elif cls._shape_sources and cls.apply is cls._generated_apply:
        graph_check = DTYPE_CHECK
        check = NO_CHECK if cls._dtype_certain else DTYPE_CHECK
    else:
        check = graph_check = FULL_CHECK
    type.__setattr__(cls, "_grad_check", check)
    type.__setattr__(cls, "_graph_check", graph_check)
    generated = cls._generated_apply is not None and cls.apply is cls._generated_apply
    type.__setattr__(cls, "_generated", generated)
    type.__setattr__(cls, "_plain_check", check if generated else None)
    for sub in cls.__subclasses__():
        _set_grad_check(sub)


def _saved_value(slot):
    """The property ``grad_fn._saved_<name>``: the value in ``slot``, Tensors unpacked."""
    def get(node):
        return unpack(getattr(node, slot), node, True)
    get.__name__ = slot[len("_raw"):]
    return property(get)


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        _init_accumulator(self, variable)

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
            old = leaf._grad
            if old is None:
                new = _owned_copy(array, leaf._data.dtype)
                if new.shape == leaf._data.shape and type(new) is type(leaf._data):
                    leaf._grad = _wrap(new)  # what the setter would check holds: skip it
                else:
                    leaf.grad = _wrap(new)  # (PyTorch's error)
            elif old.grad_fn is None and is_writeable(old._data):
                namespace_of(array).add(old._data, array, out=old._data, casting="unsafe")
                old._version_counter[0] += 1
            else:
                leaf.grad = _wrap(old._data + array)
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


def _init_accumulator(self, variable):
    """AccumulateGrad.__init__'s work: init_node's, inline as the generated forwards do it.
    One is made per leaf every step (a graph's end frees it): accumulator_of makes it
    without type.__call__ and __init__.  Leaves take their gradient as soon as it is
    ready; numbers stay unique (the engine's heap never compares two nodes)."""
    self.next_functions = ()
    self._sequence_nr = _ACCUMULATE_FIRST + next(node_sequence)
    self._released = False
    self._consumed = 0
    self._extras = None
    if _anomaly_used.on and _anomaly_flags.enabled:
        _anomaly.record(self)
    self.variable = variable
    self._output_shape, self._output_dtype = variable._data.shape, variable._data.dtype
    return self


def accumulator_of(leaf):
    """The leaf's AccumulateGrad, made on first use and cached weakly (as PyTorch does)."""
    extras = leaf._extras
    if extras is None:
        extras = leaf._extras = {}
    ref = extras.get("accumulator")
    node = ref() if ref is not None else None
    if node is None:
        node = _init_accumulator(_new(AccumulateGrad), leaf)
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
