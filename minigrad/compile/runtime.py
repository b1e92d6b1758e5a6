"""A compiled entry: the generated functions for one guard, and the node that links
the compiled region into the ordinary autograd graph."""
import operator
import sys

import numpy as np

from minigrad import autograd
from minigrad.autograd import anomaly as _anomaly
from minigrad.autograd import api, leaks
from minigrad._generated import array_ops
from minigrad._generated import functions
from minigrad._tensor import Tensor, _as_array, _compare, _init, _make_view, _new, _wrap
from minigrad.autograd import grad_mode
from minigrad.autograd.grad_mode import off_threads, set_enabled
from minigrad.autograd.errors import FREED_GRAPH_ERROR
from minigrad.autograd.namespace import ARRAYS, TENSORS
from minigrad.autograd.node import AccumulateGrad, Node, accumulator_of, node_sequence
from minigrad.autograd.saved import save_tensor, unpack
from minigrad.autograd.support import wrap_view
from minigrad.compile.generate import (Backward, Constants, TensorBackward, ref_vids,
                                       edge_vids, forward_source, output_vids, unique_inputs,
                                       uniform_float_dtype)
from minigrad.compile.fusion import run_fused
from minigrad.compile.losses import log_softmax_nll_backward, log_softmax_nll_forward
from minigrad.compile.namespace import namespace_of
from minigrad.compile.ones import VIEWS as ONES_VIEWS, times
from minigrad.compile.pool import Pool, matmul_grad_other_into, matmul_grad_self_into
from minigrad.compile.replay import replay
from minigrad.kernels.quiet import quiet_off, quiet_on


_anomaly_flags, _anomaly_used = _anomaly.flags, _anomaly.used
_grad_flags = grad_mode.flags   # (``grad_mode.flags`` is a slow read: the module has a class)
# numpy's names the hot paths read, as globals: numpy's module has a ``__getattr__``, and
# CPython 3.11 does not specialize the reads of such a module's attributes (a global's is)
_ndarray, _generic, _asarray = np.ndarray, np.generic, np.asarray


