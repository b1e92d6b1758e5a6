"""Forward-mode automatic differentiation, as ``torch.autograd.forward_ad``.

A *dual tensor* carries a tangent next to its value.  Every op run on dual tensors
inside a ``dual_level`` also computes the tangent of its result: its forward
derivative (JVP), declared as ``result:`` next to the backward formulas in
derivatives.yaml and generated into ``minigrad/_generated/jvps.py``.

>>> import minigrad as mg
>>> import minigrad.autograd.forward_ad as fwAD
>>> x = mg.tensor([1.0, 2.0])
>>> with fwAD.dual_level():
...     y = mg.exp(fwAD.make_dual(x, mg.ones(2)))
...     fwAD.unpack_dual(y).tangent          # exp(x) * 1
tensor([2.7183, 7.3891])

When no level is open the only cost per op is one check of ``state.active``.
"""
from collections import namedtuple

import numpy as np

from minigrad import _tensor
from minigrad._array import data_pointer, is_writeable, namespace_of


class _State:
    """The forward-AD switches the generated ops read (one attribute check per op)."""

    def __init__(self):
        self.active = False      # a level is open (and no JVP is being computed right now)
        self.level = -1          # the open level (PyTorch: 0), -1 when none
        self.serial = 0          # numbers each level entered: tangents of exited levels are dead
        self.batch_size = None   # set by _make_dual_batched: tangents have a leading batch dim
        self.unbatched = False   # make_dual was used in this level (no batch dim then)


state = _State()

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


# ----------------------------------------------------------------- levels
def enter_dual_level():
    """Open a forward-AD level and return it (PyTorch: nesting levels is not supported)."""
    if state.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.serial += 1
    state.level, state.active, state.batch_size, state.unbatched = 0, True, None, False
    return state.level


def exit_dual_level(*, level=None):
    """Close the level: every tangent made in it is dropped."""
    level = state.level if level is None else level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != state.level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    state.level, state.active, state.batch_size, state.unbatched = -1, False, None, False
    state.serial += 1


class dual_level:
    """Context manager for a forward-AD level: tangents live until it exits.

    >>> with dual_level():
    ...     d = make_dual(x, t)
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


# ----------------------------------------------------------------- dual tensors
def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` (same shape, floating point)."""
    return _make_dual(tensor, tangent, level, batched=False)


def _make_dual_batched(tensor, tangents, *, level=None):
    """A dual tensor with ``tangents.shape == (B,) + tensor.shape``: B tangents pushed through
    every op at once (``minigrad.func.jacfwd``); ``unpack_dual(out).tangent`` of every result
    then has shape ``(B,) + out.shape``.  The level becomes batched with that B."""
    return _make_dual(tensor, tangents, level, batched=True)


