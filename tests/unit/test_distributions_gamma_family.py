"""The gamma family, the count distributions, MixtureSameFamily, LowRankMultivariateNormal
and ContinuousBernoulli against torch.distributions (float64): log_prob / entropy /
moments and their parameter gradients, KL divergences, validation errors, shapes, sample
moments under a seed, and the reparameterized Gamma / Dirichlet gradients."""
import math

import numpy as np
import pytest
import scipy.special as sc
from scipy import stats

import minigrad as mg
from minigrad import distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions


def _pair(array, grad=True):
    """The same float64 values as a minigrad and a torch leaf."""
    a = np.asarray(array, dtype=np.float64)
    return mg.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _close(m, t, rtol=1e-9, atol=1e-11):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _check(m_out, t_out, m_params, t_params, rtol=1e-9):
    """Same values, and the same gradients of a weighted sum w.r.t. every parameter."""
    _close(m_out, t_out, rtol=rtol)
    weights = np.linspace(0.5, 1.5, max(t_out.numel(), 1)).reshape(tuple(t_out.shape))
    finite = np.isfinite(t_out.detach().numpy())
    weights = np.where(finite, weights, 0.0)  # inf / nan entries have no gradient to compare
    m_loss = mg.where(mg.tensor(finite), m_out, 0.0) * mg.tensor(weights)
    t_loss = torch.where(torch.tensor(finite), t_out, 0.0) * torch.tensor(weights)
    if not t_loss.requires_grad:
        return
    m_grads = mg.autograd.grad(m_loss.sum(), m_params, allow_unused=True, retain_graph=True)
    t_grads = torch.autograd.grad(t_loss.sum(), t_params, allow_unused=True, retain_graph=True)
    for m_grad, t_grad in zip(m_grads, t_grads):
        if t_grad is None:
            assert m_grad is None or not m_grad.numpy().any()
        else:
            _close(m_grad, t_grad, rtol=1e-7)  # polygamma: scipy vs ATen


RNG = np.random.RandomState(0)
POS = np.array([0.4, 1.0, 2.5, 9.0])
POS2 = np.array([1.5, 0.7, 3.0, 12.0])
UNIT = np.array([0.1, 0.35, 0.5, 0.93])
SIMPLEX = RNG.dirichlet([1.0, 2.0, 3.0], size=2)
LOC3 = RNG.randn(2, 3)
W = RNG.randn(2, 3, 2) * 0.7
DIAG = RNG.rand(2, 3) + 0.3