class CompiledEntry:
    """Generated forward + backward(s) for one traced program."""

    def __init__(self, program, name, record_graph):
        self.program = program
        self.name = name
        self.constants = Constants()
        self.input_vids = unique_inputs(program)
        self.slot_of = {vid: i for i, vid in enumerate(self.input_vids)}
        self.output_vids = output_vids(program)
        self.grad_outputs = [v for v in self.output_vids if program.values[v].requires_grad]
        # every float value has one dtype: incoming gradients are cast to it, as PyTorch
        # casts a gradient to its tensor's dtype
        self.grad_dtypes = [program.values[v].dtype for v in self.grad_outputs] \
            if uniform_float_dtype(program) is not None else None
        self.edge_slots = [self.slot_of[v] for v in edge_vids(program)]
        self.one_grad_output = len(self.grad_outputs) == 1
        self.num_grad_outputs = len(self.grad_outputs)
        self.record_graph = record_graph and bool(self.grad_outputs) and bool(self.edge_slots)
        self._backwards = {}
        self._tensor_backwards = {}   # pattern -> (CompiledFunction, input slots) or None
        self.pool = Pool(len(self.edge_slots))   # gradients the backward reuses (pool.py)
        if self.record_graph:
            full = Backward(program, self.constants, [True] * len(self.grad_outputs)).build()
            self.full_backward_fn = self._compile_backward(full)
            self._backwards[(True,) * len(self.grad_outputs)] = self.full_backward_fn
            self.backward_inputs = [self.slot_of[v] for v in full.input_vids]
            saved = full.saved_vids
            self.full_backward = full
        else:
            self.backward_inputs, saved, self.full_backward = [], [], None
        self.forward_src = forward_source(program, self.constants, saved)
        self.forward = self._define(self.forward_src, "forward")
        self.positions = {vid: i for i, vid in enumerate(self.output_vids)}
        self.grad_position = {vid: i for i, vid in enumerate(self.grad_outputs)}
        self.view_outputs = any(r.op.view for r in program.records)
        # outputs of t.detach(): the same memory and version counter, no history
        self.detached = {vid for r in program.records if r.op.name == "alias" and r.op.view
                         for vid in r.outputs}
        self.aliased = len(self.input_vids) != len(program.inputs)
        self.writebacks = program.writebacks
        tree = program.output_tree
        self.single_output = (tree[0] == "tensor" and self.output_vids == [tree[1]]
                              and not self.view_outputs)
        self.externals = [(slot, key) for slot, (kind, key, _) in enumerate(program.inputs)
                          if kind == "external"]
        # Inputs only create_graph's recomputation reads: their versions are remembered
        # (the numpy backward's inputs are SavedTensors, version-checked already).
        used = {vid for r in program.records for vid in ref_vids(r.args.values())}
        # Outputs the region reads itself: a hook on one must see the gradient from inside
        # as well (CompiledBackward.hooked_inside)
        self.read_outputs = frozenset(nr for nr, vid in enumerate(self.grad_outputs)
                                      if vid in used)
        # ... and per such output, the outputs computed from it (whose gradients reach it
        # from inside: CompiledBackward.whole_gradients)
        self.computed_from_read = {
            nr: frozenset(k for k, vid in enumerate(self.grad_outputs)
                          if vid in _computed_from(program, {self.grad_outputs[nr]}))
            for nr in self.read_outputs}
        self.recompute_slots = [self.slot_of[v] for v in self.input_vids
                                if v in used and self.slot_of[v] not in self.backward_inputs] \
            if self.record_graph else []

    # ------------------------------------------------------------ building
    def _define(self, src, name):
        namespace = dict(vars(_array_ops()))
        namespace.update(self.constants.values)
        namespace.update(namespace_of=namespace_of, F=ARRAYS, np=np, full_gradient=full_gradient,
                         into=into, into_second=into_second, times=times, _pool=self.pool,
                         run_fused=run_fused,
                         log_softmax_nll_backward=log_softmax_nll_backward,
                         log_softmax_nll_forward=log_softmax_nll_forward,
                         matmul_grad_self_into=matmul_grad_self_into,
                         matmul_grad_other_into=matmul_grad_other_into)
        filename = f"<minigrad.compile {self.name} {name}>"
        if src.shapes is not None:
            namespace[f"{name}_fused"] = _FusedLater(src, filename, name, namespace)
        return _define(src.text(), filename, name, namespace)

    def _compile_backward(self, backward):
        fn = self._define(backward.src, "backward")
        fn.source = backward.src
        return fn

    def backward_for(self, pattern):
        fn = self._backwards.get(pattern)
        if fn is None:
            full = self.full_backward
            built = Backward(self.program, self.constants, list(pattern)).build(
                (full.input_vids, full.saved_vids))
            fn = self._backwards[pattern] = self._compile_backward(built)
        return fn

    def tensor_backward_for(self, pattern):
        """(the create_graph backward for this pattern of output gradients, compiled in its
        turn, the input slots it reads), or None where the Tensor form cannot be generated."""
        found = self._tensor_backwards.get(pattern, _MISSING)
        if found is _MISSING:
            try:
                built = TensorBackward(self.program, self.constants, list(pattern)).build()
            except NotImplementedError:
                found = None
            else:
                from minigrad.compile import CompiledFunction   # (it imports this module)
                namespace = dict(self.constants.values)
                namespace.update(F=TENSORS, ops=functions, np=np, compare_tensors=_compare,
                                 zeros_tensor=_zeros_tensor)
                fn = _define(built.src.text(), f"<minigrad.compile {self.name} "
                             "create_graph backward>", "backward", namespace)
                fn.source = built.src
                compiled = CompiledFunction(fn, register=False)
                found = (compiled, [self.slot_of[v] for v in built.input_vids])
            self._tensor_backwards[pattern] = found
        return found

    def source(self):
        text = _with_fused_form(self.forward_src)
        for pattern, fn in self._backwards.items():
            live = ", ".join("grad" if p else "None" for p in pattern)
            text += f"\n# backward for output gradients ({live})\n" + _with_fused_form(fn.source)
        for pattern, found in self._tensor_backwards.items():
            if found is not None:
                live = ", ".join("grad" if p else "None" for p in pattern)
                text += (f"\n# create_graph=True backward (Tensor form, itself compiled) for output "
                         f"gradients ({live})\n" + found[0].fn.source.text())
        return text

    # ------------------------------------------------------------ running
    def run(self, tensors):
        """``tensors``: the region's input Tensors, one per slot of program.inputs."""
        unique = [tensors[i] for i in self._first_slots()] if self.aliased else tensors
        quiet = quiet_on()   # inf and nan arise silently, as in eager (kernels/quiet.py)
        try:
            outs, saved = self.forward(*map(_data_of, unique))
        finally:
            quiet_off(quiet)
        node = None
        if self.record_graph and (not off_threads or _grad_flags.enabled):
            node = _record_node(self, unique, saved)
        if self.writebacks:
            self._write_back(tensors, outs)
        if self.single_output:   # the common case: one Tensor, no views
            out = outs[0]   # (a full reduction gives numpy's scalar: made a 0-d array)
            if type(out) is not _ndarray:
                out = _asarray(out) if isinstance(out, _generic) else _as_array(out)
            return _init(_new(Tensor), out, node if self.grad_outputs else None, 0)
        made = {}
        for vid, array in zip(self.output_vids, outs):
            position = self.grad_position.get(vid)
            source = self._view_source(array, unique) if self.view_outputs else None
            grad_fn = node if position is not None else None
            if source is not None and vid in self.detached:
                made[vid] = _make_view(array, source)   # (as Tensor.detach makes it)
                made[vid]._base = None
            elif source is not None:
                made[vid] = wrap_view(array, source, grad_fn, position or 0)
            else:
                made[vid] = _wrap(array, grad_fn, position or 0)
        return _build(self.program.output_tree, made, self, unique)

    def _write_back(self, tensors, outs):
        """Buffers updated in place inside the region (tracer._inplace_handler) take their
        new values, and their version counters move, as the eager in-place op does."""
        for slot, vid in self.writebacks:
            target = tensors[slot]
            namespace_of(target._data).copyto(target._data, outs[self.positions[vid]])
            target._version_counter[0] += 1

    def _first_slots(self):
        first = getattr(self, "_first", None)
        if first is None:
            seen, first = set(), []
            for i, (_, _, vid) in enumerate(self.program.inputs):
                if vid not in seen:
                    seen.add(vid)
                    first.append(i)
            self._first = first
        return first

    @staticmethod
    def _view_source(array, inputs):
        for t in inputs:   # (an input on another device, a host index, shares nothing)
            if type(t._data) is type(array) and np.may_share_memory(array, t._data):
                return t
        return None


