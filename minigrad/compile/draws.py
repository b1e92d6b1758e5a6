"""Random values a compiled region draws anew on every call (its inputs of kind "random").

A random op inside a compiled function cannot be frozen into the generated code: each
call must draw new values, from the generator eager mode would use, in eager's order.
The tracer (``_mask_handler``, ``_sampler_handler``) therefore makes each draw an input
of the region, and keeps here how to draw it again: ``compile._gatherer`` calls that
before the forward, in the trace's order, so a seed gives eager's values, gradients and
generator state.

Only draws whose values depend on shapes and numbers can be repeated that way: dropout's
mask, and ``rand``, ``randn``, ``randint``, ``randperm``, their ``_like`` forms and
``normal`` of numbers.  Draws that read a tensor's values (``bernoulli``,
``multinomial``, ``normal`` of tensors) and samples that require grad stay graph breaks.
"""
import functools
import types

from minigrad._tensor import Tensor

#: samplers drawing from shapes and numbers alone (minigrad/_sampling.py)
SAMPLERS = ("rand", "randn", "randint", "randperm", "normal",
            "rand_like", "randn_like", "randint_like")


def sampler_draw(original, args, kwargs):
    """A function of no arguments that draws what ``original(*args, **kwargs)`` drew (its
    array), or None where that draw reads a tensor's values or makes a leaf that requires
    grad.  A ``_like`` sampler's first argument is kept as its shape, dtype and device only
    (all it reads): the traced tensor itself is not held."""
    if kwargs.get("requires_grad"):
        return None
    first, rest = (args[0], args[1:]) if original.__name__.endswith("_like") else (None, args)
    if any(isinstance(v, Tensor) for v in (*rest, *kwargs.values())):
        return None
    if first is not None:
        first = types.SimpleNamespace(shape=first.shape, dtype=first.dtype, device=first.device)
        rest = (first, *rest)
    return functools.partial(_draw, original, rest, kwargs)


def _draw(sampler, args, kwargs):
    return sampler(*args, **kwargs)._data