# name: (build(module, *params), parameter arrays, which need a gradient, value)
CASES = {
    "Gamma": (lambda x, c, r: x.Gamma(c, r), [POS, POS2], [True, True], POS2 * 0.7),
    "Chi2": (lambda x, df: x.Chi2(df), [POS * 2], [True], POS2),
    "Beta": (lambda x, a, b: x.Beta(a, b), [POS, POS2], [True, True], UNIT),
    "Dirichlet": (lambda x, c: x.Dirichlet(c), [[[0.5, 2.0, 3.0], [1.0, 1.0, 7.0]]], [True],
                  SIMPLEX),
    "StudentT": (lambda x, df, loc, s: x.StudentT(df, loc, s),
                 [[0.8, 1.5, 3.0, 7.0], [0.0, 1.0, -2.0, 0.5], POS2], [True] * 3,
                 np.array([0.3, -1.0, 2.0, 0.0])),
    "InverseGamma": (lambda x, c, r: x.InverseGamma(c, r), [[0.5, 1.5, 2.5, 6.0], POS2],
                     [True, True], POS),
    "FisherSnedecor": (lambda x, d1, d2: x.FisherSnedecor(d1, d2),
                       [[1.0, 3.0, 5.0, 8.0], [1.5, 3.0, 5.0, 9.0]], [True, True], POS),
    "Kumaraswamy": (lambda x, a, b: x.Kumaraswamy(a, b), [POS, POS2], [True, True], UNIT),
    "Poisson": (lambda x, r: x.Poisson(r), [POS], [True], np.array([0.0, 1.0, 3.0, 7.0])),
    "Binomial": (lambda x, n, p: x.Binomial(n, p), [[6.0] * 4, UNIT], [False, True],
                 np.array([0.0, 2.0, 3.0, 6.0])),
    "BinomialLogits": (lambda x, n, l: x.Binomial(n, logits=l), [[5.0] * 4, [-2.0, 0.0, 0.5, 3.0]],
                       [False, True], np.array([0.0, 1.0, 4.0, 5.0])),
    "NegativeBinomial": (lambda x, n, p: x.NegativeBinomial(n, p), [[0.5, 2.0, 3.0, 10.0], UNIT],
                         [True, True], np.array([0.0, 1.0, 4.0, 9.0])),
    "Multinomial": (lambda x, p: x.Multinomial(5, p), [SIMPLEX], [True],
                    np.array([[1.0, 1.0, 3.0], [0.0, 5.0, 0.0]])),
    "MixtureSameFamily": (lambda x, l, m, s: x.MixtureSameFamily(x.Categorical(logits=l),
                                                                  x.Normal(m, s)),
                          [RNG.randn(2, 3), LOC3, DIAG], [True] * 3, np.array([0.2, -1.0])),
    "LowRankMultivariateNormal": (lambda x, m, w, d: x.LowRankMultivariateNormal(m, w, d),
                                  [LOC3, W, DIAG], [True] * 3, RNG.randn(1, 2, 3)),
    "ContinuousBernoulli": (lambda x, p: x.ContinuousBernoulli(p),
                            [[0.2, 0.4995, 0.5, 0.9]], [True], UNIT),
    "ContinuousBernoulliLogits": (lambda x, l: x.ContinuousBernoulli(logits=l),
                                  [[-3.0, -0.001, 0.0, 2.0]], [True], UNIT),
}


def _both(name):
    build, params, grads, value = CASES[name]
    pairs = [_pair(p, g) for p, g in zip(params, grads)]
    m_params = [m for (m, _), g in zip(pairs, grads) if g]
    t_params = [t for (_, t), g in zip(pairs, grads) if g]
    m_dist = build(D, *[m for m, _ in pairs])
    t_dist = build(TD, *[t for _, t in pairs])
    return m_dist, t_dist, m_params, t_params, value


@pytest.mark.parametrize("name", CASES)
def test_log_prob_and_its_gradients_match_torch(name):
    m_dist, t_dist, m_params, t_params, value = _both(name)
    _check(m_dist.log_prob(mg.tensor(value)), t_dist.log_prob(torch.tensor(value)),
           m_params, t_params)


def _property_or_error(dist, attribute):
    try:
        result = getattr(dist, attribute)
        return result() if callable(result) else result
    except NotImplementedError as e:
        return e


@pytest.mark.parametrize("attribute", ["entropy", "mean", "variance", "mode", "stddev"])
@pytest.mark.parametrize("name", CASES)
def test_entropy_and_moments_match_torch(name, attribute):
    m_dist, t_dist, m_params, t_params, _ = _both(name)
    t_out = _property_or_error(t_dist, attribute)
    m_out = _property_or_error(m_dist, attribute)
    if isinstance(t_out, NotImplementedError):
        assert isinstance(m_out, NotImplementedError)
        return
    # torch's Multinomial entropy takes lgamma(n + 1) of an int64 tensor: in float32
    rtol = 1e-7 if (name, attribute) == ("Multinomial", "entropy") else 1e-9
    _check(m_out, t_out, m_params, t_params, rtol)


@pytest.mark.parametrize("name", ["Gamma", "Dirichlet", "Beta", "Poisson",
                                  "ContinuousBernoulli", "ContinuousBernoulliLogits"])
