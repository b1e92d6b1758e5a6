"""torch.signal.windows: ``cosine``, ``exponential``, ``gaussian``, ``general_cosine``,
``general_hamming``, ``hamming``, ``hann``, ``kaiser``, ``nuttall``, ``bartlett`` and
``blackman``, as torch computes them (a linspace of the window's argument, in the asked
dtype, then the window's formula, recorded by autograd with ``requires_grad``).

``sym=False`` gives the periodic window (for spectral analysis).  There are no layouts in
minigrad: ``layout`` is accepted and ignored.
"""
import math
from collections.abc import Iterable

from minigrad._dtypes import float32, float64, get_default_dtype
from minigrad.creation import arange, empty, linspace, ones, tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checked(name, M, dtype):
    """The dtype to use, after torch's checks."""
    dtype = get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if dtype not in (float32, float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: "
                         f"{str(dtype).replace('minigrad.', 'torch.')}")
    return dtype


def _trivial(M, dtype, device, requires_grad, one=True):
    """The window of length 0 (and of length 1, when ``one``), else None."""
    if M == 0:
        return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _points(start, constant, M, dtype, device, requires_grad):
    return linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype,
                    device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau)."""
    dtype = _checked("exponential", M, dtype)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    trivial = _trivial(M, dtype, device, requires_grad, one=False)
    if trivial is not None:
        return trivial
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    return _points(-center, 1 / tau, M, dtype, device, requires_grad).abs().neg().exp()


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M)."""
    dtype = _checked("cosine", M, dtype)
    trivial = _trivial(M, dtype, device, requires_grad, one=False)
    if trivial is not None:
        return trivial
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    return _points(0.5, constant, M, dtype, device, requires_grad).sin()


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """exp(-(n - (M - 1) / 2)^2 / (2 std^2))."""
    dtype = _checked("gaussian", M, dtype)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    trivial = _trivial(M, dtype, device, requires_grad, one=False)
    if trivial is not None:
        return trivial
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    k = _points(start, 1 / (std * math.sqrt(2)), M, dtype, device, requires_grad)
    return (-(k ** 2)).exp()


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)."""
    dtype = _checked("kaiser", M, dtype)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    beta = tensor(beta, dtype=dtype, device=device)   # (in dtype, as torch: no NaN at the ends)
    constant = 2.0 * beta.item() / (M if not sym else M - 1)
    end = min(beta.item(), -beta.item() + (M - 1) * constant)
    k = linspace(-beta.item(), end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return (beta * beta - k ** 2).sqrt().i0() / beta.i0()


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1))."""
    dtype = _checked("general_cosine", M, dtype)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = linspace(0, (M - 1) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    a_i = tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                 requires_grad=requires_grad)
    i = arange(a_i.shape[0], dtype=dtype, device=device)
    return (a_i.unsqueeze(-1) * (i.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """``general_hamming`` with alpha 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """``general_hamming`` with alpha 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """``general_cosine`` with a = (0.42, 0.5, 0.08)."""
    dtype = _checked("blackman", M, dtype)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """``general_cosine`` with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """1 - |2n / (M - 1) - 1|."""
    dtype = _checked("bartlett", M, dtype)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    constant = 2 / (M if not sym else M - 1)
    k = linspace(-1, -1 + (M - 1) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return 1 - k.abs()
