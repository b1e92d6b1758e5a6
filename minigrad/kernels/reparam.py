"""Kernels of the gamma family (Gamma, Beta, Dirichlet): reparameterized-sampling
gradients, the Gamma quantile and the regularized incomplete gamma function.

A Gamma(alpha) sample x moves with alpha along the implicit reparameterization
``dx/dalpha = -(dF(x; alpha)/dalpha) / pdf(x; alpha)`` (F the CDF).  PyTorch computes that
with the piecewise approximations of ATen's Distributions.h (standard_gamma_grad_one,
dirichlet_grad_one); these are array versions of the same approximations, so gradients
match torch's to rounding.

They compute in float64 in the inputs' array library (numpy, or CuPy on the GPU, whose
cupyx.scipy.special has digamma, gammainc and gammaincinv) and return the first input's
float dtype.  Every branch of an approximation is computed everywhere and ``where`` keeps
one, so the others' overflows and NaNs are expected: the calls run quietly.
"""
import numpy as np

from minigrad._array import namespace_of, special_of
from minigrad.kernels.quiet import quietly

__all__ = ["standard_gamma_grad_array", "dirichlet_grad_array", "standard_gamma_icdf_array",
           "gammainc_array"]


def _float64(*arrays):
    xp = namespace_of(arrays[0])
    return xp.broadcast_arrays(*[xp.asarray(a, dtype=np.float64) for a in arrays])


def _like(like, values):
    """``values`` in ``like``'s float dtype (float64 for integers)."""
    dtype = like.dtype if like.dtype.kind == "f" else np.float64
    return namespace_of(values).asarray(values, dtype=dtype)


def _nan_to_zero(x):
    xp = namespace_of(x)
    return xp.where(xp.isnan(x), 0.0, x)


def _gamma_grad_small_x(alpha, x):
    """x < 0.8: the CDF's Taylor series in x and its alpha-derivative, term by term."""
    xp = namespace_of(x)
    numer = xp.ones_like(x)
    denom = alpha
    series1, series2 = 1 / denom, 1 / denom ** 2
    for i in range(1, 6):
        numer = numer * -x / i
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / denom ** 2
    x_pow_alpha = x ** alpha
    pdf = x ** (alpha - 1) * xp.exp(-x)
    cdf = x_pow_alpha * series1
    cdf_alpha = (xp.log(x) - special_of(x).digamma(alpha)) * cdf - x_pow_alpha * series2
    return _nan_to_zero(-cdf_alpha / pdf)


def _gamma_grad_large_alpha(alpha, x):
    """alpha > 8: Rice's saddle-point expansion; a polynomial near its pole x = alpha."""
    xp = namespace_of(x)
    near_numer = (1 + 24 * alpha * (1 + 12 * alpha)) * (
        1440 * alpha ** 2 + 6 * x * (53 - 120 * x) - 65 * x ** 2 / alpha
        + alpha * (107 + 3600 * x))
    near = near_numer / (1244160 * alpha ** 4)
    denom = xp.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = (x - alpha - alpha * xp.log(x / alpha)) ** -1.5
    term23 = xp.where(x < alpha, term2 - term3, term2 + term3)
    term1 = xp.log(x / alpha) * term23 - xp.sqrt(2 / alpha) * (alpha + x) / (alpha - x) ** 2
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * x * term1 / denom
    return xp.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)


# rows: constant, u and u^2 parts; columns: p's cubic in v, then q's cubic in v
_GAMMA_RATIONAL = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07),
)


def _gamma_grad_rational(alpha, x):
    """Elsewhere: exp(p/q), p and q polynomials in u = log(x/alpha), v = log(alpha)."""
    xp = namespace_of(x)
    u, v = xp.log(x / alpha), xp.log(alpha)
    c0, c1, c2 = _GAMMA_RATIONAL
    coef = [c0[i] + u * (c1[i] + u * c2[i]) for i in range(8)]
    p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
    q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
    return xp.exp(p / q)


def _standard_gamma_grad(alpha, x):
    xp = namespace_of(x)
    return xp.where(x < 0.8, _gamma_grad_small_x(alpha, x),
                    xp.where(alpha > 8.0, _gamma_grad_large_alpha(alpha, x),
                             _gamma_grad_rational(alpha, x)))


def standard_gamma_grad_array(alpha, x):
    """d x / d alpha for samples ``x`` of Gamma(``alpha``, 1) (torch._standard_gamma_grad)."""
    return _like(alpha, quietly(_standard_gamma_grad, *_float64(alpha, x)))