def _make_dual(tensor, tangent, level, batched):
    Tensor = _tensor.Tensor
    if state.level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if level is not None and level != state.level:
        raise RuntimeError(f"Invalid level {level}: the open forward AD level is {state.level}.")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("make_dual expects Tensors for both the primal and the tangent, got "
                        f"{type(tensor).__name__} and {type(tangent).__name__}")
    for what, value in (("primal", tensor), ("tangent", tangent)):
        if value._data.dtype.kind not in "fc":
            raise ValueError(f"Expected {what} to be floating point or complex, but got: "
                             f"{value.dtype}")
    shape = tangent.shape[1:] if batched else tangent.shape
    if tuple(shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(shape)}.")
    batch = tangent.shape[0] if batched else None
    if batched:
        _load_batching()
    if batch != state.batch_size and (state.batch_size is not None or state.unbatched):
        have = f"a batch of {state.batch_size}" if state.batch_size is not None else "no batch dim"
        got = f"a batch of {batch}" if batch is not None else "none"
        raise RuntimeError("All tangents of one forward AD level must have the same batch "
                           f"size (this level's tangents have {have}, got {got}).")
    state.batch_size, state.unbatched = batch, not batched
    from minigrad._generated import functions  # lazy: the generated modules import this one
    with PAUSED:
        dual = functions.view(tensor, tuple(tensor.shape))  # a view, as PyTorch's make_dual
    set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor``: the primal is a view without the tangent; the
    tangent is None when ``tensor`` has none at this level."""
    Tensor = _tensor.Tensor
    if not isinstance(tensor, Tensor) or state.level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = stored_tangent(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    from minigrad._generated import functions  # lazy: the generated modules import this one
    with PAUSED:
        primal = functions.view(tensor, tuple(tensor.shape))
    return UnpackedDualTensor(primal, tangent)


# ----------------------------------------------------------------- storage
def stored_tangent(tensor):
    """The tangent kept on ``tensor`` for the open level (with its batch dim), or None.

    A view without a tangent of its own whose base has one gets the same view of the base's
    tangent (as PyTorch: a view of a dual tensor is dual)."""
    extras = tensor._extras
    entry = extras.get("tangent") if extras is not None else None
    if entry is not None and entry[0] == state.serial:
        return entry[1]
    base = tensor._base
    if base is None:
        return None
    base_tangent = stored_tangent(base)
    if base_tangent is None:
        return None
    own = _view_of(tensor, base, base_tangent)
    if own is not None:
        set_tangent(tensor, own)
        return own
    from minigrad.autograd.views import view_index  # lazy: views imports the generated ops
    lead = base_tangent._data.shape[:base_tangent._data.ndim - base._data.ndim]
    flat = base_tangent._data.reshape(lead + (-1,))
    return _tensor._wrap(flat[(slice(None),) * len(lead) + (view_index(tensor._data, base._data),)])


def _view_of(view, base, base_tangent):
    """``base_tangent`` viewed as ``view`` looks into ``base`` (None where numpy cannot)."""
    data, base_data, target = view._data, base._data, base_tangent._data
    if not base_data.flags.c_contiguous or not target.flags.c_contiguous \
            or target.dtype.itemsize != base_data.dtype.itemsize:
        return None
    lead = target.shape[:target.ndim - base_data.ndim]
    offset = data_pointer(data) - data_pointer(base_data)
    flat = target.reshape(lead + (-1,))
    start = flat[(slice(None),) * len(lead) + (slice(offset // base_data.itemsize, None),)]
    return _tensor._wrap(namespace_of(start).lib.stride_tricks.as_strided(
        start, shape=lead + data.shape, strides=flat.strides[:len(lead)] + data.strides))


def set_tangent(tensor, tangent):
    if tensor._extras is None:
        tensor._extras = {}
    tensor._extras["tangent"] = (state.serial, tangent)


class _Paused:
    """While a JVP is computed, ops do not compute tangents of tangents (PyTorch evaluates
    forward formulas on the primals of the level: nested levels are not supported)."""

    def __init__(self):
        self.stack = []

    def __enter__(self):
        self.stack.append(state.active)
        state.active = False

    def __exit__(self, *exc):
        state.active = self.stack.pop()


PAUSED = _Paused()


# ----------------------------------------------------------------- for the generated JVPs
def tangent_of(value):
    """The tangent of an op's input as its JVP formula sees it: None (undefined: the terms
    that need it are skipped), a Tensor, or in a batched level a ``Batched`` tangent."""
    if not isinstance(value, _tensor.Tensor):
        return None
    tangent = stored_tangent(value)
    if tangent is None or state.batch_size is None:
        return tangent
    return Batched(tangent)


def tangents_of(values):
    """Tangents of a ``Tensor[]`` input: None when no tensor in it has one."""
    tangents = [tangent_of(v) for v in values]
    return None if all(t is None for t in tangents) else tangents


def or_zeros(tangent, primal):
    """A term naming several tangents needs all of them: an undefined one is zero there."""
    if type(tangent) is list:
        return [or_zeros(t, p) for t, p in zip(tangent, primal)]
    if tangent is not None or primal is None:
        return tangent
    array = primal._data if isinstance(primal, _tensor.Tensor) else np.asarray(primal, float)
    return _tensor._wrap(namespace_of(array).zeros_like(array))


def add_term(total, term, negate=False):
    """The sum of a forward formula's defined terms (None while none was defined)."""
    if negate:
        term = -term
    return term if total is None else total + term


