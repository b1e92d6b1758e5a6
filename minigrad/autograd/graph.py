"""Graph-level tools: hooks on saved tensors, and walking a graph.

``saved_tensors_hooks(pack, unpack)``: while active, every tensor a node saves
for backward is replaced by ``pack(tensor)``, and ``unpack(packed)`` must give it
back when backward needs it.  Non-reentrant checkpointing is built on it (pack
keeps nothing; unpack recomputes), and so is counting saved bytes:

>>> sizes = []
>>> with minigrad.autograd.graph.saved_tensors_hooks(
...         lambda t: sizes.append(t.data.nbytes) or t, lambda t: t):
...     y = (x.exp() * x).sum()
"""
from minigrad.autograd.saved import SavedTensor, hooks_stack


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> anything``, ``unpack_hook(anything) -> Tensor``."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        hooks_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        hooks_stack.pop()
        return False


class disable_saved_tensors_hooks:
    """Inside, saved tensors are kept as usual even if hooks are registered outside."""

    def __enter__(self):
        self._saved = hooks_stack[:]
        hooks_stack.clear()
        return self

    def __exit__(self, *exc):
        hooks_stack[:] = self._saved
        return False


def walk(roots):
    """Every node reachable from ``roots`` (Tensors or nodes), each once."""
    from minigrad.tensor import Tensor
    stack = [r.grad_fn if isinstance(r, Tensor) else r for r in roots]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        yield node
        stack.extend(n for n, _ in node.next_functions)
        inner = getattr(node, "fn", None)  # CopySlices keeps the in-place op's node inside
        if inner is not None:
            stack.append(inner)


def saved_arrays(node):
    """The numpy arrays a node holds for backward (what it costs in memory)."""
    from minigrad.tensor import Tensor
    values = [getattr(node, slot, None) for slot in node._saved_slots]
    values.extend(getattr(node, "_saved", ()))
    arrays = []
    for value in values:
        for saved in (value if isinstance(value, list) else [value]):
            if type(saved) is SavedTensor:
                if saved.tensor is not None:
                    arrays.append(saved.tensor.data)
                elif saved.data is not None:
                    arrays.append(saved.data)
            elif isinstance(saved, Tensor):
                arrays.append(saved.data)
    return arrays


def saved_bytes(*roots):
    """Bytes of distinct arrays saved for backward in the graph behind ``roots``."""
    seen, total = set(), 0
    for node in walk(roots):
        for array in saved_arrays(node):
            if id(array) not in seen:
                seen.add(id(array))
                total += array.nbytes
    return total