def standard_gamma_icdf_array(alpha, q):
    """The Gamma(``alpha``, 1) quantile of ``q`` in [0, 1]: a sample when ``q`` is uniform."""
    a, u = _float64(alpha, q)
    return _like(alpha, quietly(special_of(a).gammaincinv, a, u))


def gammainc_array(a, x):
    """The regularized lower incomplete gamma function P(a, x) (torch.special.gammainc)."""
    return _like(a, quietly(special_of(a).gammainc, a, x))


def _beta_grad_alpha_small(x, alpha, beta):
    """x near 0: a Taylor series of the Beta CDF in x."""
    xp, digamma = namespace_of(x), special_of(x).digamma
    factor = digamma(alpha) - digamma(alpha + beta) - xp.log(x)
    numer = xp.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    return _nan_to_zero(x * (1 - x) ** -beta * series)


def _beta_grad_beta_small(x, alpha, beta):
    """The gradient in beta for x near 0 (used mirrored, for x near 1)."""
    xp, digamma = namespace_of(x), special_of(x).digamma
    factor = digamma(alpha + beta) - digamma(beta)
    numer, betas, dbetas = xp.ones_like(x), xp.ones_like(x), xp.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    return _nan_to_zero(-(1 - x) ** (1 - beta) * series)


def _beta_grad_alpha_mid(x, alpha, beta):
    """alpha and beta both large: a saddle-point expansion; a polynomial near the mean."""
    xp = namespace_of(x)
    total = alpha + beta
    mean = alpha / total
    std = xp.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * beta ** 4 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * beta ** 3 + alpha * (
            3 * (59 + 180 * beta - 90 * x) * beta ** 2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    near = ((1 + 12 * alpha) * (1 + 12 * beta) / total ** 2 / (1 - x) * poly
            / (12960 * alpha ** 3 * beta ** 2 * (1 + 12 * total)))
    prefactor = -x / xp.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha ** 2))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta ** 2))
                / (1 + 1 / (12 * total) + 1 / (288 * total ** 2)))
    axbx = alpha * (x - 1) + beta * x
    term1 = ((2 * alpha ** 2 * (x - 1) + alpha * beta * (x - 1) - x * beta ** 2)
             / (xp.sqrt(2 * alpha / beta) * total ** 1.5 * axbx ** 2))
    term2 = 0.5 * xp.log(alpha / (total * x))
    term3 = xp.sqrt(8 * alpha * beta / total) / axbx
    term4 = (beta * xp.log(beta / (total * (1 - x)))
             + alpha * xp.log(alpha / (total * x))) ** -1.5
    far = stirling * prefactor * (term1 + term2 * (term3 + xp.where(x < mean, term4, -term4)))
    return xp.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


# _DIRICHLET_RATIONAL[k][i][j]: k = 0 for p, 1 for q; the coefficients of u^i a^j b^l, l = 0..3
_DIRICHLET_RATIONAL = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _cubic(c, b):
    return c[0] + b * (c[1] + b * (c[2] + b * c[3]))


def _beta_grad_rational(x, alpha, total):
    """Elsewhere: an analytic approximation times a rational correction in
    u = log x, a = log(alpha) - u, b = log(total) - a."""
    xp, digamma = namespace_of(x), special_of(x).digamma
    u = xp.log(x)
    a = xp.log(alpha) - u
    b = xp.log(total) - a
    p = q = 0.0
    for i, u_i in enumerate((1.0, u, u * u)):
        for j, a_j in enumerate((1.0, a, a * a)):
            p = p + u_i * a_j * _cubic(_DIRICHLET_RATIONAL[0][i][j], b)
            q = q + u_i * a_j * _cubic(_DIRICHLET_RATIONAL[1][i][j], b)
    approx = x * (digamma(total) - digamma(alpha)) / (total - alpha)
    return p / q * approx


def _dirichlet_grad(x, alpha, total):
    xp = namespace_of(x)
    beta = total - alpha
    boundary = total * x * (1 - x)
    return xp.where(
        (x <= 0.5) & (boundary < 2.5), _beta_grad_alpha_small(x, alpha, beta),
        xp.where((x >= 0.5) & (boundary < 0.75), -_beta_grad_beta_small(1 - x, beta, alpha),
                 xp.where((alpha > 6) & (beta > 6), _beta_grad_alpha_mid(x, alpha, beta),
                          _beta_grad_rational(x, alpha, total))))


def dirichlet_grad_array(x, alpha, total):
    """The scaled Beta reparameterization gradient ``-(dF/dalpha) / pdf / (1 - x)`` at
    samples ``x`` of Beta(alpha, total - alpha) (torch._dirichlet_grad)."""
    return _like(x, quietly(_dirichlet_grad, *_float64(x, alpha, total)))
