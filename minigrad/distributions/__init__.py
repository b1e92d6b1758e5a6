"""Probability distributions with torch.distributions' API, written with minigrad's
differentiable ops: log_prob, entropy, rsample and kl_divergence have gradients with
respect to the parameters, and samples come from minigrad's generator (so
``minigrad.manual_seed`` makes them reproducible).  See docs/distributions.md.
"""
from minigrad.distributions import constraints  # noqa: F401
from minigrad.distributions.distribution import Distribution  # noqa: F401
from minigrad.distributions.normal import Normal  # noqa: F401
from minigrad.distributions.categorical import Categorical  # noqa: F401
from minigrad.distributions.bernoulli import Bernoulli  # noqa: F401
from minigrad.distributions.uniform import Uniform  # noqa: F401
from minigrad.distributions.independent import Independent  # noqa: F401
from minigrad.distributions.multivariate_normal import MultivariateNormal  # noqa: F401
from minigrad.distributions.kl import kl_divergence, register_kl  # noqa: F401

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "MultivariateNormal",
           "Normal", "Uniform", "constraints", "kl_divergence", "register_kl"]