_MISSING = object()


def _with_fused_form(src):
    """A generated function's source, and its fused form where that has segments."""
    text = src.text()
    if src.shapes is None:
        return text
    functions, fused = src.fused()
    if not functions:
        return text
    return (f"{text}\n# its fused form, which CuPy runs: each run of elementwise lines one "
            f"kernel (compile/fusion.py)\n{functions}\n{fused}")


class _FusedLater:
    """A generated function's fused form (``Source.fused``), defined in its namespace the
    first time an array library other than numpy calls it: CPU programs never pay for
    making it."""

    def __init__(self, src, filename, name, namespace):
        self.src, self.filename, self.name, self.namespace = src, filename, name, namespace

    def __call__(self, *args):
        functions, fused = self.src.fused()
        # (the definition replaces this object in the namespace: later calls go straight there)
        fn = _define(f"{functions}\n{fused}", f"{self.filename[:-1]} fused>",
                     f"{self.name}_fused", self.namespace)
        return fn(*args)
_OUTPUT_HOOKS = ("tensor_hooks", "retains_grad")   # (hooks.run_pre_hooks's order)


class _NoAccumulator:
    _extras = ()   # (not None: plain_leaves reads extras other than an accumulator as hooks)


_NO_ACCUMULATOR = _NoAccumulator()
_data_of = operator.attrgetter("_data")


def _define(text, filename, name, namespace):
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - our own generated source
    return namespace[name]


_ONES_VIEWS = {}


def full_gradient(xp, grad, shape, dtype):
    """``cast_to(unreduce(grad, shape, None), dtype)``: the gradient of a sum over every dim,
    filled out to the input's ``shape`` in one multiplication, or none where ``grad`` is
    ``loss.backward()``'s ones (the shortcut's own array, see _ones): then a read-only
    view of ones, which no leaf keeps (fast_backward copies views) and nothing writes into."""
    key = (xp, shape, id(dtype))   # (hashing a dtype costs more; the value keeps it alive)
    found = _ONES_VIEWS.get(key)
    if found is None or found[0] is not dtype:
        if found is not None:   # (its id may be another array's once it is gone)
            ONES_VIEWS.discard(id(found[1]))
        found = _ONES_VIEWS[key] = (dtype, xp.broadcast_to(xp.ones((), dtype=dtype), shape))
        ONES_VIEWS.add(id(found[1]))   # (held in _ONES_VIEWS: the id stays its own, ones.py)
    if id(grad) in _ROOT_ONES:
        return found[1]
    out = xp.multiply(grad, found[1])
    return out if out.dtype is dtype or out.dtype == dtype else out.astype(dtype)