def test_bregman_entropy_of_the_exponential_family_matches_torch(name):
    m_dist, t_dist, m_params, t_params, _ = _both(name)
    if name in ("Beta", "Dirichlet", "Poisson"):  # no carrier measure: torch raises too
        with pytest.raises(NotImplementedError):
            TD.ExponentialFamily.entropy(t_dist)
        with pytest.raises(NotImplementedError):
            D.ExponentialFamily.entropy(m_dist)
        return
    _check(D.ExponentialFamily.entropy(m_dist), TD.ExponentialFamily.entropy(t_dist),
           m_params, t_params)
    _close(D.ExponentialFamily.entropy(m_dist), m_dist.entropy(), rtol=1e-6)


def test_cdf_and_icdf_of_the_continuous_bernoulli_match_torch():
    m_dist, t_dist, m_params, t_params, value = _both("ContinuousBernoulli")
    _check(m_dist.cdf(mg.tensor(value)), t_dist.cdf(torch.tensor(value)), m_params, t_params)
    _check(m_dist.icdf(mg.tensor(value)), t_dist.icdf(torch.tensor(value)), m_params, t_params)


def test_mixture_cdf_matches_torch():
    m_dist, t_dist, m_params, t_params, value = _both("MixtureSameFamily")
    _check(m_dist.cdf(mg.tensor(value)), t_dist.cdf(torch.tensor(value)), m_params, t_params)


@pytest.mark.parametrize("name", ["Gamma", "Chi2", "InverseGamma", "Kumaraswamy"])
def test_cdf_matches_torch(name):
    m_dist, t_dist, m_params, t_params, value = _both(name)
    value = np.clip(value, 0.05, 0.95) if name == "Kumaraswamy" else value
    if name == "Kumaraswamy":  # its icdf too; the others have none, in torch either
        _check(m_dist.icdf(mg.tensor(UNIT)), t_dist.icdf(torch.tensor(UNIT)), m_params, t_params)
        _check(m_dist.cdf(mg.tensor(value)), t_dist.cdf(torch.tensor(value)), m_params, t_params)
        return
    # gammainc has no derivative in the concentration: backward raises as torch's ...
    m_cdf, t_cdf = m_dist.cdf(mg.tensor(value)), t_dist.cdf(torch.tensor(value))
    _close(m_cdf, t_cdf, rtol=1e-12)
    _same_error(lambda: m_cdf.sum().backward(), lambda: t_cdf.sum().backward())
    if name != "Chi2":  # ... and the rate gets its gradient when the concentration is fixed
        build, params = CASES[name][:2]
        (m_c, t_c), (m_r, t_r) = _pair(params[0], grad=False), _pair(params[1])
        _check(build(D, m_c, m_r).cdf(mg.tensor(value)),
               build(TD, t_c, t_r).cdf(torch.tensor(value)), [m_r], [t_r])


def test_gammainc_matches_torch():
    a, x = np.meshgrid([0.1, 0.5, 1.0, 3.0, 30.0], [0.0, 0.05, 0.7, 2.0, 40.0])
    m_x, t_x = _pair(x)
    m_out = mg.special.gammainc(mg.tensor(a), m_x)
    t_out = torch.special.gammainc(torch.tensor(a), t_x)
    _check(m_out, t_out, [m_x], [t_x])


@pytest.mark.parametrize("attribute", ["scale_tril", "covariance_matrix", "precision_matrix"])
def test_lowrank_normal_matrices_match_torch(attribute):
    m_dist, t_dist, m_params, t_params, _ = _both("LowRankMultivariateNormal")
    _check(getattr(m_dist, attribute), getattr(t_dist, attribute), m_params, t_params)


# --- KL divergence ------------------------------------------------------------------------

