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
from minigrad.autograd import grad_mode


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
        raise RuntimeError("All tangents of one forward AD level must have the same batch "
                           f"size (this level has {state.batch_size}, got {batch}).")
    state.batch_size, state.unbatched = batch, not batched
    from minigrad._generated import functions
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
    from minigrad._generated import functions
    with PAUSED:
        primal = functions.view(tensor, tuple(tensor.shape))
    return UnpackedDualTensor(primal, tangent)


# ----------------------------------------------------------------- storage
def stored_tangent(tensor):
    """The tangent kept on ``tensor`` for the open level (with its batch dim), or None."""
    extras = tensor._extras
    if extras is None:
        return None
    entry = extras.get("tangent")
    if entry is None or entry[0] != state.serial:
        return None
    return entry[1]


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
    return _tensor._wrap(np.zeros_like(array))


def add_term(total, term, negate=False):
    """The sum of a forward formula's defined terms (None while none was defined)."""
    if negate:
        term = -term
    return term if total is None else total + term


def formulas():
    """The namespace forward formulas run in: Tensor ops, or their batched versions."""
    from minigrad.autograd.namespace import TENSORS
    return TENSORS if state.batch_size is None else BATCHED


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
    from minigrad.autograd.saved import SavedTensor
    for slot in node._saved_slots:
        saved = getattr(node, slot, None)
        if type(saved) is SavedTensor and saved.tensor is None and saved._data is result._data \
                and saved.output_nr == result._output_nr:
            saved.tensor = result


def no_forward_formula(op):
    raise NotImplementedError(
        f"Trying to use forward AD with {op} that does not support it because it has not been "
        "implemented yet. Add its forward derivative (`result:`) in derivatives.yaml.")


Batched = BATCHED = None  # minigrad.autograd.batching, loaded by the first batched level


def _load_batching():
    global Batched, BATCHED
    if Batched is None:
        from minigrad.autograd import batching
        Batched, BATCHED = batching.Batched, batching.BATCHED
