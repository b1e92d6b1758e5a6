"""Forward kernels of torch.special's functions beyond the erf / gamma family of
elementwise.py.

Values come from scipy.special (cupyx.scipy.special on the GPU); where PyTorch's
kernel answers otherwise at some points (it has no asymptotic branch, or returns 0
where scipy gives nan), those points are set to PyTorch's answer, each saying why.
The orthogonal polynomials follow PyTorch's recurrences and closed forms
(aten/src/ATen/native/Math.h), so that their edge values (|x| == 1, negative or
non-finite n) are PyTorch's.
"""
import math

import numpy as np
import scipy.special

from minigrad._array import namespace_of, special_of, to_host
from minigrad.kernels.core import on_device_of, result_type, special_of_any, xp_of
from minigrad.kernels.elementwise import _same_float, erf_array, lgamma_array

_SQRT1_2 = 0.7071067811865476


def special_fn(name, *args):
    """``scipy.special.<name>(*args)`` in the arguments' library, in their float dtype."""
    return _same_float(getattr(special_of_any(*args), name)(*args), *args)


def ndtr_array(x):
    """PyTorch's ndtr is (1 + erf(x / sqrt 2)) / 2, not scipy's erfc form: it is 0, not
    a tiny number, below about -8.3."""
    xp = namespace_of(x)
    return xp.asarray((1 + erf_array(xp.asarray(x * _SQRT1_2))) * 0.5)


def airy_ai_array(x):
    """Ai(x): scipy's, except PyTorch's cephes branches: nan at +-inf, 0 past 103.892 (where
    Ai underflows), and its asymptotic expansion below -2.09 (scipy gives nan for huge
    negative x; PyTorch's float32 there is its float32 arithmetic)."""
    special = special_of(x)
    if hasattr(special, "airy"):
        ai = special.airy(x)[0]
    else:  # cupyx.scipy.special has no airy: computed on the host
        ai = on_device_of(x, scipy.special.airy(to_host(x))[0])
    xp = namespace_of(x)
    out = xp.where(x < -2.09, _airy_ai_negative(xp.where(x < -2.09, x, -3.0)), ai)
    out = xp.where(x > 103.892, 0.0, out)
    return _same_float(xp.where(xp.isinf(x), np.nan, out), x)


# cephes' rational approximations of the modulus and phase of Ai(x) for x < -2.09
_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
        -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
        -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
        9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
        4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
        9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
        5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
        8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
        5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
        4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
        4.91834570062930015649e-09)


def _horner(coefficients, z):
    out = 0.0 * z
    for c in coefficients:
        out = out * z + c
    return out


def _airy_ai_negative(x):
    """PyTorch's airy_ai for x < -2.09, operation for operation in x's dtype."""
    xp = namespace_of(x)
    zeta = -2.0 * x * xp.sqrt(-x) / 3.0
    z = 1.0 / zeta
    zz = z * z
    t = zeta + 0.25 * 3.14159265358979323846
    return 5.64189583547756286948e-01 / xp.sqrt(xp.sqrt(-x)) * (
        xp.sin(t) * (1.0 + zz * _horner(_AFN, zz) / _horner(_AFD, zz))
        - xp.cos(t) * (z * _horner(_AGN, zz) / _horner(_AGD, zz)))


def spherical_bessel_j0_array(x):
    """sin(x) / x: 1 at 0, 0 at +-inf (as PyTorch)."""
    xp = namespace_of(x)
    safe = xp.where(x == 0, 1.0, x)
    out = xp.where(x == 0, 1.0, xp.sin(safe) / safe)
    return xp.asarray(xp.where(xp.isinf(x), 0.0, out), dtype=x.dtype)


def zeta_array(x, q):
    """Hurwitz zeta.  PyTorch's cephes zeta has no branch for large q: its
    Euler-Maclaurin sum gives nan where q is inf, and where q > 1e8 and x is so large
    that the Bernoulli terms' product of 23 factors (x + k) overflows (scipy: 0)."""
    out = special_fn("zeta", x, q)
    xp = namespace_of(out)
    huge = 23 * xp.log(xp.where(x > 1, x, 1.0)) > 709.78  # log(DBL_MAX)
    nan = (x > 1) & ((q == np.inf) | ((q > 1e8) & huge))
    return xp.where(nan, np.nan, out).astype(out.dtype, copy=False)


def igamma_array(a, x):
    """The regularized lower incomplete gamma P(a, x), with PyTorch's order of checks at
    the domain's edges (igamma(nan, 0) is 0, igamma(inf, nan) is 0: scipy gives nan)."""
    return _incomplete_gamma(a, x, special_fn("gammainc", a, x), lower=True)


