"""Reparameterized-sampling kernels for the gamma family (Gamma, Beta, Dirichlet).

A Gamma(alpha) sample x moves with alpha along the implicit reparameterization
``dx/dalpha = -(dF(x; alpha)/dalpha) / pdf(x; alpha)`` (F the CDF).  PyTorch computes that
with the piecewise approximations of ATen's Distributions.h (standard_gamma_grad_one,
dirichlet_grad_one); these are numpy versions of the same approximations, so gradients
match torch's to rounding.

They run on the host in float64 (scipy's digamma and gammaincinv, a few thousand numbers
at most) and return arrays of the first input's library and float dtype.
"""
import numpy as np
import scipy.special as sc

from minigrad._array import namespace_of, to_host

__all__ = ["standard_gamma_grad_array", "dirichlet_grad_array", "standard_gamma_icdf_array"]


def _host64(*arrays):
    return [np.asarray(to_host(a), dtype=np.float64) for a in arrays]


def _like(like, host):
    """``host`` values in ``like``'s array library and float dtype."""
    xp = namespace_of(like)
    dtype = like.dtype if like.dtype.kind == "f" else np.float64
    return xp.asarray(np.asarray(host, dtype=dtype))


def _nan_to_zero(x):
    return np.where(np.isnan(x), 0.0, x)


def _gamma_grad_small_x(alpha, x):
    """x < 0.8: the CDF's Taylor series in x and its alpha-derivative, term by term."""
    numer = np.ones_like(x)
    denom = alpha.copy()
    series1, series2 = 1 / denom, 1 / denom ** 2
    for i in range(1, 6):
        numer = numer * -x / i
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / denom ** 2
    x_pow_alpha = x ** alpha
    pdf = x ** (alpha - 1) * np.exp(-x)
    cdf = x_pow_alpha * series1
    cdf_alpha = (np.log(x) - sc.digamma(alpha)) * cdf - x_pow_alpha * series2
    return _nan_to_zero(-cdf_alpha / pdf)


def _gamma_grad_large_alpha(alpha, x):
    """alpha > 8: Rice's saddle-point expansion; a polynomial near its pole x = alpha."""
    near_numer = (1 + 24 * alpha * (1 + 12 * alpha)) * (
        1440 * alpha ** 2 + 6 * x * (53 - 120 * x) - 65 * x ** 2 / alpha
        + alpha * (107 + 3600 * x))
    near = near_numer / (1244160 * alpha ** 4)
    denom = np.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = (x - alpha - alpha * np.log(x / alpha)) ** -1.5
    term23 = np.where(x < alpha, term2 - term3, term2 + term3)
    term1 = np.log(x / alpha) * term23 - np.sqrt(2 / alpha) * (alpha + x) / (alpha - x) ** 2
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * x * term1 / denom
    return np.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)


# rows: constant, u and u^2 parts; columns: p's cubic in v, then q's cubic in v
_GAMMA_RATIONAL = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07],
])


def _gamma_grad_rational(alpha, x):
    """Elsewhere: exp(p/q), p and q polynomials in u = log(x/alpha), v = log(alpha)."""
    u, v = np.log(x / alpha), np.log(alpha)
    coef = [_GAMMA_RATIONAL[0, i] + u * (_GAMMA_RATIONAL[1, i] + u * _GAMMA_RATIONAL[2, i])
            for i in range(8)]
    p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
    q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
    return np.exp(p / q)


def standard_gamma_grad_array(alpha, x):
    """d x / d alpha for samples ``x`` of Gamma(``alpha``, 1) (torch._standard_gamma_grad)."""
    a, s = _host64(alpha, x)
    a, s = np.broadcast_arrays(a, s)
    with np.errstate(all="ignore"):  # every branch runs everywhere; np.select keeps one
        out = np.select([s < 0.8, a > 8.0],
                        [_gamma_grad_small_x(a, s), _gamma_grad_large_alpha(a, s)],
                        _gamma_grad_rational(a, s))
    return _like(alpha, out)


