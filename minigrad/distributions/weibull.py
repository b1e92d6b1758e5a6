"""The Weibull distribution: scale * E ** (1 / concentration) for a unit Exponential E."""
from minigrad._generated.api_minigrad import lgamma
from minigrad.creation import ones_like
from minigrad.distributions import constraints
from minigrad.distributions.exponential import Exponential
from minigrad.distributions.transformed_distribution import TransformedDistribution
from minigrad.distributions.transforms import AffineTransform, PowerTransform
from minigrad.distributions.utils import broadcast_all, euler_constant


class Weibull(TransformedDistribution):
    """Weibull distribution with ``scale`` and shape ``concentration``.

    >>> Weibull(1.0, 1.0).mean  # an Exponential(1)
    tensor(1.)
    """
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ones_like(self.scale), validate_args=validate_args)
        super().__init__(base_dist, self._transforms(), validate_args=validate_args)

    def _transforms(self):
        return [PowerTransform(exponent=self.concentration_reciprocal),
                AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        # the transforms hold the parameters, so they are rebuilt at the new shape
        TransformedDistribution.__init__(new, self.base_dist.expand(batch_shape),
                                         new._transforms(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * lgamma(1 + self.concentration_reciprocal).exp()

    @property
    def mode(self):
        c = self.concentration
        return self.scale * ((c - 1) / c) ** c.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (lgamma(1 + 2 * self.concentration_reciprocal).exp()
                                    - (2 * lgamma(1 + self.concentration_reciprocal)).exp())

    def entropy(self):
        return (euler_constant * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)
