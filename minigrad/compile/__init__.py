"""``minigrad.compile``: trace a function once, generate its forward and backward.

>>> @minigrad.compile
... def f(a, b):
...     return ((a + b) * b).sum()
>>> f(a, b).backward()          # first call: traced (runs eagerly), code generated
>>> f(a, b).backward()          # same guards: the generated code runs
>>> print(f.source())           # the generated forward and backward, line by line

The first call with a new *guard* (input shapes, dtypes, requires_grad pattern,
aliasing, grad mode, the values of non-Tensor arguments) runs ``fn`` eagerly while
recording its ops (see tracer.py), then generates straight-line code from the
ops' derivatives.yaml entries (generate.py): one forward, and one backward per
pattern of output gradients that arrive.  A single graph node (runtime.py) links
the compiled region into the ordinary autograd graph, so ``backward``,
``autograd.grad``, hooks, ``retain_graph`` and the version checks work as in
eager mode.  Under ``create_graph=True`` the node runs the same formulas in Tensor
form (generate.TensorBackward: the differentiable ops, recomputing the forward values
they read), itself compiled, so a Hessian-vector product runs generated code for
both orders.  ``loss.backward()`` and ``autograd.grad`` from a region's output to
hook-free leaves it reads skip the engine's bookkeeping (runtime.fast_backward).

What the trace cannot replay (``.item()``, ``bool(t)``, numpy on data, in-place ops but
a captured buffer's update, which is written back after each call, random draws but
dropout's masks, which each call draws anew, hooks registered inside) is a graph break:
that guard runs eagerly
from then on (``fullgraph=True`` raises instead, naming the line).  Calls under
anomaly mode or saved-tensor hooks run eagerly.  What the function read besides its
arguments is checked on every call (world.py): the modules it called (their parameters,
buffers, submodules and plain attributes such as ``training``), its closure and the
globals its code names; a change is traced again.  Values inside containers and other
functions' globals are not: pass them as arguments to have them guarded.
"""
import contextlib
import functools
import gc
import warnings
from _thread import get_ident

import numpy as np

from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import anomaly, grad_mode
from minigrad.autograd.saved import hooks_used, saved_hooks
from minigrad.compile.guards import make_guard
from minigrad.compile.runtime import CompiledEntry
from minigrad.compile.tracer import GraphBreak, Tracer, format_where, state
from minigrad.compile.world import world_check

_anomaly_flags, _anomaly_used = anomaly.flags, anomaly.used
#: the idents of the threads tracing a call (``_compile_and_call``; each adds and removes
#: its own, atomically): while it is empty no thread's ``state.tracer`` is set, and
#: ``__call__`` need not read that thread-local
_tracing = set()

__all__ = ["compile", "CompiledFunction", "GraphBreak"]
_BACKENDS = (None, "inductor", "minigrad", "eager")
_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,
            options=None, disable=False):
    """Compile ``model`` (a function or an ``nn.Module``); usable as a decorator.

    >>> fast = minigrad.compile(lambda x: (x * x).sum())
    >>> @minigrad.compile(fullgraph=True)
    ... def g(x): return x.tanh()
    """
    if dynamic:
        raise NotImplementedError("minigrad.compile(dynamic=True): dynamic shapes are not "
                                  "supported; each new shape is compiled again (dynamic=None)")
    if backend not in _BACKENDS:
        raise ValueError(f"minigrad.compile: unknown backend {backend!r}; "
                         f"use one of {', '.join(repr(b) for b in _BACKENDS)}")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           + ", ".join(m for m in _MODES if m))
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic,
                                 backend=backend, mode=mode, options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("compile() expects a callable (a function or an nn.Module), "
                           f"got {type(model).__name__}")
    return CompiledFunction(model, fullgraph=fullgraph, eager=disable or backend == "eager")


#: distinct guards compiled per function before new ones run eagerly (torch's default: 8)
compile.cache_size_limit = 8


class _EagerEntry:
    """A guard whose trace broke: it runs the function eagerly."""

    def __init__(self, breaks):
        self.breaks = breaks


