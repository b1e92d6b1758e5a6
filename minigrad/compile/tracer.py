"""Run a function eagerly once while recording every op it calls: the trace.

Tracing *is* an eager call: the user's function runs on the real inputs and its
result is the call's result.  Meanwhile every op of ``minigrad/_generated/functions.py``
(patched for the duration) appends a :class:`Record` to the :class:`Program`: which op,
its arguments (traced values or constants), its outputs.  Anything the compiler
could not replay faithfully is a graph break, recorded with the user's line:
reading data as Python values (``.item()``, ``bool(t)``, ``float(t)``, ``.tolist()``,
``.numpy()``), in-place ops (a captured buffer's update excepted: written back after
each call, ``_inplace_handler``), hooks registered inside, random draws that read values
(dropout's mask and ``rand``/``randn``... of shapes excepted: inputs each call draws,
compile/draws.py), seeding, a backward inside, Python side effects.  A program with a
break is not compiled: that call signature runs eagerly (or, with ``fullgraph=True``, the
break raises at once, naming the line).
"""
import builtins
import collections
import functools
import importlib
import inspect
import linecache
import os
import re
import sys
import threading
import types

import numpy as np

import minigrad.nn.functional as nnf
from minigrad import _sampling, _tensor, creation, random as mrandom
from minigrad._generated import functions, methods
from minigrad._generated.compile_table import OPS
from minigrad._array import namespace_of
from minigrad._tensor import Tensor
from minigrad.autograd import grad_mode, promotion
from minigrad.nn.modules.module import Module
from minigrad.compile import draws, world
from minigrad.compile.generate import ref_vids

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class GraphBreak(RuntimeError):
    """Raised under ``fullgraph=True`` where the trace meets something it cannot compile."""


class Value:
    """A traced array: made by a recorded op, or an input of the region."""

    __slots__ = ("id", "shape", "dtype", "requires_grad", "producer")

    def __init__(self, vid, array, requires_grad, producer):
        self.id = vid
        self.shape = tuple(array.shape)
        self.dtype = array.dtype
        self.requires_grad = requires_grad
        self.producer = producer   # (record index, output position) or ("input", slot)

    @property
    def ndim(self):
        return len(self.shape)


class Record:
    """One recorded op call: ``op`` (a compile_table entry), ``args`` {schema name: ref},
    ``outputs`` (Value ids, or None for a non-Tensor output), and the user's line."""

    __slots__ = ("op", "func_name", "args", "outputs", "where")

    def __init__(self, op, func_name, args, outputs, where):
        self.op, self.func_name, self.args, self.outputs, self.where = op, func_name, args, outputs, where


class Program:
    """What a trace found: inputs, ops, outputs, breaks."""

    def __init__(self):
        self.values = []          # Value by id
        self.inputs = []          # (kind, key, vid): ("arg", path) or ("external", Tensor)
        self.records = []
        self.output_tree = None   # see Tracer.flatten_output
        self.breaks = []          # (reason, where)
        self.writebacks = []      # (input slot, vid): a buffer's new values (_inplace_handler)


# Pseudo-ops: comparisons and the like are not registry ops (they never require grad),
# but masks made from traced values must be recomputed on every call.
_COMPARE = {np.equal: "equal", np.not_equal: "not_equal", np.less: "less",
            np.less_equal: "less_equal", np.greater: "greater",
            np.greater_equal: "greater_equal", np.logical_and: "logical_and",
            np.logical_or: "logical_or", np.logical_xor: "logical_xor"}


class PseudoOp:
    """Quacks like a compile_table entry for ops that record no node."""

    def __init__(self, name, forward, args):
        self.name, self.forward, self.line, self.schema = name, forward, 0, f"Tensor.{name}"
        self.args = tuple(_Arg(a) for a in args)
        self.outputs = (_Out(),)
        self.formulas, self.non_differentiable = (), tuple(args)
        self.view, self.once_differentiable, self.fills_undefined = False, "", False
        self.node_name = ""