def formulas(ops):
    """The namespace forward formulas run in: the Tensor ops, or their batched versions."""
    return ops if state.batch_size is None else BATCHED


def attach(result, tangent, info):
    """Give ``result`` its tangent (cast and broadcast to it; a wrong shape names the entry)."""
    if tangent is None or not isinstance(result, _tensor.Tensor):
        return result
    if result._data.dtype.kind not in "fc":
        return result  # integer and boolean outputs have no tangent (PyTorch)
    batch = state.batch_size
    if batch is not None and isinstance(tangent, Batched):
        tangent = tangent.value
    elif not isinstance(tangent, _tensor.Tensor):
        tangent = _tensor._wrap(np.asarray(tangent))
    expected = tuple(result.shape) if batch is None else (batch,) + tuple(result.shape)
    if tuple(tangent.shape) != expected:
        tangent = _broadcast_tangent(tangent, expected, batch, result, info)
    if tangent._data.dtype != result._data.dtype:
        tangent = tangent.to(result.dtype)
    set_tangent(result, tangent)
    _saved_outputs_follow(result)
    return result


def _broadcast_tangent(tangent, expected, batch, result, info):
    shape = tuple(tangent.shape)
    if batch is None:
        ok = len(shape) <= len(expected) and _broadcastable(shape, expected)
    else:  # an unbatched term (zeros) gets the batch dim; a batched one is right-aligned
        ok = _broadcastable(shape, expected)
    if not ok:
        op, yaml_path, line, text = info
        raise RuntimeError(
            f"the forward derivative of {op} ({yaml_path}:{line}: `{text}`) gave a tangent of "
            f"shape {list(shape)} for an output of shape {list(result.shape)}"
            + (f" (batch of {batch} tangents)" if batch is not None else ""))
    return tangent.expand(expected) * 1.0 if tangent._data.dtype.kind == "f" else tangent.expand(expected)


def _broadcastable(shape, target):
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(shape[::-1], target[::-1]))


def _saved_outputs_follow(result):
    """Backward formulas that saved this output must see its tangent too (forward-over-reverse):
    the saved output keeps the tensor itself, not only its array."""
    node = result.grad_fn
    if node is None:
        return
    from minigrad.autograd.saved import SavedTensor  # lazy: saved imports _tensor, as we do
    for slot in node._saved_slots:
        saved = getattr(node, slot, None)
        if type(saved) is SavedTensor and saved.tensor is None and saved._data is result._data \
                and saved.output_nr == result._output_nr:
            saved.tensor = result


# ----------------------------------------------------------------- custom Functions
def function_with_jvp(cls, args, kwargs):
    """``Function.apply`` in a dual level: the forward, then ``cls.jvp(ctx, *tangents)`` for
    the outputs' tangents (a Tensor input without one gets zeros, as PyTorch)."""
    Tensor = _tensor.Tensor
    tangents = [stored_tangent(a) if isinstance(a, Tensor) else None for a in args]
    with PAUSED:
        outputs, ctx = cls._run(args, kwargs)
    if all(t is None for t in tangents):
        return outputs
    if getattr(cls.jvp, "__func__", cls.jvp) is _base_jvp():
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")
    batch = state.batch_size
    lead = () if batch is None else (batch,)
    tangents = [t if t is not None or not isinstance(a, Tensor)
                else _tensor._wrap(namespace_of(a._data).zeros(lead + tuple(a.shape), a._data.dtype))
                for a, t in zip(args, tangents)]
    ctx._in_jvp = True
    try:
        with PAUSED:
            if batch is None:
                out_tangents = cls.jvp(ctx, *tangents)
            else:  # a custom jvp knows nothing of the batch dim: one call per tangent
                from minigrad._generated import functions  # lazy: generated code imports us
                columns = [cls.jvp(ctx, *[t if t is None else t[b] for t in tangents])
                           for b in range(batch)]
                out_tangents = columns[0] if not isinstance(columns[0], tuple) else None
                if isinstance(columns[0], tuple):
                    out_tangents = tuple(functions.stack([c[i] for c in columns])
                                         for i in range(len(columns[0])))
                else:
                    out_tangents = functions.stack(columns)
    finally:
        ctx._in_jvp = False
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    out_tangents = (out_tangents,) if not isinstance(out_tangents, tuple) else out_tangents
    if len(out_tangents) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned {len(out_tangents)} tangents for "
                           f"{len(outs)} outputs")
    for out, tangent in zip(outs, out_tangents):
        if isinstance(out, Tensor) and tangent is not None:
            if tuple(tangent.shape) != lead + tuple(out.shape):
                raise RuntimeError(
                    f"{cls.__name__}.jvp returned a tangent of shape {list(tangent.shape)} for "
                    f"an output of shape {list(out.shape)}")
            set_tangent(out, tangent)
    return outputs


