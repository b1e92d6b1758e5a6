"""``y += alpha * x`` in one pass over memory (BLAS axpy), for the optimizers' updates.

numpy's ``y += alpha * x`` first writes ``alpha * x`` to a temporary as big as the
parameter, then reads it back: two passes over memory where one will do.  On the MLP of
tools/bench.py that was half of SGD's update time.  BLAS's axpy reads ``x`` and ``y``
once and writes ``y``, as PyTorch's ``p.add_(grad, alpha=-lr)`` kernel does (both may use
a fused multiply-add, so the last bit can differ from numpy's two roundings).

Arrays axpy cannot take (a device array, a subclass, mixed dtypes or shapes, a
non-contiguous view, integers) take numpy's two passes, with the same result up to that
last bit.
"""
import numpy as np
from scipy.linalg import blas

_AXPY = {np.dtype(np.float64): blas.daxpy, np.dtype(np.float32): blas.saxpy}


def add_scaled_(y, x, alpha):
    """``y += alpha * x`` in place (``alpha`` a Python number)."""
    axpy = _AXPY.get(y.dtype) if type(y) is np.ndarray and type(x) is np.ndarray else None
    if axpy is not None and x.dtype == y.dtype and x.shape == y.shape and y.size:
        y_flags, x_flags = y.flags, x.flags   # (each .flags makes an object: read once)
        if (y_flags.c_contiguous and x_flags.c_contiguous and y_flags.writeable
                and y_flags.aligned and x_flags.aligned and (x is y or _apart(x, y))):
            flat = y if y.ndim == 1 else y.ravel()   # (a view: y is contiguous)
            if axpy(x if x.ndim == 1 else x.ravel(), flat, a=alpha) is flat:
                return   # (f2py wrote into it)
    y += alpha * x


def _apart(x, y):
    """``x`` and ``y`` share no memory (where they overlap, numpy's ufuncs order the writes;
    axpy does not).  Two arrays that own their memory are apart: a cheap test first."""
    return (x.base is None and y.base is None) or not np.may_share_memory(x, y)
