"""Anomaly mode: find the forward line behind a failing or NaN-producing backward.

>>> with minigrad.autograd.detect_anomaly():
...     y = minigrad.sqrt(x) + x          # x = -4: sqrt's backward makes nan
...     y.backward()
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.

While it is on, every node remembers the Python stack where it was created (the
forward call).  When a node's backward raises, or (``check_nan=True``) returns a
NaN, a warning prints that stack and the error names the node.  Off by default,
and free when off: node creation and the engine each read one flag.
"""
import functools
import sys
import threading
import traceback
import types
import warnings
import weakref

import numpy as np

from minigrad._array import is_array, namespace_of
from minigrad.autograd.grad_mode import Latch



class _Flags(threading.local):
    """Anomaly mode is per thread, as in PyTorch; a new thread starts with it off."""

    def __init__(self):
        self.enabled = False
        self.check_nan = True


flags = _Flags()
used = Latch()  # has any thread turned anomaly mode on? (see Latch)


class _AnomalyModule(types.ModuleType):
    # ``anomaly.enabled`` and ``anomaly.check_nan`` read this thread's flags
    enabled = property(lambda module: flags.enabled)
    check_nan = property(lambda module: flags.check_nan)


sys.modules[__name__].__class__ = _AnomalyModule

_stacks = weakref.WeakKeyDictionary()   # node -> formatted forward stack
_PACKAGE = __file__.rsplit("autograd", 1)[0]


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly mode on.

    >>> with minigrad.autograd.detect_anomaly():
    ...     loss.backward()
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._previous = (flags.enabled, flags.check_nan)
        set_detect_anomaly(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        set_detect_anomaly(*self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly mode on or off, now (as a function) or for a block (``with``)."""

    def __init__(self, mode, check_nan=True):
        self._previous = (flags.enabled, flags.check_nan)
        if mode:
            used.on = True
        flags.enabled, flags.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        flags.enabled, flags.check_nan = self._previous
        return False


def is_anomaly_enabled():
    return flags.enabled


def is_anomaly_check_nan_enabled():
    return flags.check_nan


def record(node):
    """Remember where ``node`` was created (called by Node.__init__ in anomaly mode)."""
    frames = [f for f in traceback.extract_stack()[:-2]]
    while frames and frames[-1].filename.startswith(_PACKAGE):
        frames.pop()  # minigrad's own frames: the user's line is the interesting one
    _stacks[node] = "".join(traceback.format_list(frames))


def forward_stack(node):
    """The recorded forward stack of ``node``, or None if it was made with anomaly mode off."""
    return _stacks.get(node)


def call_node(node, grads, create_graph):
    """Run ``node``; on an error or a NaN, name the node and show its forward stack."""
    try:
        results = node.apply(grads, create_graph)
        if flags.check_nan:
            _check_nan(node, results)
    except Exception as error:
        _report(node, error)
        raise
    return results


def _check_nan(node, results):
    from minigrad._tensor import Tensor
    for i, result in enumerate(results):
        if result is None:
            continue
        array = result._data if isinstance(result, Tensor) else result
        if not is_array(array):
            array = np.asarray(array)
        if array.dtype.kind in "fc" and bool(namespace_of(array).isnan(array).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _report(node, error):
    stack = forward_stack(node)
    if stack is None:
        message = (f"Error detected in {node.name()}. No forward pass information available. "
                   "Enable detect anomaly during forward pass for more information.")
    else:
        message = (f"Error detected in {node.name()}. Traceback of forward call that caused "
                   f"the error:\n{stack}")
    warnings.warn(message, stacklevel=2)
    if not getattr(error, "_minigrad_anomaly_noted", False):
        error.add_note(message)
        error._minigrad_anomaly_noted = True
