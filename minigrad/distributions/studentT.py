"""Student's t distribution: a Normal whose precision is Chi2(df) / df."""
import math

from minigrad._generated.api_minigrad import digamma, lgamma, log1p, rsqrt
from minigrad._sampling import randn
from minigrad.creation import full_like
from minigrad.distributions import constraints
from minigrad.distributions.chi2 import Chi2
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import broadcast_all
from minigrad.searching import where


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, ``loc`` and ``scale``.

    >>> StudentT(1.0).log_prob(minigrad.tensor(0.0))
    tensor(-1.1447)
    """
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale", "_chi2"))

    @property
    def mean(self):
        # undefined for df <= 1
        return where(self.df <= 1, full_like(self.loc, math.nan), self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        # infinite for 1 < df <= 2, undefined for df <= 1
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        result = where(self.df > 2, finite, full_like(self.df, math.inf))
        return where(self.df <= 1, full_like(self.df, math.nan), result)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * log1p(y ** 2.0 / self.df) - log_norm

    def entropy(self):
        half_df = 0.5 * self.df
        half_df1 = 0.5 * (self.df + 1)
        lbeta = lgamma(half_df) + math.lgamma(0.5) - lgamma(half_df1)
        return (self.scale.log() + half_df1 * (digamma(half_df1) - digamma(half_df))
                + 0.5 * self.df.log() + lbeta)
