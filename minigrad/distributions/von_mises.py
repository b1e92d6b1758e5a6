"""The von Mises distribution: the circle's analogue of the Normal."""
import math

import numpy as np

from minigrad._generated.api_minigrad import cos, log
from minigrad._sampling import _on_device_of, _values
from minigrad.autograd.grad_mode import no_grad
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import broadcast_all, lazy_property
from minigrad.random import numpy_rng
from minigrad.special import i0e, i1e


def _log_i0(x):
    """log I0(x) for x > 0, through the scaled Bessel function so a large x does not
    overflow (torch uses a polynomial fit, good to about 1e-7; this one is exact)."""
    return log(i0e(x)) + x


class VonMises(Distribution):
    """Circular von Mises distribution with mean angle ``loc`` and ``concentration``
    kappa: density ``exp(kappa cos(x - loc)) / (2 pi I0(kappa))``.  ``loc`` and values
    may be any real numbers, read modulo 2 pi; samples lie in [-pi, pi).

    >>> VonMises(minigrad.tensor(0.0), minigrad.tensor(1.0)).log_prob(minigrad.tensor(0.0))
    tensor(-1.2727)
    """
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        # as torch: a new instance of the (sub)class, keeping an explicit validate_args
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape),
                          self.concentration.expand(batch_shape), validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * cos(value - self.loc) - math.log(2 * math.pi)
                - _log_i0(self.concentration))

    @no_grad()
    def sample(self, sample_shape=()):
        # numpy's sampler in float64, centred at 0 (Best and Fisher's rejection scheme, as
        # torch's; above kappa = 1e6 a wrapped Normal, exact to double precision there);
        # the angle is then shifted by loc and wrapped to [-pi, pi)
        shape = tuple(self._extended_shape(sample_shape))
        kappa = np.broadcast_to(np.asarray(_values(self.concentration), np.float64), shape)
        angles = np.asarray(numpy_rng().vonmises(0.0, kappa), np.float64)
        x = _on_device_of(self.loc, angles).to(self.loc.dtype)
        return (x + math.pi + self.loc) % (2 * math.pi) - math.pi

    @property
    def mean(self):
        """The circular mean."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance, 1 - I1(kappa) / I0(kappa)."""
        kappa = self.concentration
        return 1 - i1e(kappa) / i0e(kappa)
