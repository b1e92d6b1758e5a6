"""Saved values: what a node keeps from the forward pass for its backward formulas.

A saved *input* keeps the Tensor itself (so a second-order graph can flow through
it) and the version it had when saved.  A saved *output* (``result`` in a formula)
keeps only the array and the version counter, not the Tensor: the Tensor points at
the node, and the node pointing back at it would make a reference cycle that only
the cyclic garbage collector could free.  On unpack under ``create_graph`` the
output is rebuilt as a Tensor whose ``grad_fn`` is the unpacking node.
"""
import re
import threading

from minigrad.autograd import anomaly as _anomaly
from minigrad.autograd.grad_mode import Latch
from minigrad.autograd.errors import (
    DETACHED_SAVED_ERROR, FREED_GRAPH_ERROR, VERSION_ERROR, VERSION_HINT, VERSION_HINT_ANOMALY)


class _Hooks(threading.local):
    """(pack, unpack) pairs from minigrad.autograd.graph.saved_tensors_hooks, per thread as
    in PyTorch; the last one wins.  A tuple, replaced (never mutated) on entry and exit."""

    def __init__(self):
        self.stack = ()


saved_hooks = _Hooks()
hooks_used = Latch()  # has any thread installed saved-tensor hooks? (see Latch)


class SavedTensor:
    __slots__ = ("tensor", "_data", "version", "counter", "output_nr", "packed", "unpack_hook",
                 "had_history", "history")

    def __new__(cls, tensor, is_output=False):
        return save_tensor(tensor, is_output)

    def unpack(self, node, as_tensor):
        if self.counter[0] != self.version:
            self._raise_version_error(node)
        if self.unpack_hook is not None:
            value = self.unpack_hook(self.packed)
            if not isinstance(value, _tensor.Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                                f"got result of type {type(value).__name__}")
            return value if as_tensor else value._data
        if self.tensor is not None:
            if self.had_history and self.tensor.grad_fn is None:
                raise RuntimeError(DETACHED_SAVED_ERROR)
            return self.tensor if as_tensor else self.tensor._data
        if not as_tensor:
            return self._data
        _init, Tensor = _tensor._init, _tensor.Tensor
        t = Tensor.__new__(Tensor)
        if self.history is not None:
            _init(t, self._data, self.history, 0, self.counter, None)
        else:
            _init(t, self._data, node, self.output_nr, self.counter, None)
        return t

    def register_hooks(self, pack_hook, unpack_hook):
        """Hooks for this one saved tensor (``grad_fn._raw_saved_self.register_hooks``):
        ``pack_hook(tensor)`` runs now, ``unpack_hook(packed)`` whenever backward needs it.

        >>> y = x * x
        >>> y.grad_fn._raw_saved_self.register_hooks(lambda t: t.numpy().copy(),
        ...                                          lambda a: minigrad.tensor(a))
        """
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook and "
                            "unpack_hook must be callables")
        if self.unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time.")
        tensor = self.tensor
        if tensor is None:  # a saved output: the same storage and version counter
            tensor = _tensor.Tensor.__new__(_tensor.Tensor)
            _tensor._init(tensor, self._data, None, 0, self.counter, None)
        self.packed = pack_hook(tensor)
        self.unpack_hook = unpack_hook
        self.tensor = self._data = None

    def rebind(self, tensor):
        """After an in-place op, the saved output is the mutated tensor's storage."""
        self._data, self.counter, self.unpack_hook = tensor._data, tensor._version_counter, None
        self.version = tensor._version_counter[0]

    def _raise_version_error(self, node):
        """PyTorch's message: the tensor's type and shape and, when it has one, the node it
        is an output of (for a saved input its grad_fn now, for a saved output ``node``)."""
        data = self.tensor._data if self.tensor is not None else self._data
        if data is None:  # packed by a saved_tensors_hooks pack hook
            data = self.unpack_hook(self.packed)._data
        if self.tensor is not None and self.tensor.grad_fn is not None:
            role = f", which is output {self.tensor._output_nr} of {_op_name(self.tensor.grad_fn)},"
        elif self.tensor is not None:
            role = ""  # a leaf: PyTorch names no node
        else:
            role = f", which is output {self.output_nr} of {_op_name(node)},"
        shell = _tensor.Tensor.__new__(_tensor.Tensor)
        _tensor._init(shell, data, None, 0, self.counter, None)
        hint = VERSION_HINT_ANOMALY if _anomaly.is_anomaly_enabled() else VERSION_HINT
        raise RuntimeError(VERSION_ERROR.format(
            type=shell.type(), shape=list(data.shape), role=role, current=self.counter[0],
            saved=self.version, hint=hint))


