"""Clog detection: a tensor that requires grad silently converted to a plain number.

``math.sqrt(x)`` on a Tensor calls ``x.__float__()``: the result is a Python float,
the graph is cut, and ``d(sqrt(x) + x)/dx`` at 4 comes out 1 instead of 1.25.
PyTorch lets that happen; minigrad emits :class:`GradientClogWarning` naming the
line, the tensor's ``grad_fn`` and the fix.  ``float()``, ``int()``,
``operator.index()``, ``complex()`` and ``np.asarray()`` (``__array__``) are
implicit conversions and warn; ``.item()``, ``.tolist()`` and ``.detach()`` are
explicit exits and stay silent.

>>> minigrad.autograd.set_clog_mode("error")        # raise GradientClogError instead
>>> with minigrad.autograd.set_clog_mode("off"):    # or silence it for a block
...     v = float(x)

Each call site warns once (a clog in a training loop warns on the first step, not
on every step, whatever the warnings filter says).  Each clog is remembered
(weakly, the last few), so an error about an input the output does not depend on
can say where the graph was cut.
"""
import collections
import os
import sys
import warnings
import weakref

from minigrad.autograd._user import user_names, user_site, user_stacklevel
from minigrad.autograd.check_mode import CheckMode

MODE = CheckMode("clog")
_recent = collections.deque(maxlen=32)  # Clog records, newest last
_warned_sites = set()  # (file, line): a training loop warns on its first step, not every step

_HOW = {
    "float": ("float()", "a Python float"),
    "int": ("int()", "a Python int"),
    "index": ("operator.index()", "a Python int"),
    "complex": ("complex()", "a Python complex"),
    "array": ("numpy's __array__ (np.asarray / np.array / a numpy function)", "a numpy array"),
}


_GENERIC_FIX = ("use the minigrad op instead (e.g. minigrad.sqrt(x), not math.sqrt(x); numpy "
                "functions called on the Tensor itself dispatch to minigrad)")

# scipy.special functions that are plain Python, not ufuncs: they cannot dispatch to minigrad
_SCIPY_EQUIVALENTS = {"polygamma": "minigrad.special.polygamma(n, x)",
                      "logsumexp": "minigrad.logsumexp(x, dim)",
                      "softmax": "minigrad.softmax(x, dim)",
                      "log_softmax": "minigrad.log_softmax(x, dim)"}


def _scipy_hint():
    """When the conversion happens inside a scipy.special function that has a minigrad
    equivalent, name it (scipy's ufuncs dispatch; these Python functions cannot)."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if (code.co_name in _SCIPY_EQUIVALENTS
                and f"scipy{os.sep}special" in code.co_filename):
            return (f"scipy.special.{code.co_name} is not a numpy ufunc, so it cannot dispatch "
                    f"to minigrad: call {_SCIPY_EQUIVALENTS[code.co_name]} instead")
        frame = frame.f_back
    return None


class GradientClogWarning(UserWarning):
    """A tensor that requires grad was implicitly converted: gradients stop flowing there."""


class GradientClogError(RuntimeError):
    """Raised instead of :class:`GradientClogWarning` in strict mode (``set_clog_mode("error")``)."""


def set_clog_mode(mode):
    """``"warn"`` (default), ``"error"`` (raise GradientClogError) or ``"off"``.

    Takes effect at once; used in a ``with`` block it restores the previous mode on exit.
    """
    return MODE.set(mode)


clog_mode = set_clog_mode


def get_clog_mode():
    return MODE.current


class Clog:
    """Where a tensor left the graph: ``kind`` ("float", ...), ``site`` (file, line), ``name``."""

    __slots__ = ("kind", "site", "name", "grad_fn_name", "_tensor", "_node")

    def __init__(self, tensor, kind, site, name):
        self.kind, self.site, self.name = kind, site, name
        self.grad_fn_name = tensor.grad_fn.name() if tensor.grad_fn is not None else None
        self._tensor = weakref.ref(tensor)
        self._node = weakref.ref(tensor.grad_fn) if tensor.grad_fn is not None else None

    @property
    def tensor(self):
        return self._tensor()

    @property
    def node(self):
        return self._node() if self._node is not None else None

    def where(self):
        return f"{self.site[0]}:{self.site[1]}"

    def describe(self):
        who = self.name or "a tensor that requires grad"
        return f"{who} was converted to {_HOW[self.kind][1]} at {self.where()}; the graph was cut there"


def recent_clogs():
    """The remembered clogs, newest first (for error messages and minigrad.viz)."""
    return list(reversed(_recent))


def clear():
    _recent.clear()
    _warned_sites.clear()


def report(tensor, kind):
    """Called by Tensor's conversion dunders when grad mode is on and ``tensor`` requires grad."""
    if MODE.current == "off":
        return
    site = user_site()
    name = _name_in_caller(tensor)
    _recent.append(Clog(tensor, kind, site, name))
    call, result = _HOW[kind]
    who = f"'{name}'" if name else "a tensor"
    origin = (f"grad_fn=<{tensor.grad_fn.name()}>" if tensor.grad_fn is not None
              else "a leaf with requires_grad=True")
    message = (
        f"gradient clog: {call} converted {who} ({origin}, shape {list(tensor.shape)}) to "
        f"{result} at {os.path.basename(site[0])}:{site[1]}; gradients cannot flow through the "
        f"result, so everything computed from it is cut off from the graph. "
        f"Fix: {_scipy_hint() or _GENERIC_FIX}, or call .detach() "
        f"(or .item()) first to cut the graph on purpose.")
    if MODE.current == "error":
        raise GradientClogError(message)
    if site in _warned_sites:
        return
    _warned_sites.add(site)
    warnings.warn(message, GradientClogWarning, stacklevel=user_stacklevel())


def _name_in_caller(tensor):
    return next((name for name, _ in user_names(lambda value: value is tensor)), None)


def explain_unused(tensor, edge_node):
    """Text to append to "appears to not have been used" when a clog explains it, or ''."""
    notes = []
    for clog in recent_clogs():
        if _depends_on(clog, tensor, edge_node):
            notes.append(clog.describe())
    if not notes:
        return ""
    return " Note: " + "; ".join(notes[:3]) + "."


def explain_no_grad_fn():
    """Text to append to "does not require grad" when a recent clog may explain it, or ''."""
    if not _recent:
        return ""
    return (" Note: " + _recent[-1].describe() + " (if this output was computed from that "
            "value, use the minigrad op instead of the conversion).")


def _depends_on(clog, tensor, edge_node):
    """Did the converted value depend on ``tensor`` (whose gradient flows into ``edge_node``)?"""
    if clog.tensor is tensor:
        return True
    node = clog.node
    if node is None or edge_node is None:
        return False
    seen, stack = {node}, [node]
    while stack:
        current = stack.pop()
        if current is edge_node:
            return True
        for nxt, _ in current.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False
