"""The Gamma distribution (shape ``concentration``, inverse scale ``rate``)."""
import numbers

from minigrad._dtypes import finfo
from minigrad._generated.api_minigrad import digamma, lgamma, log, xlogy
from minigrad._sampling_counts_gamma import _standard_gamma
from minigrad._size import Size
from minigrad.special import gammainc
from minigrad.creation import as_tensor
from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import broadcast_all


class Gamma(ExponentialFamily):
    """Gamma distribution with density ``rate^c x^(c-1) e^(-rate x) / Gamma(c)``.

    ``rsample`` is reparameterized: gradients reach ``concentration`` through torch's
    implicit gradient of the Gamma sampler (``_standard_gamma_grad``) and ``rate``.

    >>> Gamma(2.0, 1.0).log_prob(minigrad.tensor(1.0))
    tensor(-1.)
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # a huge rate may round a sample to 0, where log_prob is -inf or nan; clamped in
        # place outside autograd, as torch, so the gradient stays the unclamped one
        value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        c = self.concentration
        return c - log(self.rate) + lgamma(c) + (1.0 - c) * digamma(c)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # no gradient in concentration: torch does not implement it either
        return gammainc(self.concentration, self.rate * value)
