"""``y += alpha * x`` in one pass over memory (BLAS axpy), for the optimizers' updates.

numpy's ``y += alpha * x`` first writes ``alpha * x`` to a temporary as big as the
parameter, then reads it back: two passes over memory where one will do.  On the MLP of
tools/bench.py that was half of SGD's update time.  BLAS's axpy reads ``x`` and ``y``
once and writes ``y``, as PyTorch's ``p.add_(grad, alpha=-lr)`` kernel does (both may use
a fused multiply-add, so the last bit can differ from numpy's two roundings).

OpenBLAS runs an axpy of more than 10,000 elements on its threads (interface/axpy.c), and
scipy's OpenBLAS is not numpy's: its threads, spinning after the update, took the cores
numpy's BLAS threads needed, and a training step of tools/bench.py's MLP took 3-5x as long
with the default thread settings of a 2-core machine.  Where OpenBLAS may start threads, the
update therefore calls axpy on pieces of at most 10,000 elements, which it runs on the
calling thread (a piece costs ~2 us more than the whole: with one BLAS thread, as in the
benchmarks, the update takes the whole array in one call).

Arrays axpy cannot take (a device array, a subclass, mixed dtypes or shapes, a
non-contiguous view, integers) take numpy's two passes, with the same result up to that
last bit.
"""
import numpy as np
from scipy.linalg import blas

from minigrad import _threads

_AXPY = {np.dtype(np.float64): blas.daxpy, np.dtype(np.float32): blas.saxpy}


#: the most elements for one axpy call: OpenBLAS's most on the calling thread alone
_PIECE = 10_000


def _may_thread():
    """Whether OpenBLAS may start threads (the count is read when it loads, as scipy's was
    just above, or set since: minigrad/_threads.py)."""
    return (_threads.get_num_threads() or 1) > 1


def add_scaled_(y, x, alpha):
    """``y += alpha * x`` in place (``alpha`` a Python number)."""
    axpy = _AXPY.get(y.dtype) if type(y) is np.ndarray and type(x) is np.ndarray else None
    if axpy is not None and x.dtype == y.dtype and x.shape == y.shape and y.size:
        y_flags, x_flags = y.flags, x.flags   # (each .flags makes an object: read once)
        if (y_flags.c_contiguous and x_flags.c_contiguous and y_flags.writeable
                and y_flags.aligned and x_flags.aligned and (x is y or _apart(x, y))):
            flat = y if y.ndim == 1 else y.ravel()   # (a view: y is contiguous)
            flat_x = x if x.ndim == 1 else x.ravel()
            if flat.size > _PIECE and _may_thread():
                return _axpy_pieces(axpy, flat_x, flat, alpha)
            if axpy(flat_x, flat, a=alpha) is flat:
                return   # (f2py wrote into it)
    y += alpha * x


def _axpy_pieces(axpy, x, y, alpha):
    """``y += alpha * x`` for contiguous 1-d ``x`` and ``y``, a piece OpenBLAS keeps on this
    thread at a time."""
    size, step = y.size, _PIECE
    for start in range(0, size, step):
        piece = y[start:start + step]
        written = axpy(x[start:start + step], piece, a=alpha)
        if written is not piece:  # (f2py made a copy: never for these arrays, but then
            piece[...] = written  # its result is the piece's new value)


def _apart(x, y):
    """``x`` and ``y`` share no memory (where they overlap, numpy's ufuncs order the writes;
    axpy does not).  Two arrays that own their memory are apart: a cheap test first."""
    return (x.base is None and y.base is None) or not np.may_share_memory(x, y)