KL_PAIRS = [
    ("Gamma", "Gamma"), ("Beta", "Beta"), ("Dirichlet", "Dirichlet"), ("Poisson", "Poisson"),
    ("Binomial", "Binomial"), ("ContinuousBernoulli", "ContinuousBernoulliLogits"),
    ("LowRankMultivariateNormal", "LowRankMultivariateNormal"), ("Chi2", "Gamma"),
    ("Beta", "Gamma"), ("Beta", "ContinuousBernoulli"), ("Gamma", "Beta"),
]
OTHERS = {
    "Normal": (lambda x, m, s: x.Normal(m, s), [[0.3, -1.0, 2.0, 0.5], POS2]),
    "Uniform": (lambda x, lo, hi: x.Uniform(lo, hi),
                [[-0.5, 0.0, 0.2, -1.0], [1.5, 1.0, 2.0, 0.5]]),
    "Bernoulli": (lambda x, p: x.Bernoulli(p), [UNIT * 0.9]),
    "MultivariateNormal": (lambda x, m, L: x.MultivariateNormal(m, scale_tril=L),
                           [LOC3[::-1].copy(),
                            np.tril(RNG.randn(2, 3, 3) * 0.3) + 1.5 * np.eye(3)]),
}
MIXED_PAIRS = [
    ("Beta", "Normal"), ("Beta", "Uniform"), ("Gamma", "Normal"), ("Gamma", "Uniform"),
    ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "Uniform"), ("Normal", "Gamma"),
    ("Normal", "Beta"), ("Uniform", "Beta"), ("Uniform", "Gamma"),
    ("Uniform", "ContinuousBernoulli"), ("Bernoulli", "Poisson"), ("Poisson", "Bernoulli"),
    ("Poisson", "Binomial"), ("MultivariateNormal", "LowRankMultivariateNormal"),
    ("LowRankMultivariateNormal", "MultivariateNormal"),
]


def _any(name, shift=0.0):
    """A minigrad and a torch distribution of ``name`` and their gradient leaves."""
    if name in OTHERS:
        build, params = OTHERS[name]
        pairs = [_pair(np.asarray(p) + shift * (np.asarray(p) > 0)) for p in params]
        m_params, t_params = [m for m, _ in pairs], [t for _, t in pairs]
        return (build(D, *m_params), build(TD, *t_params), m_params, t_params)
    return _both(name)[:4]


@pytest.mark.parametrize("p_name,q_name", KL_PAIRS + MIXED_PAIRS)
def test_kl_divergence_matches_torch(p_name, q_name):
    mp, tp, mpp, tpp = _any(p_name)
    mq, tq, mqp, tqp = _any(q_name, shift=0.1)
    _check(D.kl_divergence(mp, mq), TD.kl_divergence(tp, tq), mpp + mqp, tpp + tqp)


def test_kl_by_bregman_divergence_matches_the_closed_form():
    p = D.Gamma(mg.tensor(POS), mg.tensor(POS2))
    q = D.Gamma(mg.tensor(POS2), mg.tensor(POS))
    from minigrad.distributions.kl import _kl_expfamily_expfamily
    _close(_kl_expfamily_expfamily(p, q), D.kl_divergence(p, q), rtol=1e-8)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        _kl_expfamily_expfamily(p, D.Poisson(mg.tensor(POS)))


def test_binomial_kl_refuses_a_larger_q_count_as_torch():
    p = D.Binomial(2, mg.tensor([0.5]))
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        D.kl_divergence(p, D.Binomial(3, mg.tensor([0.5])))
    assert D.kl_divergence(D.Binomial(3, mg.tensor([0.5])), p).item() == math.inf


# --- reparameterized gradients ------------------------------------------------------------

GRID = np.exp(np.linspace(np.log(0.01), np.log(200.0), 40))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_standard_gamma_grad_matches_torch_on_a_grid(dtype):
    alpha, x = (a.astype(dtype) for a in np.meshgrid(GRID, GRID))
    ours = mg._standard_gamma_grad(mg.tensor(alpha), mg.tensor(x))
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x))
    assert ours.dtype == getattr(mg, dtype)
    rtol = 1e-10 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=1e-30)