class _Arg:
    def __init__(self, name):
        self.name, self.type, self.default, self.has_default, self.kwarg_only = name, "Tensor", None, False, False


class _Out:
    name, type, differentiable = "result", "Tensor", False


_PSEUDO = {name: PseudoOp(name, f"xp.{name}(self, other)", ("self", "other"))
           for name in _COMPARE.values()}
_PSEUDO["alias"] = PseudoOp("alias", "self", ("self",))   # t.data: the memory alone
# t.detach(): the memory and the version counter (an in-place write through it is seen by
# the checks of t's saved values), so its output is made as a view (runtime.py)
_PSEUDO["detach"] = PseudoOp("alias", "self", ("self",))
_PSEUDO["detach"].view = True


def _sets_itself(module, name, value):
    """Is ``module.name = value`` a no-op: the object already there (``self.steps += 1``
    on a buffer sets back the tensor it updated in place)?"""
    for where in (module.__dict__, module.__dict__.get("_buffers") or {},
                  module.__dict__.get("_parameters") or {}, module.__dict__.get("_modules") or {}):
        if name in where:
            return where[name] is value
    return False


class _State(threading.local):
    tracer = None


state = _State()


class Tracer:
    """Patches the ops, runs ``fn``, and unpatches; see the module docstring."""

    def __init__(self, fullgraph=False):
        self.fullgraph = fullgraph
        self.program = Program()
        self.depth = 0
        self._by_id = {}          # id(Tensor) -> vid
        self._tensors = {}        # vid -> the traced Tensor
        self._keep = []           # Tensors seen: their ids stay unique while tracing
        self._created = set()     # ids of Tensors made during the trace
        self._constants = set()   # ids of those made by creation functions from shapes/literals
        self._patches = []
        self._swapped = []        # (function, its own code) while its calls are intercepted
        self.modules = []         # the nn.Modules called (world.py checks them on each call)
        self._written = {}        # id(captured Tensor) -> its input slot, once updated in place

    # -------------------------------------------------------------- running
    def run(self, fn, args, kwargs, tensor_paths):
        for path, tensor in tensor_paths:
            self._add_input(("arg", path), tensor)
        versions = [(t, t._version_counter[0]) for _, t in tensor_paths]
        if state.tracer is not None:
            raise RuntimeError("minigrad.compile: a compiled function was called while "
                               "another one is being traced (nested compile is not supported)")
        outside = world.outside_state(fn)
        state.tracer = self
        try:
            self._patch_all()
            result = fn(*args, **kwargs)
        finally:
            self._unpatch_all()
            state.tracer = None
        for t, version in versions:
            if t._version_counter[0] != version:
                self.graph_break("an input was modified in place")
        for name in world.changed_outside(outside):
            self.graph_break(f"the function changed {name!r} (a Python side effect: the "
                             "generated code would not repeat it)")
        self.program.output_tree = self.flatten_output(result)
        return result

    # -------------------------------------------------------------- values
    def _new_value(self, tensor, producer):
        vid = len(self.program.values)
        self.program.values.append(Value(vid, tensor._data, tensor._requires_grad, producer))
        self._by_id[id(tensor)] = vid
        self._tensors[vid] = tensor
        self._keep.append(tensor)
        return vid

    def _add_input(self, key, tensor):
        vid = self._by_id.get(id(tensor))
        if vid is not None and self.program.values[vid].producer[0] == "input":
            # the same Tensor twice: one slot (the guard remembers the aliasing)
            self.program.inputs.append((key[0], key[1], vid))
            return vid
        vid = self._new_value(tensor, ("input", len(self.program.inputs)))
        self.program.inputs.append((key[0], key[1], vid))
        return vid

    def ref(self, value):
        """How a recorded op's argument is replayed: ("value", vid), ("list", refs) or ("const", x)."""
        if isinstance(value, Tensor):
            vid = self._by_id.get(id(value))
            if vid is not None:
                return ("value", vid)
            return self._unknown_tensor(value)
        if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            return ("list" if isinstance(value, list) else "tuple", [self.ref(v) for v in value])
        if _contains_tensor(value):
            self.graph_break("a Tensor inside an index or container argument")
            return ("const", value)
        return ("const", value)

    def _unknown_tensor(self, tensor):
        """A Tensor no recorded op made: captured from outside, or made in the function."""
        if id(tensor) not in self._created:
            return ("value", self._add_input(("external", tensor), tensor))
        array = tensor._data
        if id(tensor) in self._constants and not tensor._requires_grad:
            # made from numbers and shapes (zeros for an RNN's first state): fixed values,
            # whatever traced views of it exist (writing into it is a graph break)
            return ("const", array.copy())
        for vid, kept in self._tensors.items():
            if kept._data is array:
                # t.data / t.detach(): the same array, without history
                shares = tensor._version_counter is kept._version_counter
                return ("value", self._record_pseudo("detach" if shares else "alias",
                                                     {"self": ("value", vid)}, tensor))
        # (after every identity: t[:, 2].detach() shares memory with t, but is its slice's)
        if any(np.may_share_memory(kept._data, array) for kept in self._tensors.values()):
            self.graph_break("a tensor that shares memory with a traced value outside the "
                             "recorded ops")
            return ("const", array.copy())
        if id(tensor) not in self._constants:
            self.graph_break("a tensor made outside the recorded ops (its values may depend on "
                             "data: a numpy array, comparisons through functions, copies of "
                             "tensors, ...)")
        elif tensor._requires_grad:
            self.graph_break("a tensor that requires grad was created inside the function")
        return ("const", array.copy())

    # -------------------------------------------------------------- records
    def record(self, func_name, fn, args, kwargs, out):
        op = OPS[func_name]
        if not kwargs and len(args) == len(op.args):   # every argument given by position
            values = args
        else:
            values = _call_values(fn, args, kwargs)
            if values is None:
                return  # the op raised already (wrong arguments); nothing to replay
        refs = {}
        for value, a in zip(values, op.args):
            refs[a.name] = self.ref(value)
        if func_name in _DATA_SHAPED and _DATA_SHAPED[func_name](self, refs):
            self.graph_break(f"{op.name}: its result's shape depends on values (the generated "
                             "code would keep the first call's)")
        self._record_outputs(op, func_name, refs, out)

    def _record_pseudo(self, name, refs, out):
        return self._record_outputs(_PSEUDO[name], name, refs, out)[0]

    def _record_outputs(self, op, func_name, refs, out):
        index = len(self.program.records)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        vids = []
        for position, o in enumerate(outs):
            vids.append(self._new_value(o, (index, position)) if isinstance(o, Tensor) else None)
        self.program.records.append(Record(op, func_name, refs, vids, user_line()))
        return vids

    def record_compare(self, ufunc, a, b, out):
        if self.depth:
            return
        if ufunc not in _COMPARE or not isinstance(out, Tensor):
            self.graph_break(f"a comparison the compiler does not know ({ufunc})")
            return
        self._record_pseudo(_COMPARE[ufunc], {"self": self.ref(a), "other": self.ref(b)}, out)

    # -------------------------------------------------------------- breaks
    def graph_break(self, reason):
        where = user_line()
        self.program.breaks.append((reason, where))
        if self.fullgraph:
            raise GraphBreak(f"minigrad.compile(fullgraph=True): graph break at {format_where(where)}: "
                             f"{reason}")

    def flatten_output(self, result):
        """The returned structure: ("tensor", vid) | ("input", vid) | ("seq", type, items) |
        ("dict", type, keys, items) | ("const", value)."""
        if isinstance(result, Tensor):
            ref = self.ref(result)
            if ref[0] != "value":
                return ("const", result)
            return ("tensor", ref[1])
        if type(result) in (tuple, list):
            return ("seq", type(result), [self.flatten_output(r) for r in result])
        if type(result) in (dict, collections.OrderedDict) and all(
                type(k) in (str, int) for k in result):   # (a model's {"loss": ..., "logits": ...})
            return ("dict", type(result), list(result),
                    [self.flatten_output(r) for r in result.values()])
        if result is None or isinstance(result, (bool, int, float, str)):
            return ("const", result)
        self.graph_break(f"the function returns a {type(result).__name__} (compiled functions "
                         "return Tensors, tuples or lists of them, and Python constants)")
        return ("const", result)

    # -------------------------------------------------------------- patching
    def _patch(self, owner, name, value):
        self._patches.append((owner, name, owner.__dict__.get(name, _MISSING)))
        setattr(owner, name, value)

    def _unpatch_all(self):
        for owner, name, original in reversed(self._patches):
            if original is _MISSING:
                delattr(owner, name)   # it was inherited
            else:
                setattr(owner, name, original)
        for fn, code in reversed(self._swapped):
            fn.__code__ = code
            _HANDLERS.pop(id(fn), None)
        self._patches, self._swapped = [], []

    def _patch_all(self):
        for name, fn in list(vars(functions).items()):
            if name in OPS and type(fn) is types.FunctionType \
                    and fn.__module__ == functions.__name__:
                self._intercept(fn, self._op_handler(name))
        created, keep, tracer = self._created, self._keep, self

        def init(original, args, kwargs):   # every Tensor made while tracing
            created.add(id(args[0]))
            keep.append(args[0])
            return original(*args, **kwargs)
        self._intercept(_tensor._init, init)

        def compare(original, args, kwargs):   # x > 0 and friends: recorded, never frozen
            out = original(*args, **kwargs)
            if state.tracer is tracer:
                tracer.record_compare(*args, out)
            return out
        if inspect.isfunction(getattr(_tensor, "_compare", None)):
            self._intercept(_tensor._compare, compare)
        modules, seen = self.modules, set()

        def module_call(original, args, kwargs):   # model(x): its state is read
            if state.tracer is tracer and id(args[0]) not in seen:
                seen.add(id(args[0]))
                modules.append(args[0])
            return original(*args, **kwargs)
        self._intercept(Module._call_impl, module_call)

        def module_setattr(original, args, kwargs):   # self.calls += 1 in a forward
            if state.tracer is tracer and tracer.depth == 0 and not _sets_itself(*args[:3]):
                tracer.graph_break(f"sets {type(args[0]).__name__}.{args[1]} (a Python side "
                                   "effect: the generated code would not repeat it)")
            return original(*args, **kwargs)
        self._intercept(Module.__setattr__, module_setattr)
        self._patch(builtins, "print", self._breaking(builtins.print, "print() inside the "
                                                      "function (it would print only once)"))
        # t.detach() / t.data of a tensor no op has read yet (an argument's or a captured
        # one's first use): traced first, so the result is found as its alias (ref)
        for fn in (Tensor.detach, Tensor.data.fget):
            self._intercept(fn, self._source_traced_first())
        for name, reason in _BREAKING_METHODS.items():
            if hasattr(Tensor, name):
                self._patch(Tensor, name, self._breaking(getattr(Tensor, name), reason))
        done = set()
        for module in _inplace_modules(_tensor, methods, nnf):
            if module.apply_inplace not in done:
                done.add(module.apply_inplace)
                self._intercept(module.apply_inplace, self._inplace_handler())
        self._intercept(mrandom.numpy_rng, self._breaking_handler("a random op"))
        self._intercept(nnf._random_mask, self._mask_handler())
        for name in draws.SAMPLERS:
            self._intercept(getattr(_sampling, name), self._sampler_handler())
        for method in (mrandom.Generator.manual_seed, mrandom.Generator.seed,
                       mrandom.Generator.set_state):   # (a new Generator seeds itself)
            self._intercept(method, self._breaking_handler(
                "a generator seeded or set (the generated code would draw on from where "
                "the generator is)"))
        for name in _CREATION:
            fn = getattr(creation, name, None)
            if inspect.isfunction(fn) and fn.__closure__ is None:
                self._intercept(fn, self._creation_handler(name))

    def _inplace_handler(self):
        """In-place ops are graph breaks but for one kind: an update of a tensor captured from
        outside that no gradient flows through (a module's buffer: BatchNorm's running
        statistics).  The generated forward computes the out-of-place op, and the runtime
        writes its values back into the buffer after each call (``Program.writebacks``);
        later reads in the trace see the new values."""
        tracer = self

        def handle(original, args, kwargs):
            if state.tracer is not tracer or tracer.depth:
                return original(*args, **kwargs)
            target, op, *op_args = args
            new_vid = tracer._intermediate_update(target, op, op_args, kwargs)
            if new_vid is not None:   # (out += x: later reads see the new value)
                tracer.depth += 1
                try:
                    out = original(*args, **kwargs)
                finally:
                    tracer.depth -= 1
                tracer._by_id[id(target)] = new_vid
                return out
            update = tracer._recorded_update(target, op, op_args, kwargs)
            if update is None:
                tracer.graph_break("an in-place op")
                return original(*args, **kwargs)
            tracer.depth += 1   # (the write itself, as the eager call makes it)
            try:
                out = original(*args, **kwargs)
            finally:
                tracer.depth -= 1
            slot, vid = update
            tracer.program.writebacks.append(update)
            tracer._by_id[id(target)] = vid
            tracer._written[id(target)] = slot
            return out
        return handle

    def _recorded_update(self, target, op, op_args, kwargs):
        """(input slot, vid of the new values) of an in-place ``op`` on ``target`` that may be
        written back: ``target`` captured from outside, plain (no grad, no view, no views),
        no gradient recorded from the other arguments, the recorded out-of-place result of
        its shape and dtype.  None otherwise."""
        if (type(target) is not Tensor or target._requires_grad or target._base is not None
                or (target._extras or {}).get("views")
                or (grad_mode.enabled and any(isinstance(a, Tensor) and a._requires_grad
                                              for a in (*op_args, *kwargs.values())))):
            return None
        new = op(target, *op_args, **kwargs)   # (recorded: its first use registers target)
        slot, vid = self._external_slot(target), self._by_id.get(id(new))
        if slot is None or vid is None or new.shape != target.shape or new.dtype != target.dtype:
            return None
        return slot, vid

    def _intermediate_update(self, target, op, op_args, kwargs):
        """The vid of the recorded out-of-place result of an in-place ``op`` on a value this
        trace made (a ResNet block's ``out += identity``, ``nn.ReLU(inplace=True)``), where
        eager mode's graph is the out-of-place one's: ``target`` no view and without views,
        read by no recorded op but the one that made it, whose derivative does not read its
        result (there eager raises at backward: left to the eager call), same shape and
        dtype after.  None otherwise."""
        vid = self._by_id.get(id(target))
        if (vid is None or type(target) is not Tensor or target._base is not None
                or (target._extras or {}).get("views") or id(target) in self._written):
            return None
        index = self.program.values[vid].producer[0]
        if index == "input":
            return None
        producer = self.program.records[index].op
        if producer.view or producer.name == "alias" or _reads_result(producer) or any(
                vid in ref_vids(r.args.values()) for r in self.program.records[index + 1:]):
            return None
        new = op(target, *op_args, **kwargs)   # (recorded)
        new_vid = self._by_id.get(id(new))
        if new_vid is None or new.shape != target.shape or new.dtype != target.dtype:
            return None
        return new_vid

    def _external_slot(self, target):
        """The input slot of ``target`` where it is a tensor captured from outside."""
        if id(target) in self._written:   # (updated before in this trace)
            return self._written[id(target)]
        vid = self._by_id.get(id(target))
        if vid is None:
            return None
        producer = self.program.values[vid].producer
        if producer[0] != "input" or self.program.inputs[producer[1]][0] != "external":
            return None
        return producer[1]

    def _mask_handler(self):
        """Dropout's random mask: an input of the region that each call draws anew
        (``compile._gatherer``), in the order of the trace, so a seed gives the masks
        eager mode gives.  Every path (backward, create_graph, replay) reads that input."""
        tracer = self

        def handle(original, args, kwargs):
            if state.tracer is not tracer or tracer.depth:
                return original(*args, **kwargs)
            tracer.depth += 1   # (its draw is this handler's: not a graph break)
            try:
                mask = _tensor._wrap(original(*args, **kwargs))
            finally:
                tracer.depth -= 1
            input, shape, p = args
            like = namespace_of(input._data).empty(0)   # (its device, not its memory)
            tracer._add_input(("random", functools.partial(nnf.draw_mask, like, tuple(shape),
                                                           p)), mask)
            return mask
        return handle

    def _source_traced_first(self):
        tracer = self

        def handle(original, args, kwargs):
            if state.tracer is tracer and tracer.depth == 0 and id(args[0]) not in tracer._by_id:
                tracer.ref(args[0])
            return original(*args, **kwargs)
        return handle

    def _sampler_handler(self):
        """``rand``, ``randn`` ... of shapes and numbers: like dropout's mask, an input each
        call draws anew (compile/draws.py).  Any other draw reaches ``numpy_rng``: a graph
        break."""
        tracer = self

        def handle(original, args, kwargs):
            if state.tracer is not tracer or tracer.depth:
                return original(*args, **kwargs)
            draw = draws.sampler_draw(original, args, kwargs)
            if draw is None:
                return original(*args, **kwargs)
            tracer.depth += 1   # (its draw is this handler's: not a graph break)
            try:
                out = original(*args, **kwargs)
            finally:
                tracer.depth -= 1
            tracer._add_input(("random", draw), out)
            return out
        return handle

    def _creation_handler(self, name):
        """A creation function's result is a constant when no Tensor went into its values."""
        tracer, skip_first = self, name.endswith("_like") or name.startswith("new_")

        def handle(original, args, kwargs):
            out = original(*args, **kwargs)
            if state.tracer is tracer and tracer.depth == 0 and isinstance(out, Tensor):
                values = list(args[1:] if skip_first else args) + list(kwargs.values())
                # (from numbers and shapes only: an array's values may differ on the next
                # call, np.random's or copied from data; the tensor then breaks the graph)
                if not _contains_tensor(values) and not _contains_array(values):
                    tracer._constants.add(id(out))
            return out
        return handle

    def _intercept(self, fn, handler):
        """Route every call of ``fn`` -- through any reference to it -- to
        ``handler(original, args, kwargs)`` until the trace ends (its code is swapped)."""
        trampoline, original = _trampoline(fn)
        _HANDLERS[id(fn)] = (handler, original)
        saved_code = fn.__code__
        fn.__code__ = trampoline
        self._swapped.append((fn, saved_code))

    def _op_handler(self, func_name):
        tracer = self

        def handle(original, args, kwargs):
            if state.tracer is not tracer:   # another thread, while this one traces
                return original(*args, **kwargs)
            casts = _casts(func_name) if tracer.depth == 0 else ()
            if casts:
                args, kwargs = _promoted(casts, original, args, kwargs)
            tracer.depth += 1
            try:
                out = original(*args, **kwargs)
            finally:
                tracer.depth -= 1
            if tracer.depth == 0:
                tracer.record(func_name, original, args, kwargs, out)
            return out
        return handle

    def _breaking_handler(self, reason):
        tracer = self

        def handle(original, args, kwargs):
            if state.tracer is tracer and tracer.depth == 0:
                tracer.graph_break(reason)
            return original(*args, **kwargs)
        return handle

    def _breaking(self, method, reason):
        """``method`` of Tensor, made to report a graph break when the traced code calls it."""
        tracer = self
        fn = method.fget if isinstance(method, property) else method

        def breaking(*args, **kwargs):
            if state.tracer is tracer and tracer.depth == 0:
                tracer.graph_break(reason)
            return fn(*args, **kwargs)
        return property(breaking) if isinstance(method, property) else breaking


