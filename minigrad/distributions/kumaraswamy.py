"""The Kumaraswamy distribution on [0, 1].

torch builds it as a TransformedDistribution of Uniform(0, 1) by ``u -> u^(1/b)``,
``-> 1 - .``, ``-> .^(1/a)``; here that map and its density are written out:
``y = (1 - u^(1/b))^(1/a)``, ``p(y) = a b y^(a-1) (1 - y^a)^(b-1)``.
"""
import math

from minigrad._generated.api_minigrad import digamma, exp, lgamma, log, log1p
from minigrad._sampling import rand
from minigrad.creation import full_like
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.uniform import Uniform
from minigrad.distributions.utils import broadcast_all
from minigrad.searching import where

_EULER = 0.57721566490153286060


def _moments(a, b, n):
    """E[Y^n] = b B(1 + n/a, b)."""
    arg1 = 1 + n / a
    return b * exp(lgamma(arg1) + lgamma(b) - lgamma(arg1 + b))


class Kumaraswamy(Distribution):
    """Kumaraswamy distribution with ``concentration1`` (a) and ``concentration0`` (b).

    >>> Kumaraswamy(1.0, 1.0).log_prob(minigrad.tensor(0.3))
    tensor(0.)
    """
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration0.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Kumaraswamy, batch_shape, _instance, ("concentration1", "concentration0"))

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * log1p(-b) - log1p(-b * a)
        # a mode inside (0, 1) only when both concentrations are >= 1
        log_mode = where((b < 1) | (a < 1), full_like(log_mode, math.nan), log_mode)
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        a, b = self.concentration1, self.concentration0
        u = rand(shape, dtype=a.dtype, device=a.device)
        return (1 - u.pow(b.reciprocal())).pow(a.reciprocal())

    def _uniform(self):
        """The base distribution of torch's construction, which checks cdf's values."""
        zeros = full_like(self.concentration0, 0.0)
        return Uniform(zeros, zeros + 1, validate_args=self._validate_args)

    def cdf(self, value):
        # 1 - (1 - y^a)^b: the uniform that maps to y, reflected (the map is decreasing in u)
        u = (1 - value.pow(self.concentration1)).pow(self.concentration0)
        return 1 - self._uniform().cdf(u)

    def icdf(self, value):
        u = self._uniform().icdf(1 - value)
        return (1 - u.pow(self.concentration0.reciprocal())).pow(self.concentration1.reciprocal())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return log(a) + log(b) + (a - 1) * log(value) + (b - 1) * log1p(-value.pow(a))

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * h0 - log(self.concentration1) - log(self.concentration0)
