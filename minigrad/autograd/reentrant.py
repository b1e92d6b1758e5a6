"""Reentrant backward: a backward called from inside a backward.

A custom Function's backward, a hook or a reentrant checkpoint may call
``backward`` on another graph while the engine is running; that call runs the
engine again, nested in the first.  Each level costs a dozen Python frames, so
a few dozen levels would exhaust Python's recursion limit.  PyTorch moves a
backward nested ``THREAD_DEPTH`` deep in one thread to a fresh thread, which
starts with an empty stack; we do the same, and the fresh thread takes over the
caller's per-thread state (grad mode, anomaly mode, saved-tensor hooks).  The
caller waits for it, so the nesting stays sequential.

Backward formulas meet infinities and NaNs where PyTorch's do (``sqrt``'s gradient
at 0 is inf): like PyTorch, they compute them silently, without numpy's warnings.
"""
import threading

from minigrad.autograd import anomaly, engine, grad_mode, leaks
from minigrad.kernels.quiet import quiet_off, quiet_on
from minigrad.autograd.saved import saved_hooks

#: nested backward calls in one thread before the next one moves to a fresh thread
THREAD_DEPTH = 32
#: nested backward calls in all, past which an error (an endless recursion, not a deep one)
MAX_REENTRANT_DEPTH = 5000


class _Nesting(threading.local):
    def __init__(self):
        # [backward calls running around this point, across threads; ... of them in this
        # thread]: one list, so that a call reads the thread-local object once (each
        # read of its attributes costs about as much as a dict lookup and a type lookup)
        self.depths = [0, 0]


_nesting = _Nesting()


def run_backward(roots, root_grads, retain_graph, create_graph, capture=None):
    """``engine.run_backward``, nested safely to any depth up to ``MAX_REENTRANT_DEPTH``."""
    depths = _nesting.depths
    total, here = depths
    if total >= MAX_REENTRANT_DEPTH:
        raise RuntimeError(
            f"reentrant backward depth exceeded the limit of {MAX_REENTRANT_DEPTH} "
            "(minigrad.autograd.reentrant.MAX_REENTRANT_DEPTH): a backward was called from "
            "inside a backward (a node, a hook or a checkpoint) that many times in a row. "
            "Check for a hook or Function.backward that calls backward on its own graph.")
    args = (roots, root_grads, retain_graph, create_graph, capture)
    if here >= THREAD_DEPTH:
        return _in_fresh_thread(args, total)
    depths[0], depths[1] = total + 1, here + 1
    quiet = quiet_on()  # np.errstate's switch without its context manager (a fixed cost per call)
    try:
        return engine.run_backward(*args)
    finally:
        quiet_off(quiet)
        depths[0] -= 1
        depths[1] -= 1


def _in_fresh_thread(args, total):
    state = _thread_state()
    outcome = {}

    def work():
        _set_thread_state(state)
        _nesting.depths[0] = total
        try:
            outcome["result"] = run_backward(*args)
        except BaseException as error:  # re-raised in the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=work, name="minigrad-reentrant-backward")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def _thread_state():
    return (grad_mode.flags.enabled, grad_mode.flags.inference, anomaly.flags.enabled,
            anomaly.flags.check_nan, saved_hooks.stack, leaks.nesting.depth[0])


def _set_thread_state(state):
    (grad_mode.flags.enabled, grad_mode.flags.inference, anomaly.flags.enabled,
     anomaly.flags.check_nan, saved_hooks.stack, leaks.nesting.depth[0]) = state