def test_standard_gamma_grad_is_the_implicit_derivative_of_the_cdf():
    """dx/dalpha = -(dF/dalpha) / pdf, F the regularized incomplete gamma function."""
    alpha, u = np.meshgrid([0.05, 0.3, 0.9, 1.5, 3.0, 7.0, 9.0, 30.0], np.linspace(0.02, 0.98, 13))
    x = sc.gammaincinv(alpha, u)
    h = 1e-6 * alpha
    dF = (sc.gammainc(alpha + h, x) - sc.gammainc(alpha - h, x)) / (2 * h)
    pdf = np.exp((alpha - 1) * np.log(x) - x - sc.gammaln(alpha))
    ours = mg._standard_gamma_grad(mg.tensor(alpha), mg.tensor(x)).numpy()
    np.testing.assert_allclose(ours, -dF / pdf, rtol=5e-4)


def test_dirichlet_grad_matches_torch_on_a_grid():
    x, a, b = np.meshgrid(np.linspace(0.01, 0.99, 25), GRID[::3], GRID[::3])
    ours = mg._dirichlet_grad(mg.tensor(x), mg.tensor(a), mg.tensor(a + b))
    theirs = torch._dirichlet_grad(torch.tensor(x), torch.tensor(a), torch.tensor(a + b))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-300)


def test_dirichlet_grad_is_the_implicit_derivative_of_the_beta_cdf():
    """(1 - x) times it is -(dI_x(a, b)/da) / pdf for x ~ Beta(a, b)."""
    a, b, u = np.meshgrid([0.3, 1.0, 2.5, 8.0, 20.0], [0.4, 2.0, 9.0], np.linspace(0.05, 0.95, 7))
    x = sc.betaincinv(a, b, u)
    h = 1e-6 * a
    dF = (sc.betainc(a + h, b, x) - sc.betainc(a - h, b, x)) / (2 * h)
    pdf = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - sc.betaln(a, b))
    ours = mg._dirichlet_grad(mg.tensor(x), mg.tensor(a), mg.tensor(a + b)).numpy()
    np.testing.assert_allclose(ours * (1 - x), -dF / pdf, rtol=2e-3)