class CompiledFunction:
    """What ``minigrad.compile`` returns: call it like the function it wraps."""

    def __init__(self, fn, fullgraph=False, eager=False, register=True):
        self.fn = fn
        self.fullgraph = fullgraph
        self.eager = eager
        self._cache = {}          # guard key -> [entry]  (entries differ in externals)
        self._latest = None
        self._hot = None          # the entry that ran last, where it has a generated guard
        self._warned = False
        functools.update_wrapper(self, fn, updated=())
        if register:   # (the compiler's own, the create_graph backwards, are not listed)
            _created.append(self)

    def __repr__(self):
        return f"<minigrad.compile of {getattr(self.fn, '__qualname__', self.fn)!r}>"

    def __get__(self, instance, owner):
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args, **kwargs):
        # (the latches first: each thread-local read costs about as much as the guard)
        if (self.eager or _anomaly_used.on or hooks_used.on or _tracing) and self._eager():
            return self.fn(*args, **kwargs)
        hot = self._hot
        if hot is not None and not kwargs and hot.guard(args) and (
                hot.world is None or hot.world()):
            gather = hot.gather
            return hot.run(args if gather is None else gather(args, kwargs))
        tensors = []
        parts = []
        try:
            for a in args:   # (the common case inline: a Tensor argument)
                if type(a) is Tensor:
                    tensors.append(a)
                    data = a._data
                    parts.append((data.shape, data.dtype.num, a._requires_grad))
                else:
                    parts.append(_key(a, tensors))
            flags = grad_mode.flags
            key = (flags.enabled, flags.inference, (tuple, tuple(parts)),
                   _key(kwargs, tensors) if kwargs else None)
        except TypeError:           # an unhashable argument: nothing to guard on
            return self.fn(*args, **kwargs)
        if len(tensors) > 1 and len(tensors) != len({id(t) for t in tensors}):
            first = {}   # (by identity: list.index would compare Tensors with ==)
            key = key + (tuple(first.setdefault(id(t), i) for i, t in enumerate(tensors)),)
        entries = self._cache.get(key)
        if entries is not None:
            for entry in entries:
                if type(entry) is _EagerEntry:
                    return self.fn(*args, **kwargs)
                if (not entry.externals or _externals_match(entry)) and (
                        entry.world is None or entry.world()):
                    if entry.guard is not None:
                        self._hot = entry   # (its generated check: guards.py)
                    gather = entry.gather
                    return entry.run(args if gather is None else gather(args, kwargs))
        return self._compile_and_call(key, args, kwargs)

    def _eager(self):
        """Does this call run ``fn`` eagerly: compile(disable=True), anomaly mode or
        saved-tensor hooks on in this thread, or inside another trace (whose ops record
        it there)?"""
        return (self.eager or _anomaly_flags.enabled or bool(saved_hooks.stack)
                or state.tracer is not None)

    # ------------------------------------------------------------ compiling
    def _compile_and_call(self, key, args, kwargs):
        limit = compile.cache_size_limit
        if sum(map(len, self._cache.values())) >= limit:
            if not self._warned:
                self._warned = True
                warnings.warn(f"minigrad.compile: {self!r} was compiled {limit} times "
                              "(for new shapes, dtypes, requires_grad, argument values, or "
                              "changed modules, closures or globals); new ones run eagerly. "
                              "Raise minigrad.compile.cache_size_limit if this is expected.",
                              stacklevel=3)
            return self.fn(*args, **kwargs)
        with _collector_paused():
            tracer = Tracer(self.fullgraph)
            paths = list(_tensor_paths(args, kwargs))
            _tracing.add(get_ident())
            try:
                result = tracer.run(self.fn, args, kwargs, paths)
            finally:
                _tracing.discard(get_ident())
            program = tracer.program
            entry = None
            if not program.breaks:
                try:
                    entry = CompiledEntry(program, getattr(self.fn, "__name__", "fn"),
                                          record_graph=grad_mode.flags.enabled)
                except NotImplementedError as exc:
                    tracer.graph_break(str(exc))
        if entry is None:
            entry = _EagerEntry(program.breaks)
        else:
            entry.gather = _gatherer(program, len(args))
            values = program.values
            entry.guard = make_guard(key, [(tensor, values[program.inputs[slot][2]])
                                           for slot, tensor in entry.externals])
            entry.world = world_check(self.fn, tracer.modules, args)
        entry.key = key
        self._cache.setdefault(key, []).append(entry)
        self._latest = entry
        return result

    # ------------------------------------------------------------ reading
    def source(self):
        """The generated forward and backward(s) of the most recent compilation.

        Each line's comment names its op and derivatives.yaml line (and, in the forward,
        the line of your function that called it)."""
        entry = self._latest
        if entry is None:
            raise RuntimeError("source(): nothing is compiled yet: code is generated on the "
                               "first call (call the compiled function once)")
        if type(entry) is _EagerEntry:
            return "# not compiled: graph break(s), this guard runs eagerly\n" + \
                "".join(f"#   {format_where(w)}: {r}\n" for r, w in entry.breaks)
        return entry.source()

    def explain(self):
        """Each compiled guard, its graph breaks, and how many ops it holds (a string)."""
        lines = [f"{self!r}: {len(self._cache)} guard(s)"]
        for key, entries in self._cache.items():
            for entry in entries:
                lines.append(f"  guard: {describe_key(key)}")
                if type(entry) is _EagerEntry:
                    lines.append("    runs eagerly: graph break(s)")
                    lines.extend(f"      {format_where(w)}: {r}" for r, w in entry.breaks)
                else:
                    program = entry.program
                    lines.append(f"    compiled: {len(program.records)} ops, "
                                 f"{len(entry.input_vids)} inputs "
                                 f"({len(entry.externals)} captured from outside)")
                    lines.extend(_create_graph_lines(entry))
        return "\n".join(lines)


