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
from minigrad.autograd.forward_ad import state as forward_ad
from minigrad.autograd.grad_mode import set_enabled
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
    # The ready node made last runs next.  Mostly that is the node the previous one just
    # made ready (a chain): it waits in `next_up`, not in the heap, which then holds only
    # nodes made earlier than it.  Same order as the heap alone, without its tuples.
    next_up = None
    handed = None  # next_up's gradients, where they skipped the buffers
    if len(roots) == 1 and root_nodes[0] not in dependencies:
        # One root (loss.backward()): it runs first, its gradients handed over likewise
        next_up, nr = roots[0]
        size = next_up.num_outputs
        handed = [None] * (size if size > nr else nr + 1)
        handed[nr] = root_grads[0]
        ready = []
    else:
        for (node, nr), grad in zip(roots, root_grads):
            _add_to_buffer(buffers, node, nr, grad)
        # Sequence numbers are unique, so the heap never compares two nodes.
        ready = [(-node._sequence_nr, node) for node in root_nodes if node not in dependencies]
        heapify(ready)
    plan = _capture_plan(root_nodes, capture) if capture is not None else None
    tasks = _current.tasks  # (one thread-local read: the list is pushed and popped)
    tasks.append((root_nodes, dependencies, plan))  # a GraphTask when asked for
    captured = {}

    # Leak check: mark each node run with this backward's number (negative under
    # retain_graph, 0 under create_graph); a node already marked is stale.
    call = leaks.begin_backward()
    mark = 0 if create_graph else -call if retain_graph else call
    release = not retain_graph  # each node's saved values, once it ran
    stale = []
    # Read once per backward (hot loop): the flags object of this thread, and the
    # benchmark switch of the gradient check (see check_generated).
    anomaly_flags, anomaly_used, check = anomaly.flags, anomaly.used, check_generated
    # This thread's flags as a dict: one thread-local access for the read and both writes
    mode = grad_mode.flags.__dict__
    previous_mode = mode["enabled"]
    set_enabled(mode, create_graph)
    # With a forward-AD level open, saved values and gradients may carry tangents: nodes
    # run their Tensor formulas (as under create_graph) so the tangents propagate.
    create_graph = create_graph or forward_ad.active
    plain_checks = check and not create_graph  # (a plain node's check: its _plain_check)
    try:
        while next_up is not None or ready:
            if next_up is None:
                node = heappop(ready)[1]
                grads = buffers.pop(node, None)
            elif handed is None:
                node, next_up = next_up, None
                grads = buffers.pop(node, None)
            else:
                node, grads = next_up, handed
                next_up = handed = None
            # Each read once: node attributes are slow reads here, where every node class
            # passes (CPython cannot specialize them).
            next_functions, extras = node.next_functions, node._extras
            if (extras is not None or plan is not None) and grads is not None:
                if extras is not None:
                    grads = run_pre_hooks(node, grads, create_graph)
                if plan is not None:
                    _capture(node, grads, plan, captured)
                    extras = node._extras  # (a leaf's hooks, which _capture ran, may add some)
                    if node not in plan.runs:  # autograd.grad does not need it
                        grads = None
            if grads is None:
                # Not run (no gradient arrived, or not needed): its edges are done all the same.
                grad_inputs = (None,) * len(next_functions)
                checking = False
            else:
                if node._consumed:
                    if type(node) is not AccumulateGrad:  # (a leaf's is run by every backward)
                        _mark_stale(node, mark, stale)
                else:
                    node._consumed = mark
                # How the engine checks the gradients it returns: 0: hand-written node, or
                # one whose forward did the check; 1: generated (FULL_CHECK); 2: generated,
                # its shapes certain by construction (DTYPE_CHECK, codegen/exactness.py).
                # Watched nodes check theirs in _run_watched.
                # (_plain_check: None for any node but a generated one, else its _grad_check:
                # one class attribute read, a slow read here where every node class passes)
                plain = node._plain_check
                if plain is not None and extras is None \
                        and not (anomaly_used.on and anomaly_flags.enabled):
                    # the common case: it frees its saved values itself, and returns one
                    # gradient per edge
                    grad_inputs = node.apply(grads, create_graph, release)
                    checking = plain if plain_checks else check and node._graph_check
                else:
                    if extras is not None or (anomaly_used.on and anomaly_flags.enabled):
                        grad_inputs = _run_watched(node, grads, create_graph)
                        checking = False
                    else:
                        grad_inputs = node.apply(grads, create_graph)
                        checking = check and (node._graph_check if create_graph
                                              else node._grad_check)
                    if release:
                        node.release()
                    if len(grad_inputs) != len(next_functions):
                        _wrong_count(node, grad_inputs)
            # (an index loop: zip's object and its two tuple iterators cost three times as much)
            count, i = len(grad_inputs), 0
            while i < count:
                next_node, nr = next_functions[i]
                grad = grad_inputs[i]
                i += 1
                if next_node is None:
                    continue
                if grad is not None:
                    # A generated node's gradient: exactly its input's shape and dtype.  The
                    # common case costs two identity tests (and one shape tuple where the
                    # shape is not certain); anything else (an output other than 0, a dtype
                    # to cast, no array, nothing recorded, a mistake) goes to
                    # checked_gradient, which decides and explains.
                    if checking:
                        try:
                            array = grad._data if create_graph else grad
                            usual = not nr and array.dtype is next_node._output_dtype and (
                                checking == 2 or array.shape == next_node._output_shape)
                        except AttributeError:  # not an array, or an unrecorded output
                            usual = False
                        array = None
                        if not usual:
                            grad = checked_gradient(node, grads, grad_inputs, grad,
                                                    next_node.output_meta(nr))
                    if nr == 0 and next_node.num_outputs == 1 and next_node not in buffers:
                        if next_up is None and not ready and dependencies[next_node] == 1:
                            # Its only gradient, and it runs next (a chain): handed over
                            # without the buffers (its count is done with: never read again)
                            next_up, handed = next_node, [grad]
                            continue
                        buffers[next_node] = [grad]  # the common case, inline
                    else:
                        _add_to_buffer(buffers, next_node, nr, grad)
                left = dependencies[next_node] - 1
                if left:
                    dependencies[next_node] = left
                elif next_up is None:
                    if ready and -ready[0][0] > next_node._sequence_nr:
                        heappush(ready, (-next_node._sequence_nr, next_node))
                    else:
                        next_up = next_node
                elif next_node._sequence_nr > next_up._sequence_nr:
                    if handed is not None:  # (next_up waits in the heap: its gradients too)
                        buffers[next_up], handed = handed, None
                    heappush(ready, (-next_up._sequence_nr, next_up))
                    next_up = next_node
                else:
                    heappush(ready, (-next_node._sequence_nr, next_node))
            # Let the buffers hold the only references: a leaf may then keep an unshared
            # gradient array instead of copying it (AccumulateGrad).
            grad_inputs = grad = None
    except RuntimeError as error:
        leaks.explain_freed(error, stale)
        raise
    finally:
        set_enabled(mode, previous_mode)
        tasks.pop()
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
        # The backwards running in this thread, innermost last: each a GraphTask, or the
        # arguments of one until some hook asks (most backwards never make one).
        self.tasks = []


