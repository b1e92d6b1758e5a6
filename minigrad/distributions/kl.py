"""KL divergence ``KL(p || q)`` between distributions, dispatched on the pair of types
(``torch.distributions.kl``); ``register_kl`` adds a pair."""
import warnings

from minigrad import linalg
from minigrad.creation import full_like
from minigrad.nn.functional import softplus
from minigrad.searching import where
from minigrad.distributions.bernoulli import Bernoulli
from minigrad.distributions.categorical import Categorical
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.independent import Independent
from minigrad.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis
from minigrad.distributions.normal import Normal
from minigrad.distributions.uniform import Uniform
from minigrad.distributions.utils import broadcast_shape, sum_rightmost

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}  # the resolved function for each pair of concrete types seen


def register_kl(type_p, type_q):
    """Decorator registering ``fun(p, q)`` as KL(p || q) for these types and their
    subclasses (the most specific registered pair wins)."""
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new pair may be more specific than a resolved one
        return fun
    return decorator


def _dispatch_kl(type_p, type_q):
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY
               if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    if _KL_REGISTRY[left] is not _KL_REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left[0].__name__}, {right[1].__name__})",
                      RuntimeWarning, stacklevel=2)
    return _KL_REGISTRY[left]


def kl_divergence(p, q):
    """KL(p || q), batched over the batch shape; NotImplementedError for an unregistered pair.

    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
    """
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    fun = _KL_MEMOIZE[key]
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _where(mask, fill, values):
    """``values`` with ``fill`` where ``mask`` holds (differentiable elsewhere)."""
    return where(mask, full_like(values, fill), values)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _where((q.probs == 0).expand_as(t), float("inf"), t)  # q misses mass p has
    t = _where((p.probs == 0).expand_as(t), 0.0, t)  # 0 log 0 = 0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _where(q.probs == 0, float("inf"), t1)
    t1 = _where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _where(q.probs == 1, float("inf"), t2)
    t2 = _where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _where((q.low > p.low) | (q.high < p.high), float("inf"), result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_log_det_ratio = (Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                          - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    batch = tuple(broadcast_shape(Lq.shape[:-2], Lp.shape[:-2]))
    # tr(Sq^-1 Sp) = ||Lq^-1 Lp||_F^2
    Lq, Lp = Lq.expand(batch + (n, n)), Lp.expand(batch + (n, n))
    ratio = linalg.solve_triangular(Lq, Lp, upper=False)
    trace = ratio.pow(2).sum((-2, -1))
    mahalanobis = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - n)