def into(ufunc, a, b, refs):
    """``ufunc(a, b)``, written into ``a`` when that is safe: ``a`` is an array nothing but
    the generated code refers to (``refs``: 1 for its variable, 0 for a temporary), not a
    view, and the result has its shape (``b`` broadcasts into it) and dtype; for ``add``
    and ``multiply``, else into ``b`` when it is a temporary (only this call refers to
    it).  Big programs call this (generate.reuse_buffers)."""
    if (type(a) is _ndarray and sys.getrefcount(a) <= refs + 2 and a.base is None
            and a.flags.writeable and type(b) is _ndarray and b.dtype == a.dtype
            and b.ndim <= a.ndim and a.shape[a.ndim - b.ndim:] == b.shape):
        return ufunc(a, b, out=a)
    if (ufunc in _COMMUTATIVE and type(b) is _ndarray and sys.getrefcount(b) <= 2
            and b.base is None and b.flags.writeable and type(a) is _ndarray
            and a.dtype == b.dtype and a.ndim <= b.ndim and b.shape[b.ndim - a.ndim:] == a.shape):
        return ufunc(a, b, out=b)   # ``b`` is a temporary (only this call refers to it)
    return ufunc(a, b)


_COMMUTATIVE = (np.add, np.multiply)


def into_second(ufunc, a, b, refs):
    """``ufunc(a, b)`` written into ``b`` when that is safe, as ``into`` writes into ``a``:
    for ``maximum(0, x)`` (relu) and the like, whose first operand is a number (a 0-d
    array here).  The operands keep their order: ``maximum(0.0, -0.0)`` is +0.0 (relu's),
    ``maximum(-0.0, 0.0)`` is -0.0."""
    if (type(b) is _ndarray and sys.getrefcount(b) <= refs + 2 and b.base is None
            and b.flags.writeable and type(a) is _ndarray and a.dtype == b.dtype
            and a.ndim <= b.ndim and b.shape[b.ndim - a.ndim:] == a.shape):
        return ufunc(a, b, out=b)
    return ufunc(a, b)


def _zeros_tensor(shape, dtype):
    """A zero gradient for an output no gradient reached (Tensor form)."""
    return _wrap(np.zeros(shape, dtype=dtype))


def _build(tree, made, entry, unique):
    kind = tree[0]
    if kind == "tensor":
        vid = tree[1]
        if vid in made:
            return made[vid]
        return unique[entry.slot_of[vid]]
    if kind == "seq":
        return tree[1](_build(t, made, entry, unique) for t in tree[2])
    if kind == "dict":
        return tree[1](zip(tree[2], [_build(t, made, entry, unique) for t in tree[3]]))
    return tree[1]


def _array_ops():
    return array_ops


