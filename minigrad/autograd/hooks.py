"""Hooks: user functions the engine calls as gradients flow.

Where they live (as in PyTorch):
- a hook on a non-leaf tensor is a pre-hook of its ``grad_fn`` for that output;
- a hook on a leaf is kept on the tensor and run by its ``AccumulateGrad``;
- ``retain_grad()`` is a pre-hook that runs after the tensor's own hooks;
- node hooks: ``register_prehook(fn(grad_outputs))`` and
  ``register_hook(fn(grad_inputs, grad_outputs))``.

Order for one node: tensor hooks, retain_grad, node pre-hooks, the node, node hooks;
for a leaf's AccumulateGrad, post-accumulate-grad hooks run inside the node.
Hooks see and return Tensors, also in a plain backward where the engine itself
works on arrays.
"""
import itertools
import weakref
from minigrad import _tensor  # a module: read at call time (import cycle)

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``.remove()`` unregisters the hook."""

    def __init__(self, registry):
        self.id = next(_handle_ids)
        self._registry = registry

    def remove(self):
        self._registry.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(registry, fn):
    handle = RemovableHandle(registry)
    registry[handle.id] = fn
    return handle


def _as_tensor(grad):
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    return grad if grad is None or isinstance(grad, Tensor) else _wrap(grad)


def _like_engine(grad, create_graph):
    """Hooks return Tensors; a plain backward continues with their arrays."""
    Tensor = _tensor.Tensor
    if grad is None or create_graph:
        return grad
    return grad._data if isinstance(grad, Tensor) else grad


def run_tensor_hooks(hooks, grad, create_graph):
    """One tensor's hooks, in registration order; each may replace the gradient."""
    for fn in list(hooks.values()):
        new = fn(_as_tensor(grad))
        if new is not None:
            grad = _like_engine(_checked(fn, new, grad), create_graph)
    return grad


_LEGACY_TYPE = {"float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor",
                "int8": "CharTensor", "int16": "ShortTensor", "int32": "IntTensor",
                "int64": "LongTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


def _checked(fn, new, old):
    """A hook's replacement gradient: a Tensor of the old one's size and dtype, or
    PyTorch's error (check_single_result in torch/csrc/autograd/python_hook.cpp)."""
    if not isinstance(new, _tensor.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if old is None:
        return new
    old_array = old._data if isinstance(old, _tensor.Tensor) else old
    name = getattr(fn, "__name__", type(fn).__name__)
    if new._data.shape != old_array.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if new._data.dtype != old_array.dtype:
        was, got = (_LEGACY_TYPE.get(d.name, d.name) for d in (old_array.dtype, new._data.dtype))
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was torch.{was} got torch.{got})")
    return new


def run_pre_hooks(node, grads, create_graph):
    """Apply tensor hooks, retain_grad and node pre-hooks to ``grads`` (a list).

    A leaf's own tensor hooks come first (PyTorch's order); without node hooks on its
    AccumulateGrad the engine skips this function and AccumulateGrad runs them."""
    extras = node._extras
    if hasattr(node, "leaf_hooks"):
        grads = node.leaf_hooks(grads, create_graph)
    own = node.hooked_inside   # (outputs whose hooks the node runs itself, on their whole gradient)
    for nr, hooks in extras.get("tensor_hooks", {}).items():
        if nr < len(grads) and grads[nr] is not None and nr not in own:
            grads[nr] = run_tensor_hooks(hooks, grads[nr], create_graph)
    for nr, ref in extras.get("retains_grad", {}).items():
        tensor = ref()
        if tensor is not None and nr < len(grads) and grads[nr] is not None and nr not in own:
            _retain(tensor, grads[nr], create_graph)
    pre = extras.get("pre")
    if pre:
        for fn in list(pre.values()):
            new = fn(tuple(_as_tensor(g) for g in grads))
            if new is not None:
                _check_count(fn, new, grads)
                grads[:] = [_like_engine(g if g is None else _checked(fn, g, old), create_graph)
                            for g, old in zip(new, grads)]
    return grads


def _check_count(fn, new, old):
    if len(new) != len(old):
        name = getattr(fn, "__name__", type(fn).__name__)
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values "
                           f"(got {len(new)}, but expected {len(old)})")


def run_post_hooks(node, grad_inputs, grads, create_graph):
    post = (node._extras or {}).get("post")
    if not post:
        return grad_inputs
    for fn in list(post.values()):
        new = fn(tuple(_as_tensor(g) for g in grad_inputs), tuple(_as_tensor(g) for g in grads))
        if new is not None:
            _check_count(fn, new, grad_inputs)
            grad_inputs = tuple(_like_engine(g if g is None else _checked(fn, g, old), create_graph)
                                for g, old in zip(new, grad_inputs))
    return grad_inputs


def _retain(tensor, grad, create_graph):
    _wrap = _tensor._wrap
    if create_graph:
        tensor.grad = grad if tensor.grad is None else tensor.grad + grad
    else:
        array = _like_engine(grad, False)
        tensor.grad = _wrap(array.copy()) if tensor.grad is None else _wrap(tensor.grad._data + array)


def register_tensor_hook(tensor, fn):
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is None:
        extras = tensor._extras if tensor._extras is not None else {}
        tensor._extras = extras
        return add_hook(extras.setdefault("hooks", {}), fn)
    lists = tensor.grad_fn._hook_lists().setdefault("tensor_hooks", {})
    return add_hook(lists.setdefault(tensor._output_nr, {}), fn)


def retain_grad(tensor):
    if not tensor._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.grad_fn is None:
        return  # leaves keep their .grad anyway
    tensor.grad_fn._hook_lists().setdefault("retains_grad", {})[tensor._output_nr] = weakref.ref(tensor)
    if tensor._extras is None:
        tensor._extras = {}
    tensor._extras["retains_grad"] = True


def register_post_accumulate_grad_hook(tensor, fn):
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if tensor._extras is None:
        tensor._extras = {}
    return add_hook(tensor._extras.setdefault("post_accumulate", {}), fn)


def run_post_accumulate_hooks(leaf):
    for fn in list(leaf._extras["post_accumulate"].values()):
        fn(leaf)


def move_retain_grad(tensor, old_fn, old_nr):
    """After an in-place op, ``.grad`` of a retaining tensor is the gradient of its new
    version (PyTorch's rule); hooks registered earlier stay with the old version."""
    retained = (old_fn._extras or {}).get("retains_grad", {}) if old_fn is not None else {}
    ref = retained.get(old_nr)
    if ref is not None and ref() is tensor:
        del retained[old_nr]
        retain_grad(tensor)
