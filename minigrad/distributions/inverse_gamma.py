"""The inverse Gamma distribution: ``1 / X`` for ``X ~ Gamma(concentration, rate)``.

torch builds it as a TransformedDistribution (Gamma and PowerTransform(-1)); here the
change of variables is written out: ``log p(y) = log p_Gamma(1/y) - 2 log y``.
"""
import math

from minigrad.creation import full_like
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.gamma import Gamma
from minigrad.searching import where


class InverseGamma(Distribution):
    """Inverse Gamma distribution with ``concentration`` and ``rate`` (of the Gamma whose
    reciprocal it is).

    >>> InverseGamma(3.0, 2.0).mean
    tensor(1.)
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.base_dist = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(InverseGamma, batch_shape, _instance, ("base_dist",))

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        return where(self.concentration > 1, self.rate / (self.concentration - 1),
                     full_like(self.rate, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        finite = self.rate.square() / ((c - 1).square() * (c - 2))
        return where(c > 2, finite, full_like(self.rate, math.inf))

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).reciprocal()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # |d(1/y)/dy| = y^-2
        return self.base_dist.log_prob(value.reciprocal()) - 2 * value.log()

    def cdf(self, value):
        # P(Y <= y) = P(X >= 1/y); the Gamma checks 1/y, as torch's TransformedDistribution
        return 1 - self.base_dist.cdf(value.reciprocal())

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