class CompiledBackward(Node):
    """One node for a whole compiled region: its backward is the generated function.

    Inputs the formulas read are checked as SavedTensors are (their versions on use;
    freed after backward without retain_graph, like every node's); under create_graph=True
    the generated Tensor-form backward runs (compiled in its turn), so the gradient is
    itself differentiable; the region is replayed eagerly only where that form cannot
    be generated.

    A leaf input's edge, its AccumulateGrad, is made when ``next_functions`` is first
    read: the backward shortcuts (fast_backward) write the leaves' ``.grad`` without
    one (a leaf's accumulator dies with the graph, so each call would make it anew).
    Other inputs' edges are taken at once (an in-place op may give one new history).
    """

    # (made by _record_node, not an __init__; as every node's, no __dict__ to make per call)
    __slots__ = ("_edges", "_pending", "entry", "num_outputs",
                 "_tensors",   # the region's input Tensors, one per slot
                 "_inputs",    # per input the formulas read (entry.backward_inputs): its
                               # version where it is a leaf, else its SavedTensor
                 "_versions",  # the versions of the inputs at entry.recompute_slots, or None
                 "_saved",     # what the forward saved (arrays)
                 "_stash")     # (set only by whole_gradients: not in _record_node's cost)

    @property
    def next_functions(self):
        pending = self._pending
        if pending is not None:
            self._edges = tuple([e if type(e) is tuple else (accumulator_of(e), 0)
                                 for e in pending])
            self._pending = None
        return self._edges

    @next_functions.setter
    def next_functions(self, edges):   # (Node.__init__)
        self._edges, self._pending = edges, None

    def plain_leaves(self):
        """The input Tensors, one per edge, where every edge is a leaf without hooks (whose
        AccumulateGrad, if it has one, has none either); else None."""
        pending = self._pending
        if pending is None:
            edges = self._edges
            if not all(_plain_leaf(acc) for acc, _ in edges):
                return None
            return [acc.variable for acc, _ in edges]
        for leaf in pending:
            if type(leaf) is tuple:
                return None
            extras = leaf._extras
            if extras is not None:   # (only its accumulator, dead or without hooks)
                ref = extras.get("accumulator") if len(extras) == 1 else None
                acc = ref() if ref is not None else _NO_ACCUMULATOR
                if acc is not None and acc._extras is not None:
                    return None
        return pending

    def name(self):
        return f"CompiledBackward[{self.entry.name}]"

    @property
    def hooked_inside(self):
        """Outputs the region also reads: the engine leaves their tensor hooks and
        retain_grad to ``apply``, and their captured gradient to ``whole_gradients``, since
        the gradient it brings is only the outside part."""
        return self.entry.read_outputs

    def whole_gradients(self, grads, nrs, runs):
        """``grads`` with the gradients of the outputs ``nrs`` that the region reads made
        whole.  The engine captures gradients (``autograd.grad``, ``backward(inputs=)``)
        before this node runs, when only the part from outside the region has arrived;
        the part from inside comes from replaying the region eagerly and differentiating
        that (_whole_in_turn; where its read outputs have hooks, _replay, which moves
        them onto the replay as ``apply`` does for hooks alone).  ``runs``: the engine
        runs this node afterwards (a capture below it)."""
        entry = self.entry
        wanted = [nr for nr in nrs if nr in entry.read_outputs]
        hooked = self._extras is not None and self._hooks_inside()
        if not wanted or not hooked and all(grads[k] is None for nr in wanted
                                            for k in entry.computed_from_read[nr]):
            return grads   # (no gradient from inside the region: the outside part is whole)
        if self._released:
            raise RuntimeError(FREED_GRAPH_ERROR)
        self._check_versions()
        create_graph = grad_mode.flags.enabled   # (the engine's create_graph)
        if hooked:
            # The hooks must run once, and what they return flows on to the inputs: one
            # replay gives both where the engine runs this node next (apply returns them)
            found, whole = self._replay(grads, create_graph, wanted, targets=runs)
            if runs:
                self._stash = found
        else:
            whole = self._whole_in_turn(grads, create_graph, wanted)
        grads = list(grads)
        for nr, g in zip(wanted, whole):
            grads[nr] = g
        return grads

    def apply(self, grads, create_graph):
        if self._released:
            raise RuntimeError(FREED_GRAPH_ERROR)
        entry = self.entry
        if self._extras is not None and entry.read_outputs and self._hooks_inside():
            stash = getattr(self, "_stash", None)
            if stash is not None:   # (whole_gradients replayed the region for this call)
                del self._stash
                return stash
            self._check_versions()
            return self._replay(grads, create_graph)[0]
        if create_graph:
            return self._differentiable(grads)
        inputs = []   # (a loop: a comprehension is a function call of its own)
        tensors = self._tensors
        for slot, saved in zip(entry.backward_inputs, self._inputs):
            if type(saved) is int:   # a plain leaf's version (_record_node)
                tensor = tensors[slot]
                if tensor._version_counter[0] != saved:
                    _raise_version_error(self, tensor, saved)
                inputs.append(tensor._data)
            else:
                inputs.append(unpack(saved, self, False))
        dtypes = entry.grad_dtypes
        if dtypes is not None:   # (the generated code relies on it: see Placeholders.name)
            for g, dtype in zip(grads, dtypes):
                if g is not None and g.dtype is not dtype and g.dtype != dtype:
                    grads = [g if g is None or g.dtype == dtype else g.astype(dtype)
                             for g, dtype in zip(grads, dtypes)]
                    break
        if entry.one_grad_output and grads[0] is not None:
            return entry.full_backward_fn(grads, inputs, self._saved)
        pattern = tuple(g is not None for g in grads)
        return entry.backward_for(pattern)(grads, inputs, self._saved)

    def release(self):
        self._saved = self._inputs = self._tensors = self._versions = None
        self._released = True

    def _differentiable(self, grads):
        """create_graph=True: the generated Tensor-form backward (compiled in its turn, so
        its own backward is generated numpy code), or the eager replay where there is none."""
        self._check_versions()
        found = self.entry.tensor_backward_for(tuple(g is not None for g in grads))
        if found is None:
            return self._replay(grads)[0]
        fn, slots = found
        inputs = self._tensors
        given = [g if isinstance(g, Tensor) else _wrap(g) for g in grads if g is not None]
        return fn(*[inputs[s] for s in slots], *given)

    def _check_versions(self):
        """The inputs create_graph reads were not modified in place since the forward."""
        tensors = self._tensors
        for slot, saved in zip(self.entry.backward_inputs, self._inputs):
            if type(saved) is not int:
                saved.unpack(self, True)
            elif tensors[slot]._version_counter[0] != saved:
                _raise_version_error(self, tensors[slot], saved)
        if self._versions is not None:
            for slot, version in zip(self.entry.recompute_slots, self._versions):
                if tensors[slot]._version_counter[0] != version:
                    _raise_version_error(self, tensors[slot], version)

    def _hooks_inside(self):
        """Has an output the region reads a tensor hook or retain_grad?"""
        extras = self._extras
        return any(extras.get(kind, {}).get(nr) for kind in _OUTPUT_HOOKS
                   for nr in self.entry.read_outputs)

    def _replay(self, grads, create_graph=True, wanted=(), targets=True):
        """Run the recorded ops eagerly on the saved inputs, then differentiate that graph
        (reentrant backward): under create_graph=True where the Tensor form cannot be
        generated, and where an output the region reads has hooks, which then run on
        its whole gradient, as in eager mode (they are moved onto the replayed value).
        Returns (the input gradients, or () without ``targets``; the whole gradients of
        the outputs ``wanted``, which the region reads: whole_gradients)."""
        entry, inputs = self.entry, self._tensors
        with grad_mode.enable_grad():
            values = replay(entry.program, inputs)
            if self._extras is not None:
                self._move_output_hooks(values)
            outputs, given = [], []
            for vid, g in zip(entry.grad_outputs, grads):
                if g is not None:
                    outputs.append(values[vid])
                    given.append(g if not isinstance(g, np.ndarray) else _wrap(g))
            captures = [values[entry.grad_outputs[nr]] for nr in wanted]
            if targets:
                captures += [inputs[s] for s in entry.edge_slots]
            found = autograd.grad(outputs, captures, given, retain_graph=True,
                                  create_graph=create_graph, allow_unused=True)
        if not create_graph:
            found = [g if g is None else g._data for g in found]
        return tuple(found[len(wanted):]), found[:len(wanted)]

    def _whole_in_turn(self, grads, create_graph, wanted):
        """whole_gradients without hooks: the whole gradients of the outputs ``wanted``.
        In the replay, the ops after each of them read this node's own output in its
        place (through a clone, where the capture is), so a create_graph gradient depends
        on the outputs themselves, as in eager mode.  Found last output first: each one's
        whole gradient then flows from its replayed value into those it is computed from."""
        entry = self.entry
        replayed = {}   # wanted vid -> its replayed value (which the swap replaces)

        def swap(nr):
            def own_output(value):
                replayed[entry.grad_outputs[nr]] = value
                return _wrap(value._data, self, nr).clone()
            return own_output
        whole = {}
        with grad_mode.enable_grad():
            values = replay(entry.program, self._tensors,
                            {entry.grad_outputs[nr]: swap(nr) for nr in wanted})
            roots, given = [], []
            for nr, (vid, g) in enumerate(zip(entry.grad_outputs, grads)):
                if g is not None and nr not in wanted:
                    roots.append(values[vid])
                    given.append(_as_tensor(g))
            for nr in sorted(wanted, key=entry.grad_outputs.__getitem__, reverse=True):
                vid = entry.grad_outputs[nr]
                own = [values[vid]] if grads[nr] is not None else []
                found = autograd.grad(roots + own, [values[vid]],
                                      given + [_as_tensor(g) for g in grads[nr:nr + len(own)]],
                                      retain_graph=True, create_graph=create_graph,
                                      allow_unused=True)[0] if roots or own else None
                whole[nr] = found
                if found is not None:
                    roots.append(replayed[vid])
                    given.append(found)
        return [g if g is None or create_graph else g._data for g in map(whole.get, wanted)]

    def _move_output_hooks(self, values):
        """The hooks and retain_grad of the outputs the region reads, onto the replayed
        values (the same registries: the handles still remove them)."""
        extras = self._extras
        for nr in self.entry.read_outputs:
            value = values[self.entry.grad_outputs[nr]]
            for kind in _OUTPUT_HOOKS:
                found = extras.get(kind, {}).get(nr)
                if found:
                    registry = value.grad_fn._hook_lists().setdefault(kind, {})
                    registry[value._output_nr] = found