def standard_gamma_icdf_array(alpha, q):
    """The Gamma(``alpha``, 1) quantile of ``q`` in [0, 1]: a sample when ``q`` is uniform."""
    a, u = _host64(alpha, q)
    return _like(alpha, sc.gammaincinv(a, u))


def _beta_grad_alpha_small(x, alpha, beta):
    """x near 0: a Taylor series of the Beta CDF in x."""
    factor = sc.digamma(alpha) - sc.digamma(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    return _nan_to_zero(x * (1 - x) ** -beta * series)


def _beta_grad_beta_small(x, alpha, beta):
    """The gradient in beta for x near 0 (used mirrored, for x near 1)."""
    factor = sc.digamma(alpha + beta) - sc.digamma(beta)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    return _nan_to_zero(-(1 - x) ** (1 - beta) * series)


def _beta_grad_alpha_mid(x, alpha, beta):
    """alpha and beta both large: a saddle-point expansion; a polynomial near the mean."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * beta ** 4 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * beta ** 3 + alpha * (
            3 * (59 + 180 * beta - 90 * x) * beta ** 2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    near = ((1 + 12 * alpha) * (1 + 12 * beta) / total ** 2 / (1 - x) * poly
            / (12960 * alpha ** 3 * beta ** 2 * (1 + 12 * total)))
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha ** 2))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta ** 2))
                / (1 + 1 / (12 * total) + 1 / (288 * total ** 2)))
    axbx = alpha * (x - 1) + beta * x
    term1 = ((2 * alpha ** 2 * (x - 1) + alpha * beta * (x - 1) - x * beta ** 2)
             / (np.sqrt(2 * alpha / beta) * total ** 1.5 * axbx ** 2))
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / axbx
    term4 = (beta * np.log(beta / (total * (1 - x)))
             + alpha * np.log(alpha / (total * x))) ** -1.5
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


# _DIRICHLET_RATIONAL[k, i, j, l]: k = 0 for p, 1 for q; the coefficient of u^i a^j b^l
_DIRICHLET_RATIONAL = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]],
])


def _beta_grad_rational(x, alpha, total):
    """Elsewhere: an analytic approximation times a rational correction in
    u = log x, a = log(alpha) - u, b = log(total) - a."""
    u = np.log(x)
    a = np.log(alpha) - u
    b = np.log(total) - a
    powers_b = np.stack([np.ones_like(b), b, b ** 2, b ** 3])  # (4, ...)
    powers_u, powers_a = [1, u, u ** 2], [1, a, a ** 2]
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = powers_u[i] * powers_a[j]
            p = p + ua * np.tensordot(_DIRICHLET_RATIONAL[0, i, j], powers_b, axes=1)
            q = q + ua * np.tensordot(_DIRICHLET_RATIONAL[1, i, j], powers_b, axes=1)
    approx = x * (sc.digamma(total) - sc.digamma(alpha)) / (total - alpha)
    return p / q * approx


def dirichlet_grad_array(x, alpha, total):
    """The scaled Beta reparameterization gradient ``-(dF/dalpha) / pdf / (1 - x)`` at
    samples ``x`` of Beta(alpha, total - alpha) (torch._dirichlet_grad)."""
    xs, a, t = np.broadcast_arrays(*_host64(x, alpha, total))
    b = t - a
    boundary = t * xs * (1 - xs)
    with np.errstate(all="ignore"):  # every branch runs everywhere; np.select keeps one
        out = np.select(
            [(xs <= 0.5) & (boundary < 2.5), (xs >= 0.5) & (boundary < 0.75), (a > 6) & (b > 6)],
            [_beta_grad_alpha_small(xs, a, b), -_beta_grad_beta_small(1 - xs, b, a),
             _beta_grad_alpha_mid(xs, a, b)],
            _beta_grad_rational(xs, a, t))
    return _like(x, out)
