"""The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019):
density proportional to ``p^x (1-p)^(1-x)``.  Near p = 1/2 the normalizer's closed form
cancels catastrophically, so there (``lims``) Taylor expansions are used, as torch does.
"""
import math
import numbers

from minigrad._generated.api_minigrad import abs as abs_, expm1, log, log1p, pow as pow_
from minigrad._sampling import rand
from minigrad._size import Size
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import full_like, ones_like, zeros_like
from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import (broadcast_all, clamp_probs, lazy_property,
                                          logits_to_probs, probs_to_logits)
from minigrad.nn.functional import binary_cross_entropy_with_logits
from minigrad.searching import where


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli given by ``probs`` or ``logits`` (not both); ``lims`` is the
    interval around 1/2 where Taylor expansions replace the closed forms.

    >>> ContinuousBernoulli(probs=0.2).mean
    tensor(0.3786)
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            # checked before clamping, which would hide an invalid value
            if validate_args is not None:
                if not bool(self.arg_constraints["probs"].check(self.probs).all()):
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        ExponentialFamily.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """probs, moved to lims[0] inside the unstable region (whose result is replaced)."""
        return where(self._outside_unstable_region(), self.probs,
                     full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below_half = where(cut <= 0.5, cut, zeros_like(cut))
        above_half = where(cut >= 0.5, cut, ones_like(cut))
        log_norm = log(abs_(log1p(-cut) - log(cut))) - where(
            cut <= 0.5, log1p(-2.0 * below_half), log(2.0 * above_half - 1.0))
        x = pow_(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (log1p(-cut) - log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * pow_(x, 2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = (cut * (cut - 1.0) / pow_(1.0 - 2.0 * cut, 2)
                     + 1.0 / pow_(log1p(-cut) - log(cut), 2))
        x = pow_(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), variances, taylor)

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = ((pow_(cut, value) * pow_(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(value <= 0.0, zeros_like(value),
                     where(value >= 1.0, ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inverse = ((log1p(-cut + value * (2.0 * cut - 1.0)) - log1p(-cut))
                   / (log(cut) - log1p(-cut)))
        return where(self._outside_unstable_region(), inverse, value)

    def entropy(self):
        log_probs0 = log1p(-self.probs)
        log_probs1 = log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, full_like(x, self._lims[0] - 0.5))
        log_norm = log(abs_(expm1(cut))) - log(abs_(cut))
        taylor = 0.5 * x + pow_(x, 2) / 24.0 - pow_(x, 4) / 2880.0
        return where(outside, log_norm, taylor)