def _reads_result(op):
    """Does a derivative of ``op`` read one of its outputs (saved: eager checks its version)?"""
    names = "|".join(o.name for o in op.outputs)
    return bool(names) and any(re.search(rf"\b({names})\b", f.text) for f in op.formulas)


def _casts(func_name):
    """[(cast, argument names)]: the casts ``func_name`` makes of its inputs before its
    forward (derivatives.yaml's ``promote:``, then ``floating:``).  Eager ops make them
    inside, unrecorded; the generated code computes in numpy's dtypes, so float32 * a
    float64 0-d tensor (or an int64 tensor, ``x.sum(1) / lengths``) gave float64 from the
    second call on (PyTorch: float32).  The tracer makes them first, recorded."""
    op = OPS.get(func_name)
    if op is None:
        return ()
    return [(cast, names) for cast, names in ((promotion.promote_types, op.promote),
                                               (promotion.to_floating, op.floating)) if names]


def _promoted(casts, fn, args, kwargs):
    """``args`` and ``kwargs`` with the op's casts made here, where the tracer records
    them (``Tensor.to``: a ``_to_copy``); the op then finds its dtypes already cast."""
    if not _may_cast(args, kwargs):
        return args, kwargs
    bound = _signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()   # (clamp(x, min=t): max is None, which promote_types skips)
    values = bound.arguments
    for cast, names in casts:
        keys = [n if n in values or n != "self" else "input" for n in names]
        if not all(k in values for k in keys):
            continue   # (an optional argument left out: the op casts what it has)
        for key, value in zip(keys, cast(*(values[k] for k in keys))):
            values[key] = value
    return bound.args, bound.kwargs


