"""Spectral windows: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, as torch's.

A periodic window of length N is the symmetric window of length N + 1 without its last
point (what a DFT of length N wants).  Values are computed in float64 and cast to the
asked dtype (the default dtype when none is given).
"""
import math
import numbers

import numpy as np

from minigrad._dtypes import get_default_dtype, numpy_dtype
from minigrad.creation import tensor
from minigrad.kernels.core import cpp_type_name

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window",
           "kaiser_window"]


def _window(name, window_length, periodic, dtype, device, requires_grad, symmetric):
    """``symmetric(n)``, the symmetric window of length n > 1, made periodic if asked."""
    if isinstance(window_length, bool) or not isinstance(window_length, numbers.Integral):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    dtype = get_default_dtype() if dtype is None else dtype
    if np.dtype(numpy_dtype(dtype)).kind not in "fc":
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{cpp_type_name(numpy_dtype(dtype))}, device=cpu, layout=Strided "
                           "(default), requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        values = symmetric(window_length + 1)[:-1] if periodic else symmetric(window_length)
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def _cosine_sum(coefficients):
    """The symmetric window sum_k (-1)^k a_k cos(2 pi k n / (N - 1))."""
    def symmetric(n):
        phase = 2 * math.pi * np.arange(n) / (n - 1)
        return sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(coefficients))
    return symmetric


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / (N - 1))."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.5, 0.5)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((alpha, beta)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.42, 0.5, 0.08)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The triangle 1 - |2n / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n: 1 - np.abs(2 * np.arange(n) / (n - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n: np.kaiser(n, beta))
