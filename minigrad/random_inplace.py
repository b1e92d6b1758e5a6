"""The in-place samplers x.cauchy_(), x.geometric_() and x.log_normal_(), beside
_sampling.py's normal_, uniform_, exponential_ ...: drawn from minigrad's generator (the
``generator=`` given, else the one minigrad.manual_seed seeds), with torch's argument
checks.  As there, the values are written with copy_, so a leaf that requires grad is
refused and the gradient through an overwritten tensor is zero (torch's CauchyBackward0...).
"""
import numpy as np

from minigrad._sampling import _fill_with
from minigrad._tensor import Tensor
from minigrad.kernels.core import cpp_type_name, not_implemented_for
from minigrad.random import numpy_rng

__all__ = ["cauchy_", "geometric_", "log_normal_"]


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples of density sigma / (pi ((x - median)^2 + sigma^2))."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    if self._data.dtype.kind in "biu":
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{cpp_type_name(self._data.dtype)}")
    draws = numpy_rng(generator).standard_cauchy(self.shape)
    return _fill_with(self, median + sigma * draws)


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self._data.dtype.kind == "b":
        raise not_implemented_for("geometric_cpu", self._data.dtype)
    return _fill_with(self, numpy_rng(generator).geometric(p, self.shape))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp(N(mean, std^2)) samples (mean and std are the logarithm's)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if self._data.dtype.kind in "biu":
        raise not_implemented_for("log_normal_cpu", self._data.dtype)
    return _fill_with(self, np.exp(numpy_rng(generator).normal(mean, std, self.shape)))


for _name in __all__:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
