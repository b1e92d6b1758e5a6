"""Whether ops record a graph: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``.

The flags are per thread, as in PyTorch: a ``no_grad`` block in one thread does not
stop another thread from recording its graph.  Code reads them as module attributes
(``grad_mode.enabled``, ``grad_mode.inference``); the module's class turns those
reads and writes into reads and writes of this thread's values (``flags``).

Like PyTorch's, the managers double as decorators, with or without parentheses
(``@no_grad`` or ``@no_grad()``), also on generator functions: the mode then holds
while the generator runs, not while its caller holds it between ``next`` calls.
"""
import functools
import inspect
import sys
import threading
import types
from _thread import get_ident


# The idents of the threads whose grad mode may be off (a thread's flag off implies its
# ident is here).  Every op's forward reads its thread's flag, and a thread-local read
# costs about 0.1 us: while this set is empty every thread records, so the hot paths
# test it first (``if off_threads and not flags.enabled``).  Only a thread itself adds
# or removes its own ident (set.add and set.discard are atomic), so a thread that finds
# the set empty has its flag on; a dead thread's ident left here only costs speed.
off_threads = set()


class _EnabledWrites:
    """``flags.enabled = value``: keeps ``off_threads`` true to this thread's flag.  It
    intercepts writes only (no ``__get__``): reads find the value in the thread's own
    dict at a thread-local's usual cost.  Whoever writes the flag (the managers, the
    engine, compiled regions) goes through here."""

    def __set__(self, local, value):
        set_enabled(local.__dict__, value)


def set_enabled(values, value):
    """``flags.enabled = value`` where ``values`` is this thread's ``flags.__dict__`` (the
    engine reads that once per backward: a dict write then costs no thread-local access)."""
    if value:
        values["enabled"] = value
        off_threads.discard(get_ident())
    else:
        off_threads.add(get_ident())  # (first: the set never misses an off flag)
        values["enabled"] = value


class _Flags(threading.local):
    """This thread's grad mode; a new thread starts with recording on."""

    enabled = _EnabledWrites()

    def __init__(self):
        self.enabled = True
        self.inference = False  # inside inference_mode: results are marked as inference tensors


flags = _Flags()


class Latch:
    """False until some thread first turns a rare mode on, then True for good.  The hot
    paths (every op's forward, every node's backward) test it before they read the
    thread's own flag: a thread-local read costs about 0.1 us, several times per op.
    Set before the thread's flag is, it never reads False while any thread has the mode."""
    __slots__ = ("on",)

    def __init__(self):
        self.on = False


inference_used = Latch()  # has any thread entered inference_mode?


class _GradModeModule(types.ModuleType):
    enabled = property(lambda module: flags.enabled,
                       lambda module, value: setattr(flags, "enabled", value))
    inference = property(lambda module: flags.inference,
                         lambda module, value: _set_inference(value))


sys.modules[__name__].__class__ = _GradModeModule


def _set_inference(value):
    if value:
        inference_used.on = True
    flags.inference = value


def _wrap_generator(make_context, fn):
    """``fn`` is a generator function: hold the mode around each step of the generator."""
    @functools.wraps(fn)
    def generator(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException:
                    with make_context():
                        response = gen.throw(*sys.exc_info())
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return generator


class _ModeContext:
    """Base of the managers: ``_set(values)`` on entry, restore the previous flags on exit.
    (Each reads the thread-local once, and writes this thread's ``values``, its dict.)"""

    def __enter__(self):
        values = flags.__dict__
        self._previous = (values["enabled"], values["inference"])
        self._set(values)
        return None

    def __exit__(self, *exc):
        values = flags.__dict__
        enabled, values["inference"] = self._previous
        set_enabled(values, enabled)
        return False

    def clone(self):
        """A fresh manager with the same mode (each use of a decorator gets its own)."""
        return type(self)()

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(self.clone, fn)
        make_context = self.clone

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_context():
                return fn(*args, **kwargs)
        return wrapper


class _NoParamMode(_ModeContext):
    """A manager that takes no argument, so ``@manager`` works without parentheses."""

    def __new__(cls, fn=None):
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)


class no_grad(_NoParamMode):
    """Ops inside do not record a graph (parameter updates, evaluation).

    >>> with minigrad.no_grad():
    ...     p -= lr * p.grad
    """

    def _set(self, values):
        set_enabled(values, False)


class enable_grad(_NoParamMode):
    """Record a graph even inside ``no_grad``.

    >>> with minigrad.no_grad():
    ...     with minigrad.enable_grad():
    ...         y = x * 2          # recorded
    """

    def _set(self, values):
        set_enabled(values, True)


class set_grad_enabled(_ModeContext):
    """Turn recording on or off; usable as a function, context manager or decorator.

    >>> minigrad.set_grad_enabled(False)    # off from now on, in this thread
    >>> with minigrad.set_grad_enabled(True):
    ...     y = x * 2
    """

    def __init__(self, mode):
        self.mode = bool(mode)
        self._before_call = flags.enabled
        flags.enabled = self.mode  # takes effect immediately, as torch.set_grad_enabled(False) does

    def _set(self, values):
        set_enabled(values, self.mode)

    def __enter__(self):
        super().__enter__()
        # On exit, restore the mode from before this object was made, not the one it set.
        self._previous = (self._before_call, self._previous[1])

    def clone(self):
        return set_grad_enabled(self.mode)

    def __call__(self, fn):
        flags.enabled = self._before_call  # as a decorator it must not change the mode now
        return super().__call__(fn)


class inference_mode(_ModeContext):
    """Like no_grad, and the tensors made inside are *inference tensors*: they can never
    be saved for backward later (a clear error if a graph tries), so no bookkeeping is
    needed for them.  ``inference_mode(False)`` turns recording back on inside.

    >>> with minigrad.inference_mode():
    ...     y = model(x)
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses

    def __init__(self, mode=True):
        self.mode = mode

    def _set(self, values):
        if self.mode:
            inference_used.on = True
        set_enabled(values, not self.mode)
        values["inference"] = self.mode

    def clone(self):
        return inference_mode(self.mode)


def is_inference_mode_enabled():
    return flags.inference


def is_grad_enabled():
    return flags.enabled