_current = _Current()


def current_task():
    """The GraphTask of the backward running in this thread, or None outside backward
    (the same object each time it is asked during one backward)."""
    tasks = _current.tasks
    if not tasks:
        return None
    if type(tasks[-1]) is tuple:
        tasks[-1] = GraphTask(*tasks[-1])
    return tasks[-1]


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
    if node._formulas is not None and check_generated:  # the formulas' results, before hooks
        grad_inputs = check_formula_results(node, grads, grad_inputs)
    if node._extras is not None:
        grad_inputs = run_post_hooks(node, grad_inputs, grads, create_graph)
    return grad_inputs


# The engine checks every gradient a node generated from derivatives.yaml returns:
# exactly the shape of the input it is for, and its dtype.  This is stricter than
# PyTorch on purpose: PyTorch's validate_outputs quietly sums a broadcastable gradient
# down to the input's shape, which would hide a formula that forgot its sum_to; the
# registry exists to catch formula mistakes.  A dtype may be the input's or the op
# result's (an op that promoted float32 and float64 gives float64 gradients): the
# latter is cast to the input's dtype, as PyTorch does; any other dtype is a formula
# mistake.  Custom Functions and hooks get PyTorch's own rules (autograd/function.py,
# autograd/hooks.py).  Switched off only by tools/bench_validation.py, to measure
# what the check costs.
check_generated = True


