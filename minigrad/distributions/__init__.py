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
# the gamma family, the count distributions, mixtures and the low-rank Normal
from minigrad.distributions.exp_family import ExponentialFamily  # noqa: F401
from minigrad.distributions.gamma import Gamma  # noqa: F401
from minigrad.distributions.chi2 import Chi2  # noqa: F401
from minigrad.distributions.dirichlet import Dirichlet  # noqa: F401
from minigrad.distributions.beta import Beta  # noqa: F401
from minigrad.distributions.studentT import StudentT  # noqa: F401
from minigrad.distributions.inverse_gamma import InverseGamma  # noqa: F401
from minigrad.distributions.fishersnedecor import FisherSnedecor  # noqa: F401
from minigrad.distributions.kumaraswamy import Kumaraswamy  # noqa: F401
from minigrad.distributions.poisson import Poisson  # noqa: F401
from minigrad.distributions.binomial import Binomial  # noqa: F401
from minigrad.distributions.negative_binomial import NegativeBinomial  # noqa: F401
from minigrad.distributions.multinomial import Multinomial  # noqa: F401
from minigrad.distributions.mixture_same_family import MixtureSameFamily  # noqa: F401
from minigrad.distributions.lowrank_multivariate_normal import (  # noqa: F401
    LowRankMultivariateNormal)
from minigrad.distributions.continuous_bernoulli import ContinuousBernoulli  # noqa: F401
# transforms and the distributions built on them
from minigrad.distributions import transforms  # noqa: F401
from minigrad.distributions.cauchy import Cauchy  # noqa: F401
from minigrad.distributions.constraint_registry import biject_to, transform_to  # noqa: F401
from minigrad.distributions.exponential import Exponential  # noqa: F401
from minigrad.distributions.geometric import Geometric  # noqa: F401
from minigrad.distributions.gumbel import Gumbel  # noqa: F401
from minigrad.distributions.half_cauchy import HalfCauchy  # noqa: F401
from minigrad.distributions.half_normal import HalfNormal  # noqa: F401
from minigrad.distributions.laplace import Laplace  # noqa: F401
from minigrad.distributions.log_normal import LogNormal  # noqa: F401
from minigrad.distributions.logistic_normal import LogisticNormal  # noqa: F401
from minigrad.distributions.one_hot_categorical import (  # noqa: F401
    OneHotCategorical, OneHotCategoricalStraightThrough)
from minigrad.distributions.pareto import Pareto  # noqa: F401
from minigrad.distributions.relaxed_bernoulli import RelaxedBernoulli  # noqa: F401
from minigrad.distributions.relaxed_categorical import RelaxedOneHotCategorical  # noqa: F401
from minigrad.distributions.transformed_distribution import TransformedDistribution  # noqa: F401
from minigrad.distributions.transforms import *  # noqa: F401,F403
from minigrad.distributions.weibull import Weibull  # noqa: F401
_TRANSFORMED_NAMES = [
    "Cauchy", "Exponential", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Laplace",
    "LogNormal", "LogisticNormal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "TransformedDistribution", "Weibull", "biject_to",
    "transform_to"] + transforms.__all__
# the circular, tail and matrix distributions
from minigrad.distributions.von_mises import VonMises  # noqa: F401
from minigrad.distributions.generalized_pareto import GeneralizedPareto  # noqa: F401
from minigrad.distributions.wishart import Wishart  # noqa: F401
from minigrad.distributions.lkj_cholesky import LKJCholesky  # noqa: F401
from minigrad.distributions.kl import kl_divergence, register_kl  # noqa: F401

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "MultivariateNormal",
           "Normal", "Uniform", "constraints", "kl_divergence", "register_kl"]
__all__ += ["Beta", "Binomial", "Chi2", "ContinuousBernoulli", "Dirichlet", "ExponentialFamily",
            "FisherSnedecor", "Gamma", "InverseGamma", "Kumaraswamy", "LowRankMultivariateNormal",
            "MixtureSameFamily", "Multinomial", "NegativeBinomial", "Poisson", "StudentT"]
__all__ += _TRANSFORMED_NAMES
__all__ += ["GeneralizedPareto", "LKJCholesky", "VonMises", "Wishart"]