def _create_graph_lines(entry):
    """How the create_graph backwards asked of ``entry`` so far run."""
    for found in entry._tensor_backwards.values():
        if found is None:
            yield "    create_graph backward: the region replayed eagerly (no Tensor form)"
            continue
        reasons = sorted({reason for entries in found[0]._cache.values() for e in entries
                          if type(e) is _EagerEntry for reason, _ in e.breaks})
        yield ("    create_graph backward: " + (f"runs eagerly: {'; '.join(reasons)}"
                                                if reasons else "compiled"))


_created = []   # every CompiledFunction (compile_explain reports them)


def _key(value, tensors):
    if isinstance(value, Tensor):
        tensors.append(value)
        # (the dtype's number: hashing a numpy dtype costs more than the rest of a guard)
        return (value._data.shape, value._data.dtype.num, value._requires_grad)
    kind = type(value)
    if kind is tuple or kind is list:
        return (kind, tuple([_key(v, tensors) for v in value]))
    if kind is dict:
        return (kind, tuple((k, _key(v, tensors)) for k, v in value.items()))
    if kind in (int, float, bool, str, complex, type(None), slice):
        return (kind, value)
    hash(value)
    return (kind, value) if kind.__hash__ is not object.__hash__ else (kind, id(value))


def describe_key(key):
    grad_enabled, inference, args, kwargs = key[:4]
    text = f"grad mode {'on' if grad_enabled else 'off'}"
    if inference:
        text += ", inference mode"
    text += f", args {_describe(args)}"
    if kwargs is not None:
        text += f", kwargs {_describe(kwargs)}"
    if len(key) > 4:
        text += f", aliasing {key[4]}"
    return text


def _describe(key):
    if len(key) == 3 and isinstance(key[0], tuple):
        shape, number, requires_grad = key
        dtype = _DTYPES.get(number, number)
        return f"Tensor{list(shape)} {dtype}{' requires_grad' if requires_grad else ''}"
    kind, value = key
    if kind in (tuple, list):
        inner = ", ".join(_describe(v) for v in value)
        return f"({inner})" if kind is tuple else f"[{inner}]"
    if kind is dict:
        return "{" + ", ".join(f"{k}: {_describe(v)}" for k, v in value) + "}"
    return f"{kind.__name__}={value!r}"


_DTYPES = {np.dtype(code).num: np.dtype(code) for code in np.typecodes["All"]}


def _tensor_paths(args, kwargs):
    """(path, Tensor) for every Tensor argument; a path is how ``_gatherer`` finds it again."""

    def walk(value, path):
        if isinstance(value, Tensor):
            yield path, value
        elif type(value) in (tuple, list):
            for i, v in enumerate(value):
                yield from walk(v, path + (i,))
        elif type(value) is dict:
            for k, v in value.items():
                yield from walk(v, path + (k,))
    yield from walk(args, ("args",))
    if kwargs:
        yield from walk(kwargs, ("kwargs",))


def _gatherer(program, nargs):
    """A function (args, kwargs) -> the region's input Tensors, one per program input, or
    None where they are the ``nargs`` positional arguments, in order (the key fixes their
    number)."""
    getters = []
    for kind, key, _ in program.inputs:
        if kind == "external":
            getters.append(functools.partial(_constant, key))
        elif kind == "random":   # (key: the draw, compile/draws.py)
            getters.append(functools.partial(_drawn, key))
        elif key[0] == "args" and len(key) == 2:
            getters.append(functools.partial(_positional, key[1]))
        else:
            getters.append(functools.partial(_nested, key))
    if all(type(g.func) is type(_positional) and g.func is _positional for g in getters):
        indices = [g.args[0] for g in getters]
        if indices == list(range(nargs)):
            return None
        if indices == list(range(len(indices))):
            return _leading(len(indices))
        return lambda args, kwargs: [args[i] for i in indices]
    return lambda args, kwargs: [g(args, kwargs) for g in getters]


def _leading(count):
    """The first ``count`` positional arguments (all of them, in the common case)."""
    return lambda args, kwargs: args if len(args) == count else args[:count]


def _constant(tensor, args, kwargs):
    return tensor


def _drawn(draw, args, kwargs):
    return _wrap(draw())


def _positional(index, args, kwargs):
    return args[index]


def _nested(path, args, kwargs):
    value = args if path[0] == "args" else kwargs
    for step in path[1:]:
        value = value[step]
    return value


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while a call is traced and its code generated.
    That allocates tens of thousands of short-lived objects (records, AST nodes, source
    lines), and the collector, run every 700 allocations, walked the young ones again and
    again and now and then the whole heap (with PyTorch imported, ~100 ms at once): a
    fifth of compiling bench_compile.py's 200-op chain, and its slowest runs.  Turned back
    on after (unless it was off before), its next run sees the survivors once."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _externals_match(entry):
    values = entry.program.values
    for slot, tensor in entry.externals:
        value = values[entry.program.inputs[slot][2]]
        if (tensor._data.shape != value.shape or tensor._data.dtype != value.dtype
                or tensor._requires_grad != value.requires_grad):
            return False
    return True
