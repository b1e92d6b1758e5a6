"""The backward engine: walk the graph from the roots and run each node once.

1. Count, for every node reachable from the roots, how many edges point at it.
2. Seed the roots' gradient buffers; a node whose count is zero is ready.
3. Pop the ready node created last (PyTorch's order), run it on the summed
   gradients for its outputs, and add each input gradient into the buffer of
   the node at the other end of that edge.  A node for which no gradient arrived
   (all ``None``: known zero) is not run.

It is a loop over an explicit heap, never recursion, so a 100 000-node chain is
fine.  In a plain backward the gradients are numpy arrays; under
``create_graph`` they are Tensors and the formulas record a new graph.
"""
import threading
from heapq import heapify, heappop, heappush

from minigrad.autograd import anomaly, grad_mode, leaks
from minigrad.autograd.hooks import run_post_hooks, run_pre_hooks
from minigrad.autograd.node import AccumulateGrad


def run_backward(roots, root_grads, retain_graph, create_graph, capture=None):
    """Propagate ``root_grads`` from the ``roots`` edges ``[(node, output_nr)]``.

    With ``capture`` (a list of edges), return ``{edge: gradient}`` for the
    gradients arriving at those edges, and run only the nodes needed to reach
    them; that is ``autograd.grad``.  Otherwise leaves accumulate into ``.grad``.
    """
    if len(roots) == 1:
        root_nodes = [roots[0][0]]
    else:
        root_nodes = list(dict.fromkeys(node for node, _ in roots))
    dependencies = _count_dependencies(root_nodes)
    buffers = {}
    for (node, nr), grad in zip(roots, root_grads):
        _add_to_buffer(buffers, node, nr, grad)
    plan = _capture_plan(root_nodes, capture) if capture is not None else None
    outer_task = _current.task
    _current.task = GraphTask(root_nodes, dependencies, plan)
    captured = {}
    # Sequence numbers are unique, so the heap never compares two nodes.
    ready = [(-node._sequence_nr, node) for node in root_nodes if node not in dependencies]
    heapify(ready)

    # Leak check: mark each node run with this backward's number (negative under
    # retain_graph, 0 under create_graph); a node already marked is stale.
    call = leaks.begin_backward()
    mark = 0 if create_graph else -call if retain_graph else call
    stale = []
    previous_mode = grad_mode.enabled
    grad_mode.enabled = create_graph
    try:
        while ready:
            node = heappop(ready)[1]
            grads = buffers.pop(node, None)
            if grads is not None:
                if node._extras is not None:
                    grads = run_pre_hooks(node, grads, create_graph)
                if plan is not None:
                    _capture(node, grads, plan, captured)
                    if node not in plan.runs:  # autograd.grad does not need it
                        grads = None
            if grads is None:
                # Not run (no gradient arrived, or not needed): its edges are done all the same.
                grad_inputs = (None,) * len(node.next_functions)
            else:
                if node._consumed:
                    _mark_stale(node, mark, stale)
                else:
                    node._consumed = mark
                if anomaly.enabled or node._extras is not None:
                    grad_inputs = _run_watched(node, grads, create_graph)
                else:
                    grad_inputs = node.apply(grads, create_graph)
                if not retain_graph:
                    node.release()
                if len(grad_inputs) != len(node.next_functions):
                    _wrong_count(node, grad_inputs)
            for (next_node, nr), grad in zip(node.next_functions, grad_inputs):
                if next_node is None:
                    continue
                if grad is not None:
                    if nr == 0 and next_node.num_outputs == 1 and next_node not in buffers:
                        buffers[next_node] = [grad]  # the common case, inline
                    else:
                        _add_to_buffer(buffers, next_node, nr, grad)
                left = dependencies[next_node] - 1
                if left:
                    dependencies[next_node] = left
                else:
                    heappush(ready, (-next_node._sequence_nr, next_node))
            # Let the buffers hold the only references: a leaf may then keep an unshared
            # gradient array instead of copying it (AccumulateGrad).
            grad_inputs = grad = None
    except RuntimeError as error:
        leaks.explain_freed(error, stale)
        raise
    finally:
        grad_mode.enabled = previous_mode
        _current.task = outer_task
        leaks.end_backward(call)
    if stale or call:
        leaks.check(call, stale)
    return captured