def _record_node(entry, inputs, saved):
    """The CompiledBackward of one forward of ``entry`` (CompiledEntry.run), its slots
    filled here: calling the class would cost type.__call__'s lookup of ``__init__`` and
    an argument tuple besides.  A leaf the formulas read keeps only its version: a
    SavedTensor of it would check nothing else on unpack (a leaf has no history to
    lose, and no pack hook runs: compiled regions run eagerly under saved-tensor
    hooks).  Any other input gets its SavedTensor."""
    node = _new(CompiledBackward)
    pending = []   # per input that requires grad: its edge, or the leaf itself
    for slot in entry.edge_slots:
        tensor = inputs[slot]
        fn = tensor.grad_fn
        pending.append(tensor if fn is None else (fn, tensor._output_nr))
    # Node.__init__'s fields (node.init_node): its next_functions setter is a Python
    # call, and anomaly mode is off (compiled regions run eagerly under it)
    node._edges = None
    node._pending = pending
    node._sequence_nr = next(node_sequence)
    node._released = False
    node._consumed = 0
    node._extras = None
    node.entry = entry
    node.num_outputs = entry.num_grad_outputs
    node._tensors = inputs
    kept = []   # (loops: a comprehension is a function call of its own)
    for slot in entry.backward_inputs:
        tensor = inputs[slot]
        extras = tensor._extras
        if tensor.grad_fn is None and (extras is None or not extras.get("inference")):
            kept.append(tensor._version_counter[0])
        else:   # (save_tensor refuses an inference tensor, as eager mode does)
            kept.append(save_tensor(tensor))
    node._inputs = kept
    versions = None
    if entry.recompute_slots:
        versions = []
        for slot in entry.recompute_slots:
            versions.append(inputs[slot]._version_counter[0])
    node._versions = versions
    node._saved = saved
    return node