def igammac_array(a, x):
    """The regularized upper incomplete gamma Q(a, x) = 1 - P(a, x), edges as igamma's."""
    return _incomplete_gamma(a, x, special_fn("gammaincc", a, x), lower=False)


def _incomplete_gamma(a, x, value, lower):
    """``value`` with PyTorch's calc_igamma / calc_igammac edge cases, checked in its order:
    x < 0 or a < 0 -> nan; a == 0 -> P = 1 for x > 0 (else nan); x == 0 -> P = 0;
    a == inf -> P = 0 (nan if x is inf too); x == inf -> P = 1.  Q is 1 - P."""
    xp = namespace_of(value)
    p_one, p_zero = (1.0, 0.0) if lower else (0.0, 1.0)  # the values where P is 1, 0
    out = xp.where(xp.isinf(x), p_one, value)  # (applied last-to-first: the first check wins)
    out = xp.where(xp.isinf(a), xp.where(xp.isinf(x), np.nan, p_zero), out)
    out = xp.where(x == 0, p_zero, out)
    out = xp.where(a == 0, xp.where(x > 0, p_one, np.nan), out)
    out = xp.where((x < 0) | (a < 0), np.nan, out)
    return out.astype(value.dtype, copy=False)


def mvlgamma_array(x, p):
    """The multivariate log-gamma: p(p-1)/4 log(pi) + sum_j lgamma(x - j/2), j < p."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    xp = namespace_of(x)
    out = lgamma_array(xp.asarray(x - (p - 1) / 2))
    for j in range(p - 2, -1, -1):  # PyTorch's order: arange(-(p-1)/2, 1/2, 1/2)
        out = out + lgamma_array(xp.asarray(x - j / 2))
    return xp.asarray(out + p * (p - 1) * math.log(math.pi) / 4)


# ---- orthogonal polynomials ---------------------------------------------------------------

def _degree(n):
    """n as PyTorch casts it: truncated to int64; nan, inf and values past int64 become
    negative (x86 gives INT64_MIN), which every polynomial maps to 0."""
    xp = namespace_of(n)
    fits = xp.isfinite(n) & (xp.abs(n) < 2.0 ** 63)
    return xp.where(fits, xp.trunc(xp.where(fits, n, 0)), -1).astype(np.int64)


def _recurrence(degree, p0, p1, step):
    """p_degree of p_d = step(d, p_{d-1}, p_{d-2}), elementwise, from p0 and p1 (the values
    of degrees 0 and 1; other degrees below 2 are the callers').  PyTorch's loop also
    stops at nan, which the remaining steps would keep: so does this, once every element
    still short of its degree is nan."""
    xp = namespace_of(p1)
    out = xp.where(degree == 0, p0, p1)
    prev, cur = p0, p1
    top = int(degree.max()) if degree.size else 0
    for d in range(2, top + 1):
        prev, cur = cur, step(d, cur, prev)
        out = xp.where(degree == d, cur, out)
        pending = degree > d
        if not bool(xp.any(pending & ~xp.isnan(cur))):
            return xp.where(pending, cur, out)
    return out


def _broadcast(x, n):
    """x and n as arrays of one shape and float dtype (a Python number takes the other's,
    as PyTorch's promotion; they are floating after the entry's `floating:`)."""
    xp = xp_of(x, n)
    arrays = [v for v in (x, n) if hasattr(v, "dtype") and not isinstance(v, np.generic)]
    dtype = result_type(*arrays) if arrays else np.dtype(np.float32)
    x, n = xp.broadcast_arrays(xp.asarray(x, dtype=dtype), xp.asarray(n, dtype=dtype))
    return x, _degree(n)


def _chebyshev(x, n, kind, shifted):
    """Chebyshev polynomials of the first to fourth kind ("t", "u", "v", "w") at y = x, or
    y = 2x - 1 when shifted, as PyTorch: edge values at y = +-1, closed forms in acos(y)
    for large degrees inside (-1, 1), the recurrence p_d = 2y p_{d-1} - p_{d-2} else."""
    x, n = _broadcast(x, n)
    xp = namespace_of(x)
    y = x + x - 1.0 if shifted else x
    odd = (n % 2) == 1
    sign = xp.where(odd, -1.0, 1.0)
    nf = n.astype(x.dtype)
    at_one = {"t": 1.0, "u": nf + 1, "v": 1.0 + 0 * nf, "w": nf + nf + 1}[kind]
    at_minus_one = {"t": sign, "u": sign * (nf + 1), "v": sign * (nf + nf + 1), "w": sign}[kind]
    p1 = {"t": y, "u": y + y, "v": y + y - 1.0, "w": y + y + 1.0}[kind]
    threshold = {"t": 6, "u": 6 if shifted else 8, "v": 6 if shifted else 8,
                 "w": 4 if shifted else 8}[kind]
    inside = (n > threshold) & (xp.abs(y) < 1)
    closed = _chebyshev_closed(xp, kind, shifted, xp.where(inside, y, 0.0), nf, sign, at_one)
    edge = xp.abs(y) == 1
    degree = xp.where(inside | edge, 0, n)
    rec = _recurrence(degree, xp.ones_like(y), p1, lambda d, q, p: (y + y) * q - p)
    out = xp.where(inside, closed, rec)
    out = xp.where(edge, xp.where(y > 0, at_one, at_minus_one), out)
    return xp.where(n < 0, 0.0, out).astype(x.dtype, copy=False)


def _chebyshev_closed(xp, kind, shifted, y, nf, sign, at_one):
    """PyTorch's closed forms in theta = acos(y), with its fallbacks where the divisor
    rounds to 0 (V and W near y = -1 and y = 1)."""
    theta = xp.arccos(y)
    if kind == "t":
        return xp.cos(nf * theta)
    if kind == "u":
        s = xp.sin(theta)
        return xp.where(s != 0, xp.sin((nf + 1) * theta) / xp.where(s != 0, s, 1.0),
                        (nf + 1) * xp.cos((nf + 1) * theta) / y)
    half = theta / 2
    if kind == "v":
        return xp.where(xp.sin(half) != 1, xp.cos((nf + 0.5) * theta) / xp.cos(half),
                        sign * (nf + nf + 1))
    fallback = sign if shifted else xp.where(y > 0, at_one, sign)
    s = xp.sin(half)
    return xp.where(xp.cos(half) != 1, xp.sin((nf + 0.5) * theta) / xp.where(s != 0, s, 1.0),
                    fallback)


def chebyshev_t_array(x, n):
    return _chebyshev(x, n, "t", False)


def chebyshev_u_array(x, n):
    return _chebyshev(x, n, "u", False)


def chebyshev_v_array(x, n):
    return _chebyshev(x, n, "v", False)


def chebyshev_w_array(x, n):
    return _chebyshev(x, n, "w", False)


def shifted_chebyshev_t_array(x, n):
    return _chebyshev(x, n, "t", True)


def shifted_chebyshev_u_array(x, n):
    return _chebyshev(x, n, "u", True)


def shifted_chebyshev_v_array(x, n):
    return _chebyshev(x, n, "v", True)


def shifted_chebyshev_w_array(x, n):
    return _chebyshev(x, n, "w", True)


def _hermite(x, n, p1, step):
    """PyTorch's Hermite polynomials: nan past degree 128 (float32) or 512 (float64), where
    the values overflow anyway; no stop at nan."""
    xp = namespace_of(x)
    limit = 128 if x.dtype == np.float32 else 512
    rec = _recurrence(xp.where(n > limit, 0, n), xp.ones_like(x), p1, step)
    out = xp.where(n > limit, np.nan, rec)
    return xp.where(n < 0, 0.0, out).astype(x.dtype, copy=False)


def hermite_h_array(x, n):
    """Physicists' Hermite: H_d = 2x H_{d-1} - 2(d-1) H_{d-2}."""
    x, n = _broadcast(x, n)
    return _hermite(x, n, x + x, lambda d, q, p: (x + x) * q - (2 * d - 2) * p)


def hermite_he_array(x, n):
    """Probabilists' Hermite: He_d = x He_{d-1} - (d-1) He_{d-2}."""
    x, n = _broadcast(x, n)
    return _hermite(x, n, x, lambda d, q, p: x * q - (d - 1) * p)


def laguerre_l_array(x, n):
    """L_d = ((2d - 1 - x) L_{d-1} - (d-1) L_{d-2}) / d; 1 at x == 0 (as PyTorch)."""
    x, n = _broadcast(x, n)
    xp = namespace_of(x)
    rec = _recurrence(xp.where(x == 0, 0, n), xp.ones_like(x), 1.0 - x,
                      lambda d, q, p: (((2 * d - 2) + (1.0 - x)) * q - (d - 1) * p) / d)
    out = xp.where(x == 0, 1.0, rec)
    return xp.where(n < 0, 0.0, out).astype(x.dtype, copy=False)


def legendre_p_array(x, n):
    """P_d = ((2d - 1) x P_{d-1} - (d-1) P_{d-2}) / d; +-1 at x == +-1."""
    x, n = _broadcast(x, n)
    xp = namespace_of(x)
    edge = xp.abs(x) == 1
    rec = _recurrence(xp.where(edge, 0, n), xp.ones_like(x), x,
                      lambda d, q, p: ((2 * d - 1) * x * q - (d - 1) * p) / d)
    out = xp.where(edge, xp.where((x > 0) | (n % 2 == 0), 1.0, -1.0), rec)
    return xp.where(n < 0, 0.0, out).astype(x.dtype, copy=False)
