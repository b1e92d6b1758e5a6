"""Leak detection: a backward that walks nodes an earlier backward already consumed.

The essay's truck loop carries ``my_position`` across iterations without detaching
it, so every iteration's graph hangs off the previous one and each backward walks
further into the past: the loop is accidentally quadratic.  PyTorch lets it run,
because the nodes on that path (additions) save nothing that backward frees.

The engine marks every node a backward runs with that backward's number
(``node._consumed``: one store per node): positive for a plain backward, negative
for one with ``retain_graph=True``; a backward that records a second-order graph
(``create_graph=True``, e.g. MAML's unrolled steps) marks nothing.  A later
backward that runs a marked node walks a *stale* node.  One stale walk can be
legitimate (two losses sharing an addition); stale counts that keep growing from
one backward call to the next are the signature of a leak: over
``GROWING_CALLS`` calls for nodes a plain backward consumed, over the much longer
``GROWING_CALLS_RETAINED`` for nodes only retain_graph backwards walked (the user
asked to walk those again; a recurrent state carried forever under retain_graph=True
still shows up, a truncated-BPTT window does not).  Then :class:`GradientLeakWarning` says how
many stale nodes were walked, how the count grew, where the oldest one was made
and how to fix it; ``set_leak_mode("error")`` raises :class:`GradientLeakError`.

>>> minigrad.autograd.set_leak_mode("error")    # strict: raise instead of warn
"""
import collections
import threading
import warnings

from minigrad.autograd._user import user_names, user_stacklevel
from minigrad.autograd.check_mode import MODES, CheckMode

_OFF = MODES[-1]  # MODE.current is this very object when off (an `is` test per backward)
#: backward calls in a row whose stale counts must grow before we call it a leak
GROWING_CALLS = 4
#: the same, when the re-walked nodes were only walked by retain_graph=True backwards
GROWING_CALLS_RETAINED = 40

MODE = CheckMode("leak", on_change=lambda: reset())  # a new mode starts the counts afresh
_calls = 0                  # numbers the backward calls (0 means "leak check off")


class _Nesting(threading.local):
    def __init__(self):
        # [>0 inside a backward (reentrant backward, checkpointing)], per thread: a list
        # changed in place, so that each call reads the thread-local object once
        self.depth = [0]


nesting = _Nesting()
_history = collections.deque(maxlen=GROWING_CALLS_RETAINED)  # recent (consumed, all) stale counts
_reported = False           # warned for the current growing streak already
_observers = []             # minigrad.autograd.trace() blocks being told about backward calls


_NONE = (0, 0)


class GradientLeakWarning(UserWarning):
    """A backward walked nodes that earlier backward calls already consumed, more each time."""


class GradientLeakError(RuntimeError):
    """Raised instead of :class:`GradientLeakWarning` in strict mode (``set_leak_mode("error")``)."""


def set_leak_mode(mode):
    """``"warn"`` (default), ``"error"`` (raise GradientLeakError) or ``"off"``.

    Usable as a function or as a context manager that restores the previous mode.
    Setting a mode starts the stale counts afresh.
    """
    return MODE.set(mode)


def get_leak_mode():
    return MODE.current


def reset():
    """Forget the stale counts seen so far (a new loop starts from a clean slate)."""
    global _reported
    _history.clear()
    _reported = False


def begin_backward():
    """Called by the engine; returns the number nodes it consumes are marked with."""
    global _calls
    depth = nesting.depth
    depth[0] += 1
    if _observers:
        for observer in _observers:
            observer.backward_started(_calls + 1, depth[0])
    if MODE.current is _OFF:
        return 0
    _calls += 1
    return _calls


def end_backward(call):
    depth = nesting.depth
    depth[0] -= 1
    if _observers:
        for observer in _observers:
            observer.backward_finished(call, depth[0])