def test_gamma_rsample_gradient_is_standard_gamma_grad_over_rate():
    mg.manual_seed(0)
    c = mg.tensor([0.3, 1.0, 4.0, 20.0], requires_grad=True)
    rate = mg.tensor([2.0, 1.0, 0.5, 3.0], requires_grad=True)
    x = D.Gamma(c, rate).rsample((50,))
    x.sum().backward()
    standard = (x * rate).detach().numpy()  # the Gamma(c, 1) draws
    t_c, t_rate = torch.tensor(c.detach().numpy()), torch.tensor(rate.detach().numpy())
    expected = torch._standard_gamma_grad(t_c.expand(50, 4), torch.tensor(standard)).sum(0) / t_rate
    np.testing.assert_allclose(c.grad.numpy(), expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(rate.grad.numpy(), -(x / rate).detach().numpy().sum(0), rtol=1e-6)


def test_dirichlet_rsample_gradient_is_torchs_formula():
    mg.manual_seed(1)
    alpha = mg.tensor([[0.5, 2.0, 3.0], [4.0, 1.0, 0.7]], dtype=mg.float64, requires_grad=True)
    x = D.Dirichlet(alpha).rsample((20,))
    upstream = RNG.randn(20, 2, 3)
    (x * mg.tensor(upstream)).sum().backward()
    tx, ta, tg = (torch.tensor(v) for v in (x.detach().numpy(), alpha.detach().numpy(), upstream))
    ta = ta.expand(20, 2, 3)
    grad = torch._dirichlet_grad(tx, ta, ta.sum(-1, True).expand_as(ta))
    expected = (grad * (tg - (tx * tg).sum(-1, True))).sum(0)
    np.testing.assert_allclose(alpha.grad.numpy(), expected.numpy(), rtol=1e-9)


def test_rsample_gradients_are_unbiased():
    """d E[x] / d theta from the samples' gradients matches the analytic derivative."""
    mg.manual_seed(2)
    c1 = mg.tensor([0.7, 3.0], requires_grad=True)
    D.Beta(c1, mg.tensor([2.0, 0.5])).rsample((20000,)).mean(0).sum().backward()
    a, b = np.array([0.7, 3.0]), np.array([2.0, 0.5])
    np.testing.assert_allclose(c1.grad.numpy(), b / (a + b) ** 2, rtol=0.05)
    c = mg.tensor([0.4, 5.0], requires_grad=True)
    D.Gamma(c, 1.0).rsample((20000,)).var(0).sum().backward()  # Var = c: derivative 1
    np.testing.assert_allclose(c.grad.numpy(), [1.0, 1.0], rtol=0.1)


def test_dirichlet_rsample_refuses_double_backward():
    alpha = mg.tensor([1.0, 2.0], requires_grad=True)
    x = D.Dirichlet(alpha).rsample()
    (g,) = mg.autograd.grad(x[0], alpha, create_graph=True)
    with pytest.raises(RuntimeError):
        g.sum().backward()


# --- sampling -----------------------------------------------------------------------------

N = 20000
SAMPLED = ["Gamma", "Chi2", "Beta", "Dirichlet", "Kumaraswamy", "Poisson",
           "Binomial", "BinomialLogits", "NegativeBinomial", "Multinomial",
           "MixtureSameFamily", "LowRankMultivariateNormal", "ContinuousBernoulli"]


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_moments_match_the_distribution(name):
    mg.manual_seed(3)
    m_dist, t_dist = _both(name)[:2]
    samples = m_dist.sample((N,)).numpy()
    mean, std = t_dist.mean.detach().numpy(), t_dist.stddev.detach().numpy()
    # 5 standard errors of the mean, and of the variance (from the 4th moment)
    np.testing.assert_array_less(np.abs(samples.mean(0) - mean), 5 * std / math.sqrt(N) + 1e-12)
    centred = samples - mean
    var_se = np.sqrt(((centred ** 4).mean(0) - std ** 4) / N)
    np.testing.assert_array_less(np.abs(centred.var(0) - std ** 2), 5 * var_se + 1e-12)


HEAVY = {  # scipy.stats' CDF of each batch entry
    "StudentT": lambda df, loc, s: (lambda v: stats.t.cdf(v, df, loc, s)),
    "FisherSnedecor": lambda d1, d2: (lambda v: stats.f.cdf(v, d1, d2)),
    "InverseGamma": lambda c, r: (lambda v: stats.invgamma.cdf(v, c, scale=r)),
}


@pytest.mark.parametrize("name", HEAVY)
def test_heavy_tailed_samples_follow_the_cdf(name):
    """Their moments may not exist: a Kolmogorov-Smirnov distance to the CDF instead."""
    mg.manual_seed(4)
    m_dist = _both(name)[0]
    samples = np.sort(m_dist.sample((N,)).numpy(), axis=0)
    params = np.broadcast_arrays(*[np.asarray(p, dtype=float) for p in CASES[name][1]])
    for column in range(samples.shape[1]):
        cdf = HEAVY[name](*[p[column] for p in params])(samples[:, column])
        distance = np.max(np.abs(cdf - np.arange(1, N + 1) / N))
        assert distance < 1.95 / math.sqrt(N)  # the 0.1% critical value


def test_samples_are_reproducible_under_a_seed():
    for name in ["Gamma", "Dirichlet", "Poisson", "Binomial", "NegativeBinomial", "StudentT"]:
        dist = _both(name)[0]
        mg.manual_seed(5)
        first = dist.sample((3,)).numpy()
        mg.manual_seed(5)
        np.testing.assert_array_equal(dist.sample((3,)).numpy(), first)


@pytest.mark.parametrize("name", CASES)
def test_shapes_match_torch(name):
    m_dist, t_dist = _both(name)[:2]
    assert tuple(m_dist.batch_shape) == tuple(t_dist.batch_shape)
    assert tuple(m_dist.event_shape) == tuple(t_dist.event_shape)
    assert tuple(m_dist.sample((2, 5)).shape) == tuple(t_dist.sample((2, 5)).shape)
    if t_dist.has_rsample:
        assert m_dist.has_rsample
        assert tuple(m_dist.rsample((3,)).shape) == tuple(t_dist.rsample((3,)).shape)
    wider = (7,) + tuple(t_dist.batch_shape)
    m_wide, t_wide = m_dist.expand(wider), t_dist.expand(wider)
    assert type(m_wide) is type(m_dist)
    assert tuple(m_wide.sample().shape) == tuple(t_wide.sample().shape)
    value = CASES[name][3]
    _close(m_wide.log_prob(mg.tensor(value)), t_wide.log_prob(torch.tensor(value)))


def test_reprs_match_torch():
    for name in ["Gamma", "Beta", "Dirichlet", "Poisson", "Binomial", "StudentT", "InverseGamma"]:
        m_dist, t_dist = _both(name)[:2]
        assert repr(m_dist).replace("minigrad.", "torch.") == repr(t_dist)


def test_count_samplers_refuse_as_torch():
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-neg"):
        mg.poisson(mg.tensor([-1.0]))
    with pytest.raises(NotImplementedError, match="poisson_cpu"):
        mg.poisson(mg.tensor([1]))
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count, "
                                         "got: Long"):
        mg.binomial(mg.tensor([3]), mg.tensor([0.5]))
    # out-of-range inputs clip as in torch: no trials give 0, p > 1 gives every trial
    counts = mg.binomial(mg.tensor([-3.0, 4.0]), mg.tensor([0.5, 1.5]))
    assert counts.tolist() == [0.0, 4.0]