def _may_cast(args, kwargs):
    """Whether promote/floating casts could change an argument: not when every tensor has
    one floating dtype and the rest are None, bools, ints, floats or strings (the common
    case, which then skips binding the arguments to the signature: a tenth of a
    compile's time).  Anything else (complex numbers, sequences, arrays) is checked."""
    dtype = None
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor):
            kind_dtype = value._data.dtype
            if kind_dtype.kind != "f" or (dtype is not None and kind_dtype != dtype):
                return True
            dtype = kind_dtype
        elif value is not None and type(value) not in (bool, int, float, str):
            return True
    return False


_CREATION = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
             "full_like", "empty_like", "arange", "linspace", "eye", "new_tensor", "new_zeros",
             "new_ones", "new_empty", "new_full")

_BREAKING_METHODS = {
    "item": "Tensor.item() reads a value as a Python number",
    "tolist": "Tensor.tolist() reads the values",
    "numpy": "Tensor.numpy() hands the data to numpy",
    "__array__": "numpy reads the tensor's data (np.asarray / a numpy call)",
    "__bool__": "bool(tensor): a branch on data",
    "__float__": "float(tensor) reads a value",
    "__int__": "int(tensor) reads a value",
    "__index__": "a tensor used as a Python index reads a value",
    "__format__": "format(tensor) or an f-string reads the value",
    "__repr__": "repr(tensor), str(tensor) or print(tensor) reads the values",
    "register_hook": "a hook registered inside the compiled function",
    "retain_grad": "retain_grad() inside the compiled function",
    "backward": "backward() inside the compiled function",
    "__setitem__": "an in-place assignment (tensor[...] = ...)",
}


