"""The Wishart distribution over positive definite matrices."""
import math
import numbers
import warnings

from minigrad import linalg
from minigrad._dtypes import finfo
from minigrad._generated.api_minigrad import cholesky_solve, digamma, matmul, mvlgamma
from minigrad._sampling import randn
from minigrad._size import Size
from minigrad.creation import arange, eye, tensor
from minigrad.distributions import constraints
from minigrad.distributions.chi2 import Chi2
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.multivariate_normal import _precision_to_scale_tril
from minigrad.distributions.utils import broadcast_shape, lazy_property, vec_to_tril_matrix
from minigrad.searching import where

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma, sum_i digamma(x - i / 2) for i < p: d mvlgamma / dx."""
    if not bool((x > (p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype, device=x.device) / 2
    return digamma(x.unsqueeze(-1) - halves).sum(-1)


class Wishart(ExponentialFamily):
    """Wishart distribution with ``df`` degrees of freedom (more than the dimension
    less one) and one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``
    (its lower Cholesky factor L, which everything is computed from).

    ``rsample`` uses the Bartlett decomposition: ``(L A)(L A)^T`` with A lower
    triangular, chi-distributed on the diagonal and standard normal below it, so
    gradients reach ``df`` (through the Gamma sampler) and the scale.
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix,
                 "scale_tril": scale_tril}
        given = {k: v for k, v in given.items() if v is not None}
        if len(given) != 1:  # torch raises AssertionError here (MultivariateNormal: ValueError)
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        (name, matrix), = given.items()
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(matrix.shape[:-2])
            self.df = tensor(df, dtype=matrix.dtype, device=matrix.device)
        else:
            batch_shape = broadcast_shape(matrix.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = matrix.shape[-2:]
        p = event_shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than "
                             f"ndim - 1 = {p - 1}.")
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        ExponentialFamily.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return matmul(L, L.mT).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        identity = eye(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return cholesky_solve(identity, L).expand(self._batch_shape + self._event_shape)

    def _df_matrix(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self._event_shape[-1] - 1
        factor = where(factor <= 0, math.nan, factor)   # no mode: the density is unbounded
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diagonal = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape):
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        # the i-th diagonal entry of A is chi-distributed with df - i degrees of freedom
        chi2 = Chi2(self.df.unsqueeze(-1) - arange(p, dtype=L.dtype, device=L.device))
        diagonal = chi2.rsample(sample_shape).sqrt().clamp(min=finfo(L.dtype).eps)
        below = randn(tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
                      dtype=L.dtype, device=L.device)
        A = vec_to_tril_matrix(below, diag=-1) + diagonal.diag_embed()
        LA = matmul(L, A)
        return matmul(LA, LA.mT)

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Samples; a singular one (likely when df < dimension) is drawn again up to
        ``max_try_correction`` times and may stay singular (log_prob -inf), as in torch."""
        if max_try_correction is None:
            max_try_correction = 10
        sample = self._bartlett_sample(sample_shape)
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample = where(singular[..., None, None], self._bartlett_sample(sample_shape),
                               sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def _log_det_scale(self):
        """log det(L) + p log(2) / 2: the log normalizer's part in the scale."""
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        trace = cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(-1)
        return (-nu * self._log_det_scale() - mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * self._log_det_scale() + mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + mvlgamma(y + (p + 1) / 2, p))
