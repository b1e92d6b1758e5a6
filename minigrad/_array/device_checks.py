"""Checks of values on a GPU that do not wait for it, as PyTorch's device-side asserts.

Reading a GPU value on the host waits for every kernel queued before it.  A check in
the middle of a training step (cross-entropy's "Target 4 is out of bounds") would leave
the GPU idle while Python queues the rest of the step, a stall the size of the Python
that follows.  So on a GPU such a check queues, after the kernel that computes its flag,
a copy of the flag to pinned host memory and an event; the flag is read once the event
has passed.  That is polled at the next check, and read for certain where values reach
the host anyway (``Tensor.item()``, ``minigrad.cuda.synchronize()``, ``to_host``): the
error is raised there, as PyTorch raises a device-side assert at a later synchronization.
On the CPU checks run at once, as always (callers keep that path).
"""
import numpy as np

# (event recorded after the flag's copy, the host flag, a function making the error)
_pending = []


def check_later(flag, error):
    """Raise ``error()`` once the GPU has computed ``flag`` (a 0-d bool device array) and
    found it True, without waiting for it now."""
    host = _pinned_flag(type(flag).__module__.split(".")[0])
    with flag.device:  # the copy and the event on the flag's GPU's stream
        flag.get(out=host, blocking=False)
        event = _cuda_of(flag).Event()
        event.record()
    _pending.append((event, host, error))


def raise_ready(wait=False):
    """Raise the first failed check whose flag has reached the host (all of them after
    waiting for the GPU when ``wait``); forget the checks that passed."""
    while _pending:
        event, host, error = _pending[0]
        if not wait and not event.done:
            return
        if wait:
            event.synchronize()
        _pending.pop(0)
        if bool(host):
            _pending.clear()  # one error per failed step: later checks may follow from it
            raise error()


def _pinned_flag(module_name):
    if module_name == "cupy":
        import cupyx  # lazily: CuPy is an optional extra, and a flag is made only on its arrays
        return cupyx.empty_pinned((), dtype=bool)
    return np.zeros((), dtype=bool)  # the CuPy-like test backend: plain host memory


def _cuda_of(array):
    from minigrad._array import namespace_of  # lazily: the array layer imports this module
    return namespace_of(array).cuda