_SIGNATURES = {}
_DEFAULTS = {}       # function -> _defaults(function)
_EMPTY = object()
_MISSING = object()
_HANDLERS = {}       # id(intercepted function) -> (handler, a copy of the original)
_TRAMPOLINES = {}    # intercepted function -> (trampoline code, original copy)


def _trampoline(fn):
    """Code that forwards a call to ``_HANDLERS[id(fn)]``, and a copy of ``fn`` to call."""
    found = _TRAMPOLINES.get(fn)
    if found is None:
        source = (f"def {fn.__name__}(*args, **kwargs):\n"
                  f"    handler, original = __minigrad_compile_handlers__[{id(fn)}]\n"
                  "    return handler(original, args, kwargs)\n")
        namespace = {}
        exec(compile(source, fn.__code__.co_filename, "exec"), namespace)  # noqa: S102
        original = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                      fn.__closure__)
        original.__kwdefaults__ = fn.__kwdefaults__
        original.__wrapped_op__ = fn
        fn.__globals__["__minigrad_compile_handlers__"] = _HANDLERS
        found = _TRAMPOLINES[fn] = (namespace[fn.__name__].__code__, original)
    return found


def _signature(fn):
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    return sig


def _call_values(fn, args, kwargs):
    """The values of ``fn``'s parameters in a call, in order, defaults filled in; None
    where the call does not bind.  Leading arguments given by position (``x + 0.1`` is
    ``add(x, 0.1)``, alpha left out) take the defaults without ``inspect``'s binding
    (~10 us an op)."""
    positional, defaults = _defaults(fn)
    if not kwargs and len(args) <= positional:
        if len(args) == len(defaults):
            return args
        if all(d is not _EMPTY for d in defaults[len(args):]):
            return args + defaults[len(args):]
    try:
        bound = _signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def _defaults(fn):
    """(how many parameters may be given by position, every parameter's default or
    _EMPTY); (-1, ()) for a function with ``*args`` or ``**kwargs`` (bound by inspect)."""
    found = _DEFAULTS.get(fn)
    if found is None:
        params = list(_signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            found = (-1, ())
        else:
            found = (sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params),
                     tuple(_EMPTY if p.default is p.empty else p.default for p in params))
        _DEFAULTS[fn] = found
    return found