class GraphTask:
    """The backward running in this thread: which nodes it will run (for hooks that ask)."""

    def __init__(self, root_nodes, dependencies, plan):
        self.root_nodes, self.dependencies, self.plan = root_nodes, dependencies, plan

    def will_execute(self, node):
        """Will this backward run ``node``?  (PyTorch's ``_will_engine_execute_node``.)"""
        if self.plan is None:
            return node in self.dependencies or node in self.root_nodes
        if isinstance(node, AccumulateGrad):
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported.")
        return node in self.plan.runs or node in self.plan.edges


class _Current(threading.local):
    def __init__(self):
        self.task = None


_current = _Current()


def current_task():
    """The GraphTask of the backward running in this thread, or None outside backward."""
    return _current.task


def _mark_stale(node, mark, stale):
    """``node`` ran in an earlier backward already: remember it for the leak check."""
    stale.append(node)
    if node._consumed < 0 < mark:
        node._consumed = mark


def _run_watched(node, grads, create_graph):
    """A node's backward under anomaly mode (which names the node that failed, and
    where it was made) or with post-hooks."""
    if anomaly.enabled:
        grad_inputs = anomaly.call_node(node, grads, create_graph)
    else:
        grad_inputs = node.apply(grads, create_graph)
    if node._extras is not None:
        grad_inputs = run_post_hooks(node, grad_inputs, grads, create_graph)
    return grad_inputs


def _wrong_count(node, grad_inputs):
    raise RuntimeError(f"{node.name()} returned {len(grad_inputs)} gradients for "
                       f"{len(node.next_functions)} inputs")


def _add_to_buffer(buffers, node, nr, grad):
    """Sum the gradients for one output of ``node``: every use of a value contributes one."""
    buffer = buffers.get(node)
    if buffer is None:
        size = node.num_outputs
        buffer = buffers[node] = [None] * (size if size > nr else nr + 1)
    elif nr >= len(buffer):
        buffer.extend([None] * (nr + 1 - len(buffer)))
    old = buffer[nr]
    buffer[nr] = grad if old is None else old + grad


def _count_dependencies(root_nodes):
    dependencies = {}
    seen = set(root_nodes)
    stack = list(root_nodes)
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node is not None:
                if next_node in dependencies:
                    dependencies[next_node] += 1
                else:
                    dependencies[next_node] = 1
                    if next_node not in seen:
                        seen.add(next_node)
                        stack.append(next_node)
    return dependencies


class _CapturePlan:
    """Which edges to capture, and which nodes must run to reach them."""

    def __init__(self, edges, runs):
        self.edges = edges      # {node: [output_nr, ...]}
        self.runs = runs        # nodes with a capture somewhere below them


def _capture_plan(root_nodes, capture):
    edges = {}
    for node, nr in capture:
        edges.setdefault(node, []).append(nr)
    # A node must run if some capture is reachable through its next_functions.
    # Iterative post-order: decide a node after all its children are decided.
    runs, decided = set(), set()
    stack = [(node, False) for node in root_nodes]
    while stack:
        node, children_done = stack.pop()
        if node in decided:
            continue
        if not children_done:
            stack.append((node, True))
            stack.extend((n, False) for n, _ in node.next_functions
                         if n is not None and n not in decided)
            continue
        decided.add(node)
        if any(n is not None and (n in edges or n in runs) for n, _ in node.next_functions):
            runs.add(node)
    return _CapturePlan(edges, runs)


def _capture(node, grads, plan, captured):
    nrs = plan.edges.get(node)
    if nrs is None:
        return
    if type(node) is AccumulateGrad and node.variable._extras is not None and node._extras is None:
        grads = node.leaf_hooks(grads, grad_mode.enabled)
    for nr in nrs:
        captured[(node, nr)] = grads[nr] if nr < len(grads) else None
