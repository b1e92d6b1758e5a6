"""``quietly(fn, *args)``: numpy without floating-point warnings, where PyTorch computes
infinities and NaNs silently (``log(0)`` is ``-inf``, ``sqrt(-1)`` is ``nan``, ``1/0``
is ``inf``), so numpy's RuntimeWarnings never reach a minigrad user.

``np.errstate`` costs about 3 us per use, as much as a small op itself; numpy 2 keeps
the error state in a context variable, which we set directly (about 0.5 us).  On a
numpy without it, ``np.errstate``.

>>> quietly(np.log, np.array([0.0]))
array([-inf])

``quietly`` and the generated forwards run their array call in a copy of ``QUIET``, a
context in which numpy's state is quiet: ``QUIET.copy().run(np.sin, x)``.  That costs a third of setting
and resetting the context variable (``quiet_on`` and ``quiet_off``, which allocate), and
each call has its own copy: another thread's op, or an op nested in this one, never
finds it in use (a Context can be entered once at a time).
"""
import contextvars
import functools

import numpy as np

try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj
    _IGNORE = _make_extobj(all="ignore")
except ImportError:  # numpy < 2 or a changed layout: the public, slower way
    _extobj_contextvar = None

if _extobj_contextvar is not None:
    quiet_on = functools.partial(_extobj_contextvar.set, _IGNORE)  # -> a token for quiet_off
    quiet_off = _extobj_contextvar.reset
    # Only numpy's variable is set in it: the array code run there reads no other.
    QUIET = contextvars.Context()
    QUIET.run(_extobj_contextvar.set, _IGNORE)
else:
    def quiet_on():
        return np.seterr(all="ignore")

    def quiet_off(token):
        np.seterr(**token)

    class _Quiet:
        """``QUIET`` without numpy's context variable: ``np.errstate`` around the call."""

        def copy(self):
            return self

        def run(self, fn, *args, **kwargs):
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)

    QUIET = _Quiet()


def quietly(fn, *args):
    """``fn(*args)`` with numpy's floating-point warnings off.  ``fn`` is array code (it
    reads no context variable but numpy's): it runs in a copy of ``QUIET``, as the
    generated forwards' calls do, for a tenth of the cost of setting numpy's variable
    and resetting it here (a small array's exp costs as much as that)."""
    if _extobj_contextvar is not None and _extobj_contextvar.get() is _IGNORE:
        return fn(*args)   # quiet here already: a generated forward's call, or a backward
    return QUIET.copy().run(fn, *args)
