"""The samplers torch.distributions needs beyond uniform and normal draws:
``_standard_gamma`` (differentiable in alpha), ``_sample_dirichlet``, ``poisson`` and
``binomial``, all drawing from a :class:`minigrad.Generator` on the host (so
``minigrad.manual_seed`` makes them reproducible on any device).

>>> minigrad.poisson(minigrad.tensor([0.0, 0.0])).tolist()
[0.0, 0.0]
"""
import numpy as np

from minigrad._generated import functions as _F
from minigrad._sampling import _on_device_of, _values
from minigrad.kernels.core import not_implemented_for, scalar_type_name
from minigrad.random import numpy_rng


def _host_float(input, kernel):
    """``input``'s values on the host; integer and bool tensors are refused as torch does."""
    values = np.asarray(_values(input))
    if values.dtype.kind in "biu":
        raise not_implemented_for(kernel, values.dtype)
    return values


def _standard_gamma(input, generator=None):
    """Gamma(``input``, 1) samples, differentiable in ``input`` (torch._standard_gamma).

    Each sample is the Gamma quantile of a uniform draw; its gradient is torch's
    ``_standard_gamma_grad`` (derivatives.yaml: _standard_gamma_icdf).  Samples are kept
    at least the dtype's smallest normal number, as torch does, so logs stay finite.
    """
    _host_float(input, "gamma_cpu")
    uniform = numpy_rng(generator).random(tuple(input.shape))
    sample = _F._standard_gamma_icdf(input, _on_device_of(input, uniform))
    tiny = float(np.finfo(sample._data.dtype).tiny)
    return sample.clamp(min=tiny)


def _sample_dirichlet(input, generator=None):
    """Dirichlet(``input``) samples along the last dimension, without history
    (torch._sample_dirichlet): independent Gamma draws, normalised."""
    alpha = _host_float(input, "dirichlet")
    gammas = numpy_rng(generator).standard_gamma(alpha)
    tiny = np.finfo(alpha.dtype).tiny
    gammas = np.maximum(gammas, tiny)
    sample = np.maximum(gammas / gammas.sum(-1, keepdims=True), tiny)
    return _on_device_of(input, sample.astype(alpha.dtype))


def poisson(input, generator=None):
    """Poisson counts with rates ``input``, in ``input``'s floating dtype."""
    rates = _host_float(input, "poisson_cpu")
    if np.any(rates < 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    counts = numpy_rng(generator).poisson(np.nan_to_num(rates))
    counts = np.where(np.isnan(rates), np.nan, counts)
    return _on_device_of(input, counts.astype(rates.dtype))


def binomial(count, prob, generator=None):
    """Binomial counts of ``count`` trials with success probability ``prob`` (tensors of
    one shape); counts <= 0 give 0 and probabilities are clipped to [0, 1], as torch."""
    n = np.asarray(_values(count))
    if n.dtype.kind not in "f":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{scalar_type_name(n.dtype)}")
    p = np.asarray(_values(prob), dtype=np.float64)
    trials = np.floor(np.maximum(np.nan_to_num(n), 0)).astype(np.int64)
    draws = numpy_rng(generator).binomial(trials, np.clip(np.nan_to_num(p), 0.0, 1.0))
    draws = np.where(np.isnan(p) | np.isnan(n), np.nan, draws)
    return _on_device_of(count, draws.astype(n.dtype))
