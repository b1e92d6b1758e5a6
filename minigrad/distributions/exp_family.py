"""The ExponentialFamily base class (``torch.distributions.ExponentialFamily``):
distributions with density ``exp(<t(x), theta> - F(theta) + k(x))``."""
from minigrad.autograd.api import grad as autograd_grad
from minigrad.distributions.distribution import Distribution


class ExponentialFamily(Distribution):
    """A subclass gives its natural parameters ``theta`` (``_natural_params``), the log
    normalizer ``F`` (``_log_normalizer(*theta)``) and ``E[k(x)]``
    (``_mean_carrier_measure``); ``entropy`` and the KL between two members of one
    family then follow from ``F`` by autograd (Bregman divergences)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        # F(theta) - <theta, grad F(theta)> - E[k(x)]: grad F is the mean of t(x)
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        gradients = autograd_grad(log_normalizer.sum(), params, create_graph=True)
        result = result + log_normalizer
        batch = tuple(self._batch_shape)
        for param, gradient in zip(params, gradients):
            result = result - (param * gradient).reshape(batch + (-1,)).sum(-1)
        return result
