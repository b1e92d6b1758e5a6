"""Activation checkpointing: trade compute for memory.

``checkpoint(fn, *args)`` runs ``fn`` without keeping anything for backward, and
runs it again during backward to get the values it needs (the podcast: "we run the
forwards, and we just don't save anything ... rerun the forwards again").

- ``use_reentrant=True`` (PyTorch's classic version): ``fn`` runs under no_grad
  inside a custom Function.  Its backward recomputes ``fn`` with grad enabled on
  detached inputs and calls ``backward`` on that small graph -- a backward inside
  a backward (reentrant), which the engine supports up to a bounded depth.
- ``use_reentrant=False``: ``fn`` runs normally but with saved-tensor hooks that
  keep nothing; the first time backward unpacks a saved value, ``fn`` is
  recomputed and the saved values are taken from the recomputation.  The graph is
  the real one, so ``autograd.grad`` and hooks see the ops themselves.

>>> from minigrad.utils.checkpoint import checkpoint
>>> h = checkpoint(block, x, use_reentrant=True)
"""
import contextlib
import warnings

from minigrad import random
from minigrad.autograd import grad_mode
from minigrad.autograd.function import Function
from minigrad.autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "set_checkpoint_early_stop"]

#: non-reentrant recomputation stops once it has every saved value (PyTorch's default)
_early_stop = True


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Inside, non-reentrant checkpoints made there recompute their whole function in
    backward (``enable=False``) or stop as soon as every saved value is back (the default).

    >>> with set_checkpoint_early_stop(False):
    ...     out = checkpoint(fn, x, use_reentrant=False)
    """
    global _early_stop
    previous, _early_stop = _early_stop, bool(enable)
    try:
        yield
    finally:
        _early_stop = previous


def checkpoint(function, *args, use_reentrant=True, preserve_rng_state=True, **kwargs):
    """Run ``function(*args, **kwargs)`` now without saving activations; recompute in backward.

    Gradients are the same as without checkpointing.
    """
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs) +
                             " (use_reentrant=True passes only positional arguments; "
                             "use use_reentrant=False for keyword arguments)")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state)


def checkpoint_sequential(functions, segments, input, use_reentrant=True):
    """Split ``functions`` (a list of callables) into ``segments`` checkpointed runs."""
    functions = list(functions)
    size = max(1, -(-len(functions) // segments))
    for start in range(0, len(functions), size):
        chunk = functions[start:start + size]

        def run(x, chunk=chunk):
            for f in chunk:
                x = f(x)
            return x
        input = checkpoint(run, input, use_reentrant=use_reentrant)
    return input


# --------------------------------------------------------------------- RNG
def _rng_state():
    return random.get_rng_state()


@contextlib.contextmanager
def _forked_rng(state):
    """Run with the RNG as it was in the forward, then put it back."""
    if state is None:
        yield
        return
    current = random.get_rng_state()
    random.set_rng_state(state)
    try:
        yield
    finally:
        random.set_rng_state(current)


# --------------------------------------------------------------- reentrant
class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        from minigrad._tensor import Tensor
        ctx.run_function = run_function
        ctx.rng_state = _rng_state() if preserve_rng_state else None
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.other_args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")
        return run_function(*args)  # Function.apply runs forward under no_grad

    @staticmethod
    def backward(ctx, *grads):
        from minigrad.autograd.api import backward
        from minigrad._tensor import Tensor
        if grad_mode.enabled:
            raise RuntimeError(
                "checkpoint(use_reentrant=True) cannot be differentiated twice "
                "(create_graph=True): its backward runs a separate backward on a recomputed "
                "graph. Use checkpoint(..., use_reentrant=False), or no checkpoint, there.")
        inputs = list(ctx.other_args)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            inputs[i] = t.detach().requires_grad_(t.requires_grad)
        with _forked_rng(ctx.rng_state), grad_mode.enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])  # the reentrant call
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in inputs)


# ----------------------------------------------------------- non-reentrant
class _Frame:
    """One non-reentrant checkpoint: how to recompute, and the recomputed saved values."""

    def __init__(self, function, args, kwargs, rng_state):
        self.function, self.args, self.kwargs, self.rng_state = function, args, kwargs, rng_state
        self.early_stop = _early_stop
        self.count = 0          # how many tensors the forward saved
        self.recomputed = {}    # index -> Tensor, each dropped once backward unpacked it

    def pack(self, tensor):
        index = self.count
        self.count += 1
        return index

    def unpack(self, index):
        if index not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(index)

    def _recompute(self):
        from minigrad._tensor import Tensor
        if grad_mode.enabled:
            raise RuntimeError(
                "checkpoint(use_reentrant=False) in minigrad cannot be differentiated twice "
                "(create_graph=True); run that part without checkpoint.")
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                  for a in self.args]
        values = []

        def keep(tensor):
            # detached: the values must not keep the recomputed graph alive (a cycle
            # through this hook would hold every segment's activations until gc runs)
            values.append(tensor.detach())
            if self.early_stop and len(values) == self.count:
                raise _StopRecomputation  # the rest of the function is not needed

        def never(_):
            raise RuntimeError("internal error: the recomputed graph is never differentiated")

        try:
            with _forked_rng(self.rng_state), grad_mode.enable_grad(), \
                    saved_tensors_hooks(keep, never):
                self.function(*inputs, **self.kwargs)
        except _StopRecomputation:
            pass  # stopped early on purpose: every saved value is back
        if len(values) != self.count:
            raise RuntimeError(
                f"checkpoint: the recomputation saved {len(values)} tensors but the forward saved "
                f"{self.count}; the checkpointed function must do the same ops every time it runs")
        self.recomputed = dict(enumerate(values))


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once it has every saved value."""


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state):
    frame = _Frame(function, args, kwargs, _rng_state() if preserve_rng_state else None)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)