def check(call, stale):
    """Called by the engine after a backward with the stale nodes it ran."""
    global _reported
    if not call or nesting.depth[0]:
        return
    # (a leaf's accumulator is walked by every backward of a training loop: never stale;
    # the engine leaves it out)
    if not stale:
        _history.append(_NONE)
        _reported = False
        return
    consumed = sum(1 for n in stale if 0 < n._consumed < call)
    _history.append((consumed, len(stale)))
    retained = not _growing([c for c, _ in _history], GROWING_CALLS)
    if retained and not _growing([a for _, a in _history], GROWING_CALLS_RETAINED):
        return
    if _reported:
        return
    _reported = True
    message = _message(call, stale, retained)
    if MODE.current == "error":
        raise GradientLeakError(message)
    warnings.warn(message, GradientLeakWarning, stacklevel=user_stacklevel())


def explain_freed(error, stale):
    """A backward failed on a freed node an earlier backward consumed: hint at the leak."""
    if not stale or not error.args or "backward through the graph a second time" not in str(error.args[0]):
        return
    node = stale[-1]
    error.args = (error.args[0] + (
        f" Note: {node.name()} was consumed by a backward {_calls - abs(node._consumed)} call(s) ago. "
        "If this happens in a loop, some state carried from one iteration to the next (a "
        "hidden state, a running position or total) still holds the old graph: detach it "
        "where it is carried over (`state = state.detach()`). retain_graph=True would silence "
        "this error but leak: every backward would walk the whole history."),) + error.args[1:]


def _growing(counts, calls):
    recent = counts[-calls:]
    return len(recent) == calls and recent[0] > 0 and all(a < b for a, b in zip(recent, recent[1:]))


def _message(call, stale, retained=False):
    oldest = min(stale, key=lambda n: n._sequence_nr)
    newest = max(stale, key=lambda n: n._sequence_nr)
    kinds = collections.Counter(n.name() for n in stale)
    kinds_text = ", ".join(f"{count} x {name}" for name, count in kinds.most_common(3))
    counts = [a for _, a in _history][-8:]
    history = ", ".join(str(c) for c in counts)
    age = call - abs(oldest._consumed)
    lines = [
        f"gradient leak: this backward walked {len(stale)} nodes ({kinds_text}) that earlier "
        f"backward calls had already {'walked' if retained else 'consumed'}; over the last "
        f"{len(counts)} backward calls the count went {history}.",
        "Some state carried from one iteration to the next still holds the graph of every "
        "earlier iteration, so each backward reaches further into the past (time and memory "
        "grow with every step: the loop is accidentally quadratic).",
        f"The carried value is the output of {newest.name()} from an earlier iteration; the "
        f"oldest stale node, {oldest.name()}, was first walked {age} backward calls ago.",
    ]
    carrier = _carrier_name(newest)
    if carrier:
        lines.append(f"'{carrier}' is built on that old value: detach it where it is carried "
                     f"over, e.g. `{carrier} = {carrier}.detach() + ...`.")
    trace = forward_traceback(oldest)
    if trace:
        lines.append("Forward traceback of the oldest stale node (anomaly mode):\n" + trace.rstrip())
    else:
        lines.append("Turn on anomaly mode (minigrad.autograd.detect_anomaly()) to see the "
                     "forward traceback of the oldest stale node.")
    if retained:
        lines.append("Those backward calls used retain_graph=True, which keeps the old graph "
                     "alive on purpose; it is usually added to silence \"Trying to backward "
                     "through the graph a second time\", and that hides this leak.")
    lines.append(
        "Fix: detach the carried state where it is updated, e.g. "
        "`state = state.detach() + step` (or detach it once per truncation window); "
        "minigrad.autograd.graph.stats(loss) counts the stale nodes.")
    return "\n".join(lines)


def _carrier_name(stale_node):
    """The user's variable whose history enters the stale part of the graph, if any."""
    from minigrad._tensor import Tensor

    def carries(value):
        node = value.grad_fn if isinstance(value, Tensor) else None
        return node is not None and (node is stale_node or
                                     any(n is stale_node for n, _ in node.next_functions))
    return next((name for name, _ in user_names(carries)), None)


def forward_traceback(node):
    """The forward stack anomaly mode recorded for ``node``, as text, or None."""
    from minigrad.autograd import anomaly
    return anomaly.forward_stack(node)