# --- validation ---------------------------------------------------------------------------

BAD_PARAMETERS = [
    lambda M, x: x.Gamma(M.tensor([1.0, -1.0]), M.tensor([1.0, 1.0])),
    lambda M, x: x.Chi2(M.tensor([0.0])),
    lambda M, x: x.Beta(M.tensor([1.0]), M.tensor([-2.0])),
    lambda M, x: x.Dirichlet(M.tensor([1.0, 0.0])),
    lambda M, x: x.Dirichlet(M.tensor(1.0)),
    lambda M, x: x.StudentT(M.tensor([-1.0])),
    lambda M, x: x.InverseGamma(M.tensor([1.0]), M.tensor([0.0])),
    lambda M, x: x.FisherSnedecor(M.tensor([1.0]), M.tensor([-1.0])),
    lambda M, x: x.Kumaraswamy(M.tensor([-1.0]), M.tensor([1.0])),
    lambda M, x: x.Poisson(M.tensor([-0.5])),
    lambda M, x: x.Binomial(M.tensor([2.5]), M.tensor([0.5])),
    lambda M, x: x.Binomial(3, M.tensor([1.5])),
    lambda M, x: x.Binomial(3),
    lambda M, x: x.NegativeBinomial(M.tensor([2.0]), M.tensor([1.0])),
    lambda M, x: x.Multinomial(M.tensor(3), M.tensor([0.5, 0.5])),
    lambda M, x: x.Multinomial(3, M.tensor([0.5, -0.5])),
    lambda M, x: x.MixtureSameFamily(x.Normal(0.0, 1.0), x.Normal(M.zeros(2), M.ones(2))),
    lambda M, x: x.MixtureSameFamily(x.Categorical(M.ones(3)), x.Normal(M.zeros(2), M.ones(2))),
    lambda M, x: x.LowRankMultivariateNormal(M.zeros(3), M.ones(3, 1), M.tensor([1.0, 0.0, 1.0])),
    lambda M, x: x.LowRankMultivariateNormal(M.zeros(3), M.ones(2, 1), M.ones(3)),
    lambda M, x: x.LowRankMultivariateNormal(M.zeros(3), M.ones(3), M.ones(3)),
    lambda M, x: x.ContinuousBernoulli(M.tensor([1.5]), validate_args=True),
    lambda M, x: x.ContinuousBernoulli(),
]