def _raise_version_error(node, tensor, version):
    """The error of a SavedTensor of ``tensor`` saved at ``version`` (changed in place
    since)."""
    saved = save_tensor(tensor)
    saved.version = version
    saved._raise_version_error(node)


def _as_tensor(g):
    return g if isinstance(g, Tensor) else _wrap(g)


def _computed_from(program, vids):
    """The values ``program`` computes from any of ``vids``."""
    found = set()
    for record in program.records:
        if any(v in found or v in vids for v in ref_vids(record.args.values())):
            found.update(v for v in record.outputs if v is not None)
    return found


def fast_backward(tensor, gradient, retain_graph, create_graph, inputs):
    """``loss.backward()`` on a compiled region's scalar output whose inputs are leaves:
    what the engine would do, without its bookkeeping for graphs of many nodes.  Returns
    False (the engine runs) for anything else: a gradient given, create_graph, inputs=,
    hooks anywhere, anomaly mode, a node run before, a non-leaf input."""
    node = tensor.grad_fn
    if gradient is not None or create_graph or inputs is not None or tensor._extras is not None:
        return False
    data = tensor._data
    if (data.size != 1 or node._extras is not None or node._consumed
            or _anomaly_used.on and _anomaly_flags.enabled):
        return False   # (a non-scalar root: the engine raises the error; see _plain)
    leaves = node.plain_leaves()
    if leaves is None:
        return False
    buffer = [None] * node.num_outputs
    buffer[tensor._output_nr] = _ones(data)
    grads, mark = _run_region(node, buffer, retain_graph, False)
    pooled = node.entry.pool.arrays
    for i, leaf in enumerate(leaves):
        grad = grads[i]
        if grad is None:
            continue
        grads[i] = None   # (one reference, ``grad``: the leaf may keep the array)
        extras = leaf._extras   # (plain_leaves: at most a hook-free accumulator)
        ref = extras.get("accumulator") if extras is not None else None
        acc = ref() if ref is not None else None
        if acc is not None and not acc._consumed:
            acc._consumed = mark
        if leaf._grad is None and type(grad) is _ndarray:
            # AccumulateGrad's rule for a first gradient: kept when nothing else refers
            # to it (a fresh result of the generated code), else copied.  References:
            # ``grad``, getrefcount's argument, and the entry's Pool where it holds the
            # array (it reuses it only once the leaf let go of it: pool.py; ``pooled``
            # is its array per slot, one slot per leaf).
            like = leaf._data
            if not (sys.getrefcount(grad) <= (3 if pooled[i] is grad else 2)
                    and grad.base is None
                    and grad.dtype == like.dtype and grad.flags.writeable
                    and grad.shape == like.shape):
                grad = _copied(grad, like)
            leaf._grad = _init(_new(Tensor), grad)
        else:
            _accumulate(acc or accumulator_of(leaf), grad)
    return True


