"""The generalized Pareto distribution, the limit law of a distribution's tail."""
import math
import numbers

from minigrad._generated.api_minigrad import exp, expm1, log, log1p
from minigrad._sampling import rand
from minigrad._size import Size
from minigrad.comparison import isclose
from minigrad.creation import ones_like, zeros_like
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import broadcast_all
from minigrad.searching import where


class GeneralizedPareto(Distribution):
    """Generalized Pareto distribution with ``loc``, ``scale`` and ``concentration`` xi:
    survival function ``(1 + xi z)^(-1/xi)`` with ``z = (x - loc) / scale``
    (``exp(-z)`` at xi = 0).  xi = 0 is the Exponential, xi = -1 the Uniform on
    [loc, loc + scale]; xi < 0 bounds the support above by ``loc - scale / xi``.

    >>> GeneralizedPareto(0.0, 1.0, 0.0).log_prob(minigrad.tensor(1.0))
    tensor(-1.)
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers_only = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        batch_shape = Size() if numbers_only else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = where(self.concentration < 0, self.loc - self.scale / self.concentration,
                      math.inf)
        return constraints.interval(self.loc, upper)

    def _safe_concentration(self):
        """(xi == 0 as torch.isclose tells it, xi with those entries set to 1): the
        xi = 0 limit is taken separately, and the other branch must stay finite there
        for its gradient not to be nan."""
        xi = self.concentration
        at_zero = isclose(xi, zeros_like(xi))
        return at_zero, where(at_zero, ones_like(xi), xi)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(rand(shape, dtype=self.loc.dtype, device=self.loc.device))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._safe_concentration()
        power = 1 / xi + ones_like(z)
        # at xi = -1 the density is flat: 0 * log(0) at the upper end must stay 0
        nonzero = where(power == 0, power, power * log1p(xi * z))
        return -log(self.scale) - where(at_zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._safe_concentration()
        return where(at_zero, -z, -log1p(xi * z) / xi)

    def log_cdf(self, value):
        return log1p(-exp(self.log_survival_function(value)))

    def cdf(self, value):
        return exp(self.log_cdf(value))

    def icdf(self, value):
        at_zero, xi = self._safe_concentration()
        log_u = log1p(-value)
        nonzero = self.loc + self.scale / xi * expm1(-xi * log_u)
        return where(at_zero, self.loc - self.scale * log_u, nonzero)

    @property
    def mean(self):
        xi = self.concentration
        finite = xi < 1
        result = self.loc + self.scale / (1 - where(finite, xi, 0.5))
        return where(finite, result, math.nan)

    @property
    def variance(self):
        xi = self.concentration
        finite = xi < 0.5
        safe = where(finite, xi, 0.25)
        result = self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe))
        return where(finite, result, math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (log(self.scale) + self.concentration + 1).broadcast_to(self._batch_shape)
