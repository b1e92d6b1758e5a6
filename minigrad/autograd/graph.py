"""Graph inspection: walk what a tensor's history keeps alive.

>>> s = minigrad.autograd.graph.stats(loss)
>>> s.nodes, s.depth, s.saved_bytes, s.stale
(4, 4, 96, 0)

``stale`` counts nodes an earlier non-retaining backward already ran: in a healthy
loop it is 0 before every backward; a number that grows from one iteration to the
next is a gradient leak (see minigrad.autograd.leaks).
"""
import collections

from minigrad.autograd.node import AccumulateGrad

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
    """Every node reachable from ``root`` (a Tensor or a Node), roots first, no recursion."""
    node = getattr(root, "grad_fn", root)
    if node is None:
        return []
    seen, order, stack = {node}, [], [node]
    while stack:
        current = stack.pop()
        order.append(current)
        for nxt, _ in current.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return order


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


def saved_arrays(node):
    """The arrays ``node`` keeps for backward (without unpacking or version checks)."""
    from minigrad.autograd.saved import SavedTensor
    arrays = []
    for slot in node._saved_slots:
        value = getattr(node, slot, None)
        for item in (value if isinstance(value, list) else [value]):
            if type(item) is SavedTensor:
                arrays.append(item.tensor.data if item.tensor is not None else item.data)
    return arrays


def _saved_bytes(nodes):
    seen, total = set(), 0
    for node in nodes:
        for array in saved_arrays(node):
            if id(array) not in seen:
                seen.add(id(array))
                total += array.nbytes
    return total
