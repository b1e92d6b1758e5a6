"""Whether ops record a graph: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

The flag is a module global read on every op, so checking it costs one attribute
load.  Like PyTorch's, the managers double as decorators.
"""
import functools

enabled = True
inference = False  # inside inference_mode: results are marked as inference tensors


class _GradModeContext:
    """Base of the grad-mode managers: set the flag on entry, restore it on exit."""

    mode = True

    def __enter__(self):
        global enabled
        self._previous = enabled
        enabled = self.mode

    def __exit__(self, *exc):
        global enabled
        enabled = self._previous
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _Mode(mode):
                return fn(*args, **kwargs)
        return wrapper


class _Mode(_GradModeContext):
    def __init__(self, mode):
        self.mode = mode


class no_grad(_GradModeContext):
    """Ops inside do not record a graph (parameter updates, evaluation).

    >>> with minigrad.no_grad():
    ...     p -= lr * p.grad
    """
    mode = False


class enable_grad(_GradModeContext):
    """Record a graph even inside ``no_grad``."""
    mode = True


class set_grad_enabled(_GradModeContext):
    """Turn recording on or off; usable as a function, context manager or decorator."""

    def __init__(self, mode):
        global enabled
        self.mode = bool(mode)
        self._previous = enabled
        enabled = self.mode  # takes effect immediately, as torch.set_grad_enabled(False) does

    def __enter__(self):
        pass  # the flag was already set in __init__

    def __call__(self, fn):
        global enabled
        enabled = self._previous  # as a decorator it must not change the mode now
        return super().__call__(fn)


class inference_mode:
    """Like no_grad, and the tensors made inside are *inference tensors*: they can never
    be saved for backward later (a clear error if a graph tries), so no bookkeeping is
    needed for them.

    >>> with minigrad.inference_mode():
    ...     y = model(x)
    """

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        global enabled, inference
        self._previous = (enabled, inference)
        if self.mode:
            enabled, inference = False, True
        return self

    def __exit__(self, *exc):
        global enabled, inference
        enabled, inference = self._previous
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self.mode):
                return fn(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled():
    return inference


def is_grad_enabled():
    return enabled