BAD_VALUES = [
    (lambda M, x: x.Gamma(M.ones(2), M.ones(2)), lambda M: M.tensor([1.0, -1.0])),
    (lambda M, x: x.Beta(M.ones(2), M.ones(2)), lambda M: M.tensor([0.5, 1.5])),
    (lambda M, x: x.Dirichlet(M.ones(3)), lambda M: M.tensor([0.5, 0.6, 0.1])),
    (lambda M, x: x.Poisson(M.ones(2)), lambda M: M.tensor([1.5, 2.0])),
    (lambda M, x: x.Binomial(3, M.tensor([0.5, 0.5])), lambda M: M.tensor([1.0, 4.0])),
    (lambda M, x: x.NegativeBinomial(3.0, M.tensor([0.5, 0.5])), lambda M: M.tensor([-1.0, 4.0])),
    (lambda M, x: x.Multinomial(3, M.tensor([0.5, 0.5])), lambda M: M.tensor([3.0, 1.0])),
    (lambda M, x: x.InverseGamma(M.ones(2), M.ones(2)), lambda M: M.tensor([1.0, 0.0])),
    (lambda M, x: x.Kumaraswamy(M.ones(2), M.ones(2)), lambda M: M.tensor([1.0, 1.5])),
    (lambda M, x: x.MixtureSameFamily(x.Categorical(M.ones(2)), x.Gamma(M.ones(2), M.ones(2))),
     lambda M: M.tensor(-1.0)),
]


def _same_error(m_call, t_call):
    with pytest.raises(Exception) as t_err:
        t_call()
    with pytest.raises(type(t_err.value)) as m_err:
        m_call()
    assert str(m_err.value).replace("minigrad.", "torch.") == str(t_err.value)


@pytest.mark.parametrize("make", BAD_PARAMETERS)
def test_bad_parameters_raise_as_torch(make):
    _same_error(lambda: make(mg, D), lambda: make(torch, TD))


@pytest.mark.parametrize("make,value", BAD_VALUES)
def test_values_outside_the_support_raise_as_torch(make, value):
    _same_error(lambda: make(mg, D).log_prob(value(mg)),
                lambda: make(torch, TD).log_prob(value(torch)))


# --- the GPU namespace (CuPy-like fake backend, or the real GPU on a device run) ----------

ON_GPU = [
    lambda p: D.Gamma(p.exp(), p.exp()),
    lambda p: D.Chi2(p.exp()),
    lambda p: D.Beta(p.exp(), 2.0),
    lambda p: D.Dirichlet(p.exp()),
    lambda p: D.StudentT(p.exp() + 2, p, p.exp()),
    lambda p: D.InverseGamma(p.exp(), p.exp()),
    lambda p: D.FisherSnedecor(p.exp(), p.exp() + 4),
    lambda p: D.Kumaraswamy(p.exp(), p.exp()),
    lambda p: D.Poisson(p.exp()),
    lambda p: D.Binomial(5, logits=p),
    lambda p: D.NegativeBinomial(2.0, logits=p),
    lambda p: D.Multinomial(4, logits=p),
    lambda p: D.MixtureSameFamily(D.Categorical(logits=p), D.Normal(p, p.exp())),
    lambda p: D.LowRankMultivariateNormal(p, p.exp().unsqueeze(-1), p.exp()),
    lambda p: D.ContinuousBernoulli(logits=p),
]


@pytest.mark.parametrize("make", ON_GPU)
def test_distributions_run_on_the_gpu(fake_gpu, make):
    cpu = mg.tensor([0.1, -0.3, 0.5], dtype=mg.float64, requires_grad=True)
    gpu = cpu.detach().to("cuda").requires_grad_()
    d = make(gpu)
    value = d.sample((2,))
    assert value.is_cuda

    def terms(dist):
        loss = dist.log_prob(value.to(dist.mean.device)).sum()
        try:
            return loss + dist.entropy().sum()
        except NotImplementedError:  # as in torch (Poisson, MixtureSameFamily ...)
            return loss
    loss = terms(d)
    if d.has_rsample:
        loss = loss + d.rsample().sum()
    loss.backward()
    assert gpu.grad.is_cuda
    np.testing.assert_allclose(terms(d).item(), terms(make(cpu)).item(), rtol=1e-9)