def _base_jvp():
    from minigrad.autograd.function import Function  # lazy: function.py imports this module
    return Function.__dict__["jvp"].__func__


# ----------------------------------------------------------------- in-place ops
def inplace_with_tangent(self, op, args, kwargs, apply_inplace):
    """``x.op_(...)`` in a dual level: the out-of-place op gives the new tangent, the usual
    in-place path the value and history; the tangent is written into ``x``'s tangent in
    place, so the base and the other views of ``x`` see it (as in PyTorch)."""
    out = op(self, *args, **kwargs)
    with PAUSED:
        apply_inplace(self, op, *args, **kwargs)
    tangent = stored_tangent(out)
    if tangent is None:
        if stored_tangent(self) is None and (self._base is None or stored_tangent(self._base) is None):
            return self
        lead = () if state.batch_size is None else (state.batch_size,)
        tangent = _tensor._wrap(namespace_of(self._data).zeros(lead + tuple(self.shape), self._data.dtype))
    _write_tangent(self, tangent)
    return self


def _write_tangent(tensor, tangent):
    own = stored_tangent(tensor)
    if own is None and tensor._base is not None:
        own = _tangent_of_view(tensor, tangent)
    if own is not None and own.shape == tangent.shape and is_writeable(own._data):
        np.copyto(own._data, tangent._data, casting="unsafe")
        own._version_counter[0] += 1
    else:
        set_tangent(tensor, tangent)


def _tangent_of_view(view, tangent):
    """The view's tangent as the same view of its base's tangent (zeros made for a base that
    had none).  Where numpy cannot express that view, the values go into the base's tangent
    element by element and the view keeps its own tangent (returns None)."""
    base = view._base
    base_tangent = stored_tangent(base)
    lead = () if state.batch_size is None else (state.batch_size,)
    if base_tangent is None:
        base_tangent = _tensor._wrap(namespace_of(tangent._data).zeros(lead + tuple(base.shape), tangent._data.dtype))
        set_tangent(base, base_tangent)
    own = _view_of(view, base, base_tangent)
    if own is None:
        from minigrad.autograd.views import view_index  # lazy: views imports the generated ops
        flat = base_tangent._data.reshape(lead + (-1,))
        flat[(slice(None),) * len(lead) + (view_index(view._data, base._data),)] = tangent._data
        return None
    set_tangent(view, own)
    return own


def no_forward_formula(op):
    raise NotImplementedError(
        f"Trying to use forward AD with {op} that does not support it because it has not been "
        "implemented yet. Add its forward derivative (`result:`) in derivatives.yaml.")


Batched = BATCHED = None  # minigrad.autograd.batching, loaded by the first batched level


def _load_batching():
    global Batched, BATCHED
    if Batched is None:
        # lazy: batching subclasses Tensor, which is not defined yet when this module loads
        from minigrad.autograd import batching
        Batched, BATCHED = batching.Batched, batching.BATCHED