def _accumulate(acc, grad):
    """A gradient added to a leaf's ``.grad`` by its accumulator (grad mode off, as the
    engine runs it)."""
    mode = _grad_flags.__dict__   # (as _run_region)
    previous = mode["enabled"]
    set_enabled(mode, False)
    try:
        acc.apply([grad], False)
    finally:
        set_enabled(mode, previous)


def fast_capture(root, root_grad, retain_graph, create_graph, edges):
    """``autograd.grad(out, inputs)`` where ``out`` is a compiled region's output and every
    input is a hook-free leaf the region reads directly: the region's backward alone
    (under create_graph, its generated Tensor-form backward).  None: the engine runs."""
    node, nr = root
    if not _plain(node):
        return None
    positions = {edge: i for i, edge in enumerate(node.next_functions)}
    for edge in edges:
        if edge not in positions or not _plain_leaf(edge[0]):
            return None
    buffer = [None] * node.num_outputs
    buffer[nr] = root_grad
    grads, _ = _run_region(node, buffer, retain_graph, create_graph)
    return {edge: grads[positions[edge]] for edge in edges}


def _plain(node):
    """A region node the shortcuts may run: no hooks, not run before, no anomaly mode."""
    return (node._extras is None and not node._consumed
            and not (_anomaly_used.on and _anomaly_flags.enabled))


def _plain_leaf(acc):
    return (type(acc) is AccumulateGrad and acc._extras is None
            and len(acc.variable._extras) == 1)   # (its accumulator only: no hooks)


def _run_region(node, buffer, retain_graph, create_graph):
    """Run ``node`` as the engine runs a node (leak marks, grad mode, numpy's warnings
    off, freed after unless retained): (its input gradients as a list, its mark)."""
    call = leaks.begin_backward()
    mark = 0 if create_graph else -call if retain_graph else call
    node._consumed = mark
    mode = _grad_flags.__dict__   # (as the engine: one thread-local access, then dict writes)
    previous = mode["enabled"]
    set_enabled(mode, create_graph)
    quiet = quiet_on()   # (np.errstate's switch without its cost: kernels/quiet.py)
    try:
        grads = list(node.apply(buffer, create_graph))
        if not retain_graph:
            node.release()
    finally:
        quiet_off(quiet)
        set_enabled(mode, previous)
        leaks.end_backward(call)
    if call:
        leaks.check(call, ())
    return grads, mark


_ONES = {}
_ROOT_ONES = set()   # ids of _ONES's arrays (full_gradient knows them)


def _ones(data):
    """The gradient of a scalar root: ones like ``data`` (one shared read-only array per
    shape and dtype; a leaf never keeps it: fast_backward copies views)."""
    if type(data) is not _ndarray:  # a device array: made on its device each time
        return namespace_of(data).ones(data.shape, data.dtype)
    dtype = data.dtype
    key = (data.shape, id(dtype))   # (hashing a dtype costs more; the value keeps it alive)
    found = _ONES.get(key)
    if found is None or found[0] is not dtype:
        ones = np.ones(data.shape, dtype)
        ones.flags.writeable = False
        found = _ONES[key] = (dtype, ones)
        _ROOT_ONES.add(id(ones))   # (kept in _ONES for good: the id stays its own)
    return found[1]


def _copied(array, like):
    """``array`` copied to be a new leaf's ``.grad`` (AccumulateGrad's rule)."""
    if array.shape != like.shape:
        raise RuntimeError(f"minigrad.compile: a gradient of shape {array.shape} for an "
                           f"input of shape {like.shape}")
    return np.array(array, dtype=like.dtype, copy=True)


api.FAST_BACKWARD[CompiledBackward] = fast_backward
api.FAST_CAPTURE[CompiledBackward] = fast_capture
