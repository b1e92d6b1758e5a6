"""Graph-level tools: hooks on saved tensors, and walking a graph.

``saved_tensors_hooks(pack, unpack)``: while active, every tensor a node saves
for backward is replaced by ``pack(tensor)``, and ``unpack(packed)`` must give it
back when backward needs it.  Non-reentrant checkpointing is built on it (pack
keeps nothing; unpack recomputes), and so is counting saved bytes:

>>> sizes = []
>>> with minigrad.autograd.graph.saved_tensors_hooks(
...         lambda t: sizes.append(t._data.nbytes) or t, lambda t: t):
...     y = (x.exp() * x).sum()

``stats(t)``: nodes, depth, saved bytes and stale nodes reachable from ``t``:

>>> s = minigrad.autograd.graph.stats(loss)
>>> s.nodes, s.depth, s.saved_bytes, s.stale
(3, 3, 64, 0)

``stale`` counts nodes an earlier backward already walked (see
minigrad.autograd.leaks): in a healthy loop it is 0 before every backward; a
number that grows from one iteration to the next is a gradient leak.
"""
import collections
import threading
import weakref

from minigrad.autograd.engine import current_task
from minigrad.autograd.node import AccumulateGrad, edge_of
from minigrad.autograd.saved import SavedTensor, hooks_used, saved_hooks


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> anything``, ``unpack_hook(anything) -> Tensor``."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        self._outer = saved_hooks.stack
        hooks_used.on = True
        saved_hooks.stack = self._outer + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        saved_hooks.stack = self._outer
        return False


class disable_saved_tensors_hooks:
    """Inside, saved tensors are kept as usual even if hooks are registered outside."""

    def __enter__(self):
        self._saved = saved_hooks.stack
        saved_hooks.stack = ()
        return self

    def __exit__(self, *exc):
        saved_hooks.stack = self._saved
        return False


def walk(roots):
    """Every node reachable from ``roots`` (Tensors or nodes), each once."""
    from minigrad._tensor import Tensor
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
    from minigrad._tensor import Tensor
    values = [getattr(node, slot, None) for slot in node._saved_slots]
    values.extend(getattr(node, "_saved", ()))
    arrays = []
    for value in values:
        for saved in (value if isinstance(value, list) else [value]):
            if type(saved) is SavedTensor:
                if saved.tensor is not None:
                    arrays.append(saved.tensor._data)
                elif saved._data is not None:
                    arrays.append(saved._data)
            elif isinstance(saved, Tensor):
                arrays.append(saved._data)
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


GraphStats = collections.namedtuple(
    "GraphStats", "nodes depth saved_bytes stale leaves released")
GraphStats.__doc__ = """What ``stats(t)`` found reachable from ``t.grad_fn``.

nodes: op nodes (AccumulateGrad of leaves not counted; see ``leaves``)
depth: the longest path, in op nodes, from ``t`` to a leaf
saved_bytes: bytes of the arrays those nodes saved for backward (each array once)
stale: nodes an earlier backward without retain_graph already consumed
leaves: leaf tensors that require grad (AccumulateGrad nodes)
released: nodes whose saved values were freed by backward
"""


def nodes_of(root):
    """Every node reachable from ``root`` (a Tensor or a Node), as a list."""
    return list(walk([root]))


def stats(t):
    """Nodes, depth, saved bytes and stale (already consumed) nodes reachable from ``t``."""
    nodes = nodes_of(t)
    ops = [n for n in nodes if not isinstance(n, AccumulateGrad)]
    return GraphStats(
        nodes=len(ops), depth=_depth(nodes), saved_bytes=_saved_bytes(ops),
        stale=sum(1 for n in ops if n._consumed), leaves=len(nodes) - len(ops),
        released=sum(1 for n in ops if n._released))


def _depth(nodes):
    """Longest op-node path: process nodes in reverse creation order (children first)."""
    depth = {}
    for node in sorted(nodes, key=lambda n: n._sequence_nr if not isinstance(n, AccumulateGrad)
                       else -1):
        below = [depth.get(n, 0) for n, _ in node.next_functions if n is not None]
        depth[node] = (max(below) if below else 0) + (not isinstance(node, AccumulateGrad))
    return max(depth.values(), default=0)


def _saved_bytes(nodes):
    seen, total = set(), 0
    for node in nodes:
        for array in saved_arrays(node):
            if id(array) not in seen:
                seen.add(id(array))
                total += array.nbytes
    return total


class _MultiHandle:
    """The handle of ``register_multi_grad_hook``: ``.remove()`` removes every per-tensor hook."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward for the gradients of several tensors (PyTorch's).

    ``mode="all"``: ``fn(grads)`` after every gradient of ``tensors`` this backward
    computes has arrived; ``grads`` has ``None`` for a tensor it does not reach.
    ``mode="any"``: ``fn(grad)`` with the first of those gradients.

    >>> handle = register_multi_grad_hook((a, b), lambda grads: print(grads))
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    lock = threading.Lock()
    if mode == "any":
        ran = weakref.WeakKeyDictionary()  # graph task -> fn already ran

        def any_hook(grad):
            task = _task_or_raise(current_task())
            with lock:
                first = not ran.get(task, False)
                ran[task] = True
            if first:
                fn(grad)

        return _MultiHandle(tuple(t.register_hook(any_hook) for t in tensors if t.requires_grad))

    nodes = [edge_of(t)[0] for t in tensors]
    pending = weakref.WeakKeyDictionary()  # graph task -> [expected calls, grads]

    def inner_hook(i):
        def hook(grad):
            task = _task_or_raise(current_task())
            with lock:
                if task not in pending:
                    expected = sum(1 for node in nodes if node is not None and task.will_execute(node))
                    pending[task] = [expected, [None] * len(nodes)]
                state = pending[task]
                state[1][i] = grad
                state[0] -= 1
                done = state[0] == 0
                if done:
                    del pending[task]
            if done:
                fn(state[1])
        return hook

    return _MultiHandle(tuple(t.register_hook(inner_hook(i)) for i, t in enumerate(tensors)))


def _task_or_raise(task):
    if task is None:
        raise RuntimeError("expected this hook to be called inside a backward call")
    return task


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place change would: saved copies of it then refuse to be used in backward.

    >>> increment_version(x)     # x._version goes up by one
    """
    from minigrad._tensor import Tensor  # (import cycle: Tensor imports autograd)
    for t in ([tensor] if isinstance(tensor, Tensor) else tensor):
        t._version_counter[0] += 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are moved to the CPU and back to their device when backward needs them.

    >>> with minigrad.autograd.graph.save_on_cpu():
    ...     loss = model(x).sum()
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return tensor.device, tensor.detach().cpu()  # detached: saving records nothing

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)