def save_tensor(tensor, is_output=False):
    """``SavedTensor(tensor, is_output)``: a function the generated forwards call for each
    Tensor they save (``type.__call__`` with a Python ``__init__`` costs about as much
    again, on every op's forward)."""
    saved = _new(SavedTensor)
    if tensor._extras is not None and tensor._extras.get("inference"):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors "
            "created in inference mode in computation tracked by autograd. To work around "
            "this, you can make a clone to get a normal tensor and use it in autograd, or "
            "use `minigrad.no_grad()` instead of `minigrad.inference_mode()`.")
    saved.counter = tensor._version_counter
    saved.version = tensor._version_counter[0]
    saved.unpack_hook = None
    saved.history = None  # a saved output that became a view's value: the view's grad_fn
    # a saved input with history that later loses it (detach_()) would silently drop
    # the second-order terms through it: PyTorch refuses to unpack it, and so do we
    saved.had_history = not is_output and tensor.grad_fn is not None
    if hooks_used.on and saved_hooks.stack:
        pack, saved.unpack_hook = saved_hooks.stack[-1]
        saved.tensor, saved._data = None, None
        saved.output_nr = tensor._output_nr if is_output else -1
        saved.packed = pack(tensor)
    elif is_output:
        saved.tensor, saved._data, saved.output_nr = None, tensor._data, tensor._output_nr
    else:
        saved.tensor = tensor
        saved._data = None
        saved.output_nr = -1
    return saved


_new = object.__new__


def _op_name(node):
    """A node's name in PyTorch's version-counter message: ``Exp`` for ``ExpBackward0``
    (CopySlices keeps its C++ name, as in PyTorch)."""
    name = node.name()
    if name == "CopySlices":
        return "torch::autograd::CopySlices"
    return re.sub(r"Backward\d*$", "", name)


#: the arguments save keeps, unpack returns, and data_of and edge_of pass, as they are:
#: the generated code tests for them inline (`y * 0.9`: no call)
PY_NUMBERS = (float, int)


def save(value, is_output=False):
    """Wrap what a node keeps: Tensors are version-tracked, anything else kept as is."""
    if isinstance(value, _tensor.Tensor):
        return save_tensor(value, is_output)
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], _tensor.Tensor):
        return [save_tensor(v) for v in value]
    return value


def unpack(saved, node, as_tensor):
    if type(saved) is SavedTensor:
        if not as_tensor and saved.counter[0] == saved.version and saved.unpack_hook is None:
            # the plain backward's common case, without a method call (the generated
            # apply inlines the same tests: codegen/templates/nodes.py.j2, unpack_saved)
            tensor = saved.tensor
            if tensor is None:
                return saved._data
            if tensor.grad_fn is not None or not saved.had_history:
                return tensor._data
        return saved.unpack(node, as_tensor)
    if saved is FREED:
        raise RuntimeError(FREED_GRAPH_ERROR)
    if type(saved) is list and saved and type(saved[0]) is SavedTensor:
        return [s.unpack(node, as_tensor) for s in saved]
    return saved


class _Freed:
    """Marks a saved slot whose value was released after backward."""

    def __repr__(self):
        return "<freed>"

    def register_hooks(self, pack_hook, unpack_hook):
        raise RuntimeError(
            "Calling register_hooks on a saved tensor after it has been freed. Saved "
            "intermediate values of the graph are freed when you call .backward() or "
            "autograd.grad(). Specify retain_graph=True if you need to backward through the "
            "graph a second time or if you need to access saved variables after calling backward.")


FREED = _Freed()


from minigrad import _tensor  # noqa: E402  (a module: Tensor is read at call time)