def _inplace_modules(*known):
    """Every module that holds a reference to apply_inplace (in-place ops go through it)."""
    modules = list(known)
    try:
        modules.append(importlib.import_module("minigrad.autograd.inplace"))
    except ImportError:
        pass
    return [m for m in modules if hasattr(m, "apply_inplace")]


def _contains_tensor(value):
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    if isinstance(value, slice):
        return any(_contains_tensor(v) for v in (value.start, value.stop, value.step))
    return False


def _contains_array(value):
    """An array or array scalar in ``value`` (numpy's, or any with ``__array__``)."""
    if isinstance(value, (list, tuple)):
        return any(_contains_array(v) for v in value)
    return isinstance(value, np.generic) or hasattr(type(value), "__array__")


def _bool_index(tracer, refs):
    """getitem with a traced bool mask: as many elements as the mask has True."""
    index = refs["index"]
    return index[0] == "value" and tracer.program.values[index[1]].dtype == np.bool_


# ops whose result's shape follows their inputs' values: op name -> (tracer, refs) -> bool
_DATA_SHAPED = {"getitem": _bool_index,
                "_masked_select": lambda tracer, refs: True,
                "repeat_interleave_self_Tensor": lambda tracer, refs: True}


_INTERNAL = {}   # code filename -> inside the minigrad package?


def user_line():
    """(file, line) of the innermost frame outside minigrad: the user's line."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        internal = _INTERNAL.get(filename)
        if internal is None:
            internal = _INTERNAL[filename] = (
                os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)
                or filename.startswith("<minigrad.compile"))
        if not internal:
            return (filename, frame.f_lineno)
        frame = frame.f_back
    return ("<unknown>", 0)


def format_where(where):
    path, line = where
    source = linecache.getline(path, line).strip()
    return f"{path}:{line}" + (f" `{source}`" if source else "")
