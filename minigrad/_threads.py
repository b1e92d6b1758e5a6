"""``get_num_threads`` / ``set_num_threads``: the threads minigrad's array work runs on.

PyTorch's intra-op threads are a pool of its own.  minigrad's parallel work is BLAS's:
numpy's OpenBLAS for matmuls, and scipy's for the optimizers' axpy (optim/_axpy.py).
OpenBLAS reads OPENBLAS_NUM_THREADS (or GOTO_NUM_THREADS, OMP_NUM_THREADS) when it loads,
else takes every core this process may run on; that is ``get_num_threads()``.

Changing a loaded OpenBLAS's pool needs threadpoolctl, which reaches every BLAS library
in the process.  ``set_num_threads`` uses it where it is installed
(``pip install threadpoolctl``); without it, it warns how to get it and leaves the pool
and ``get_num_threads()`` as they are.
"""
import os
import warnings

def _from_environment():
    """The threads OpenBLAS starts with: it reads these variables when it loads, else takes
    every core this process may run on."""
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


_loaded = _from_environment()   # (numpy's OpenBLAS loaded before minigrad: it read them)
_set = None   # the count set_num_threads gave every BLAS since


def get_num_threads():
    """The threads BLAS runs a matmul on (PyTorch: its intra-op threads)."""
    return _loaded if _set is None else _set


def set_num_threads(threads):
    """Run BLAS (every BLAS library loaded: numpy's, scipy's) on ``threads`` threads, as
    ``torch.set_num_threads``; needs threadpoolctl (the module docstring)."""
    global _set
    if type(threads) is not int:
        raise RuntimeError(f"set_num_threads expects an int, but got {type(threads).__name__}")
    if threads <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    try:
        from threadpoolctl import threadpool_limits   # (optional: only when asked to)
    except ImportError:
        warnings.warn("minigrad.set_num_threads: changing BLAS's threads in a running process "
                      "needs threadpoolctl (pip install threadpoolctl); or set "
                      "OPENBLAS_NUM_THREADS before Python starts. Threads left as they are: "
                      f"{get_num_threads()}.", stacklevel=2)
        return
    threadpool_limits(limits=threads, user_api="blas")
    _set = threads