def check_formula_results(node, grads, grad_inputs):
    """``grad_inputs`` of a generated node (run on ``grads``), checked against its inputs
    (count, shape, dtype) and cast where the op promoted.  The engine's loop does the
    same inline."""
    if len(grad_inputs) != len(node.next_functions):
        _wrong_count(node, grad_inputs)
    checked = list(grad_inputs)
    for i, ((next_node, nr), grad) in enumerate(zip(node.next_functions, grad_inputs)):
        meta = next_node.output_meta(nr) if next_node is not None else None
        if grad is not None and meta is not None:
            checked[i] = checked_gradient(node, grads, grad_inputs, grad, meta)
    return checked


def checked_gradient(node, grads, grad_inputs, grad, meta):
    """``grad`` (one of ``grad_inputs``, which ``node`` returned for ``grads``), or
    raise naming the formula's YAML line."""
    if meta is None:  # a node whose outputs were not recorded (CopySlices, views' replay)
        return grad
    i = next(k for k, g in enumerate(grad_inputs) if g is grad)
    array = getattr(grad, "_data", grad)
    shape, dtype = getattr(array, "shape", None), getattr(array, "dtype", None)
    expected = meta[0] if meta[0] is not None else _certain_shape(node, i, grads)
    if expected is not None and shape != expected:
        _formula_error(node, i, "shape", _shape(shape), _shape(expected))
    if dtype != meta[1]:
        if dtype != getattr(node, "_output_dtype", None):
            _formula_error(node, i, "dtype", dtype, meta[1])
        return grad.to(meta[1]) if grad is not array else array.astype(meta[1], copy=False)
    return grad


def _certain_shape(node, i, grads):
    """Input ``i``'s shape where nothing recorded it, since the generated formulas' shapes
    are certain (codegen/exactness.py): found where the node's ``_shape_sources`` says."""
    # (the generated class's: a subclass with its own apply has None, and is checked in
    # full, but its inputs' shapes are still where the generated forward put them)
    sources = next((k.__dict__["_shape_sources"] for k in type(node).__mro__
                    if k.__dict__.get("_shape_sources")), None)
    if sources is None or i >= len(sources):
        return None
    if sources[i] == "grad":  # an elementwise op: the input has the output's shape
        return getattr(grads[0], "_data", grads[0]).shape
    return getattr(node, sources[i])


def _shape(shape):
    return tuple(shape) if shape is not None else "(no array)"


def _formula_error(node, i, what, got, expected):
    names = type(node)._input_names
    name = names[i] if i < len(names) else names[-1]  # a Tensor[] input: one name, many edges
    line = type(node)._yaml_lines.get(name, type(node)._yaml_line)
    raise RuntimeError(
        f"{node.name()} returned a gradient of {what} {got} for input `{name}` of {what} "
        f"{expected} ({type(node)._yaml_path}:{line}: `{type(node)._formulas.get(name)}`)")


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
    roots = set(root_nodes)  # visited from the start; any other node on its first edge
    stack = list(root_nodes)
    while stack:
        node = stack.pop()
        # Down a chain without the stack: a list going from one item to none and back
        # reallocates each time, which cost a third of this walk.
        while node is not None:
            edges, node = node.next_functions, None
            count, i = len(edges), 0
            while i < count:  # (an index loop, as in run_backward: no iterator object)
                next_node = edges[i][0]
                i += 1
                if next_node is not None:
                    if next_node in dependencies:
                        dependencies[next_node] += 1
                    else:
                        dependencies[next_node] = 1
                        if next_node not in roots:
                            if node is None:
                                node = next_node  # visited next
                            else:
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
    elif node.hooked_inside:  # a compiled region's outputs it also reads: only the part of
        # their gradient from outside has arrived; the node adds its own (compile/runtime.py)
        grads = node.whole_gradients(grads, nrs, node in plan.runs)
    for nr in nrs:
        captured[(node, nr)] = grads[nr] if nr < len(grads) else None
