"""The distributions built on transforms (TransformedDistribution, LogNormal, Gumbel,
HalfNormal, HalfCauchy, Pareto, Weibull, LogisticNormal, the relaxed ones) and Exponential,
Laplace, Cauchy, Geometric, OneHotCategorical(StraightThrough), against torch.distributions
in float64: values and parameter gradients of log_prob / entropy / moments / cdf / icdf /
kl_divergence, shapes, expand, reprs, validation errors, sample statistics and rsample
gradients."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import distributions as D


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _as_torch(text):
    return text.replace("minigrad.", "torch.")


R = np.random.RandomState(7)
LOC = R.randn(3, 4)
POS = R.rand(3, 4) + 0.5
POS2 = R.rand(3, 4) + 2.5  # Pareto alphas with finite variance
UNIT = R.rand(3, 4) * 0.8 + 0.1
LOGITS = R.randn(3, 5)
PROBS = R.rand(3, 5) + 0.1
TEMP = np.array(0.7)
REAL_VALUE = R.randn(2, 3, 4) * 2
POS_VALUE = R.rand(2, 3, 4) * 3 + 0.01
UNIT_VALUE = R.rand(2, 3, 4) * 0.9 + 0.05
COUNTS = R.randint(0, 6, size=(2, 3, 4)).astype(np.float64)
ONE_HOT = np.eye(5)[R.randint(0, 5, size=(2, 3))]
SIMPLEX5 = R.dirichlet(np.ones(5), size=(2, 3))

# name -> (make(M, X, *params), params, value); M is the library, X its distributions
CASES = {
    "exponential": (lambda M, X, r: X.Exponential(r), [POS], POS_VALUE),
    "laplace": (lambda M, X, l, s: X.Laplace(l, s), [LOC, POS], REAL_VALUE),
    "cauchy": (lambda M, X, l, s: X.Cauchy(l, s), [LOC, POS], REAL_VALUE),
    "geometric_probs": (lambda M, X, p: X.Geometric(probs=p), [UNIT], COUNTS),
    "geometric_logits": (lambda M, X, z: X.Geometric(logits=z), [LOC], COUNTS),
    "onehot_probs": (lambda M, X, p: X.OneHotCategorical(probs=p), [PROBS], ONE_HOT),
    "onehot_logits": (lambda M, X, z: X.OneHotCategorical(logits=z), [LOGITS], ONE_HOT),
    "onehot_st": (lambda M, X, z: X.OneHotCategoricalStraightThrough(logits=z), [LOGITS],
                  ONE_HOT),
    "lognormal": (lambda M, X, l, s: X.LogNormal(l, s), [LOC, POS], POS_VALUE),
    "gumbel": (lambda M, X, l, s: X.Gumbel(l, s), [LOC, POS], REAL_VALUE),
    "halfnormal": (lambda M, X, s: X.HalfNormal(s), [POS], POS_VALUE),
    "halfcauchy": (lambda M, X, s: X.HalfCauchy(s), [POS], POS_VALUE),
    "pareto": (lambda M, X, s, a: X.Pareto(s, a), [POS * 0.01, POS2], POS_VALUE),
    "weibull": (lambda M, X, s, c: X.Weibull(s, c), [POS, POS + 0.5], POS_VALUE),
    "logisticnormal": (lambda M, X, l, s: X.LogisticNormal(l, s), [LOC, POS], SIMPLEX5),
    "relaxed_bernoulli": (lambda M, X, t, p: X.RelaxedBernoulli(t, probs=p), [TEMP, UNIT],
                          UNIT_VALUE),
    "logit_relaxed_bernoulli": (lambda M, X, t, z: X.relaxed_bernoulli.LogitRelaxedBernoulli(
        t, logits=z),
                                [TEMP, LOC], REAL_VALUE),
    "relaxed_onehot": (lambda M, X, t, z: X.RelaxedOneHotCategorical(t, logits=z),
                       [TEMP, LOGITS], SIMPLEX5),
    "transformed": (lambda M, X, l, s: X.TransformedDistribution(
        X.Normal(l, s), [X.transforms.AffineTransform(0.5, 2.0), X.transforms.TanhTransform()]),
        [LOC, POS], UNIT_VALUE * 1.8 - 0.9),
    "transformed_power": (lambda M, X, l, s: X.TransformedDistribution(
        X.LogNormal(l, s), X.transforms.PowerTransform(-M.ones(4) * 0.5)), [LOC, POS],
        POS_VALUE),
}


def _build(torch, name):
    """(minigrad dist, torch dist, minigrad leaves, torch leaves, value)."""
    make, params, value = CASES[name]
    mp = [mg.tensor(p, requires_grad=True) for p in params]
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    return make(mg, D, *mp), make(torch, torch.distributions, *tp), mp, tp, value


def _check(m_out, t_out, m_params, t_params, rtol=1e-9):
    """Same values, and same gradients of a weighted sum w.r.t. every parameter."""
    import torch
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol,
                               atol=1e-11)
    if not t_out.requires_grad:
        return
    weights = np.linspace(0.5, 1.5, max(t_out.numel(), 1)).reshape(tuple(t_out.shape))
    m_grads = mg.autograd.grad((m_out * mg.tensor(weights)).sum(), m_params, allow_unused=True,
                               retain_graph=True)
    t_grads = torch.autograd.grad((t_out * torch.tensor(weights)).sum(), t_params,
                                  allow_unused=True, retain_graph=True)
    for mgrad, tgrad in zip(m_grads, t_grads):
        if tgrad is None:
            assert mgrad is None or not mgrad.numpy().any()
        else:
            np.testing.assert_allclose(mgrad.numpy(), tgrad.numpy(), rtol=rtol, atol=1e-10)


def _compare_or_same_error(m_call, t_call, mp, tp):
    """Both give the same values and gradients, or both raise the same exception type."""
    try:
        t_out = t_call()
    except Exception as raised:
        with pytest.raises(type(raised)):
            m_call()
        return False
    _check(m_call(), t_out, mp, tp)
    return True


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_entropy_and_moments_match_torch(torch, name):
    m, t, mp, tp, value = _build(torch, name)
    _check(m.log_prob(mg.tensor(value)), t.log_prob(torch.tensor(value)), mp, tp)
    _compare_or_same_error(m.entropy, t.entropy, mp, tp)
    for what in ("mean", "variance", "stddev", "mode"):
        _compare_or_same_error(lambda: getattr(m, what), lambda: getattr(t, what), mp, tp)


@pytest.mark.parametrize("name", list(CASES))
def test_cdf_and_icdf_match_torch(torch, name):
    m, t, mp, tp, value = _build(torch, name)
    _compare_or_same_error(lambda: m.cdf(mg.tensor(value)), lambda: t.cdf(torch.tensor(value)),
                           mp, tp)
    q = np.linspace(0.05, 0.95, 12).reshape(3, 4)
    _compare_or_same_error(lambda: m.icdf(mg.tensor(q)), lambda: t.icdf(torch.tensor(q)), mp, tp)


def test_the_cdfs_this_file_relies_on_exist():
    # a guard: the generic comparison above must not pass only because both sides raise
    for d in (D.Exponential(1.0), D.Laplace(0.0, 1.0), D.Cauchy(0.0, 1.0), D.LogNormal(0.0, 1.0),
              D.Gumbel(0.0, 1.0), D.HalfNormal(1.0), D.HalfCauchy(1.0), D.Pareto(1.0, 2.0),
              D.Weibull(1.0, 2.0)):
        x = d.icdf(mg.tensor(0.3))
        np.testing.assert_allclose(d.cdf(x).item(), 0.3, rtol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_shapes_reprs_constraints_and_expand_match_torch(torch, name):
    m, t, mp, tp, value = _build(torch, name)
    assert tuple(m.batch_shape) == tuple(t.batch_shape)
    assert tuple(m.event_shape) == tuple(t.event_shape)
    assert m.has_rsample == t.has_rsample
    assert m.has_enumerate_support == t.has_enumerate_support
    assert _as_torch(repr(m)) == repr(t)
    assert _as_torch(repr(m.support)) == repr(t.support)
    assert {k: repr(v) for k, v in m.arg_constraints.items()} == \
        {k: repr(v) for k, v in t.arg_constraints.items()}
    assert tuple(m.sample((2,)).shape) == tuple(t.sample((2,)).shape)
    shape = (2,) + tuple(t.batch_shape)
    me, te = m.expand(shape), t.expand(shape)
    assert type(me) is type(m)
    assert tuple(me.batch_shape) == tuple(te.batch_shape)
    assert tuple(me.event_shape) == tuple(te.event_shape)
    assert tuple(me.sample().shape) == tuple(te.sample().shape)
    _check(me.log_prob(mg.tensor(value)), te.log_prob(torch.tensor(value)), mp, tp)


def test_scalar_parameters_give_an_empty_batch_shape(torch):
    for make in (lambda X: X.Exponential(2.0), lambda X: X.Laplace(0.0, 1.0),
                 lambda X: X.Cauchy(0.0, 1.0), lambda X: X.Geometric(0.3),
                 lambda X: X.LogNormal(0.0, 1.0), lambda X: X.Gumbel(0.0, 1.0),
                 lambda X: X.HalfNormal(1.0), lambda X: X.Pareto(1.0, 2.0),
                 lambda X: X.Weibull(1.0, 2.0), lambda X: X.LogisticNormal(0.0, 1.0)):
        m, t = make(D), make(torch.distributions)
        assert (tuple(m.batch_shape), tuple(m.event_shape)) == \
            (tuple(t.batch_shape), tuple(t.event_shape))
        assert m.sample().dtype == mg.float32 and tuple(m.sample((3,)).shape) == \
            tuple(t.sample((3,)).shape)


@pytest.mark.parametrize("expand", [True, False])
def test_onehot_enumerate_support_matches_torch(torch, expand):
    m = D.OneHotCategorical(logits=mg.zeros(2, 3)).enumerate_support(expand)
    t = torch.distributions.OneHotCategorical(logits=torch.zeros(2, 3)).enumerate_support(expand)
    np.testing.assert_array_equal(m.numpy(), t.numpy())


# --- sampling -----------------------------------------------------------------------------
N = 20000


def _empirical_cdf_matches(samples, d, points):
    for x in points:
        if not bool(d.support.check(mg.tensor(float(x))).all()):
            continue
        expected = d.cdf(mg.tensor(float(x), dtype=mg.float64)).detach().numpy()
        observed = (samples <= x).mean(0)
        assert np.abs(observed - expected).max() < 0.02, (x, observed, expected)


@pytest.mark.parametrize("make", [
    lambda: D.Exponential(mg.tensor([0.5, 2.0])), lambda: D.Laplace(mg.tensor([0.0, 1.0]), 2.0),
    lambda: D.Cauchy(mg.tensor([0.0, 1.0]), 0.5), lambda: D.LogNormal(mg.tensor([0.0, 0.5]), 0.7),
    lambda: D.Gumbel(mg.tensor([0.0, 1.0]), 2.0), lambda: D.HalfNormal(mg.tensor([0.5, 2.0])),
    lambda: D.HalfCauchy(mg.tensor([0.5, 2.0])), lambda: D.Pareto(mg.tensor([1.0, 2.0]), 3.0),
    lambda: D.Weibull(mg.tensor([1.0, 2.0]), 1.5),
])
def test_samples_follow_the_cdf(make):
    d = make()
    mg.manual_seed(0)
    samples = d.sample((N,)).numpy()
    _empirical_cdf_matches(samples, d, [0.2, 0.7, 1.5, 3.0, -1.0])


@pytest.mark.parametrize("make", [
    lambda: D.Geometric(probs=mg.tensor([0.2, 0.7])),
    lambda: D.OneHotCategorical(probs=mg.tensor([0.2, 0.5, 0.3])),
    lambda: D.RelaxedBernoulli(mg.tensor(0.5), probs=mg.tensor([0.2, 0.7])),
    lambda: D.RelaxedOneHotCategorical(mg.tensor(1.0), logits=mg.tensor([0.0, 1.0, -1.0])),
    lambda: D.LogisticNormal(mg.tensor([0.0, 1.0]), mg.tensor([0.5, 0.2])),
])
def test_sample_means_match_the_distribution(make):
    d = make()
    mg.manual_seed(0)
    samples = d.sample((N,)).numpy()
    try:
        mean, std = d.mean.detach().numpy(), d.stddev.detach().numpy()
    except NotImplementedError:
        # no closed form: the mean of the reparametrised samples, by a second draw
        mg.manual_seed(1)
        other = d.rsample((N,)).detach().numpy()
        mean, std = other.mean(0), other.std(0)
    assert np.all(np.abs(samples.mean(0) - mean) < 5 * std / np.sqrt(N) + 1e-3)


def test_relaxed_samples_approach_hard_draws_at_low_temperature():
    mg.manual_seed(0)
    probs = mg.tensor([0.2, 0.5, 0.3])
    hard = D.RelaxedOneHotCategorical(mg.tensor(0.01), probs=probs).sample((N,)).numpy()
    assert (hard.max(-1) > 0.99).mean() > 0.95
    np.testing.assert_allclose(hard.mean(0), probs.numpy(), atol=0.02)
    coin = D.RelaxedBernoulli(mg.tensor(0.01), probs=mg.tensor(0.3)).sample((N,)).numpy()
    assert abs((coin > 0.5).mean() - 0.3) < 0.02


def test_samples_are_reproducible_and_in_the_support():
    for d in (D.Exponential(1.0), D.Geometric(0.3), D.HalfNormal(1.0), D.Pareto(2.0, 1.0),
              D.LogisticNormal(mg.zeros(3), mg.ones(3)), D.OneHotCategorical(mg.ones(4))):
        mg.manual_seed(5)
        a = d.sample((50,))
        mg.manual_seed(5)
        np.testing.assert_array_equal(a.numpy(), d.sample((50,)).numpy())
        assert bool(d.support.check(a).all())


RSAMPLED = [
    lambda a, b: D.Exponential(b),
    lambda a, b: D.Laplace(a, b),
    lambda a, b: D.Cauchy(a, b),
    lambda a, b: D.LogNormal(a, b),
    lambda a, b: D.Gumbel(a, b),
    lambda a, b: D.HalfNormal(b),
    lambda a, b: D.HalfCauchy(b),
    lambda a, b: D.Pareto(b, b + 1),
    lambda a, b: D.Weibull(b, b + 0.5),
    lambda a, b: D.LogisticNormal(a, b),
    lambda a, b: D.RelaxedBernoulli(b, logits=a),
    lambda a, b: D.RelaxedOneHotCategorical(b[0], logits=a),
    lambda a, b: D.TransformedDistribution(D.Normal(a, b), [D.SigmoidTransform()]),
]


@pytest.mark.parametrize("make", RSAMPLED)
def test_rsample_gradients_pass_gradcheck(make):
    a = mg.tensor([0.3, -0.4, 0.8], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([0.6, 1.2, 0.9], dtype=mg.float64, requires_grad=True)

    def draw(a, b):
        mg.manual_seed(0)  # the same noise at every evaluation
        return make(a, b).rsample((4,))
    assert make(a, b).has_rsample
    assert mg.autograd.gradcheck(draw, (a, b), atol=1e-6, rtol=1e-4)


def test_exponential_rsample_gradient_is_minus_sample_over_rate(torch):
    rate = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    x = D.Exponential(rate).rsample()
    x.sum().backward()
    np.testing.assert_allclose(rate.grad.numpy(), -(x / rate).detach().numpy())


def test_straight_through_rsample_passes_the_probs_gradient():
    logits = mg.tensor([0.2, -0.1, 0.5], dtype=mg.float64, requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(logits=logits)
    x = d.rsample()
    assert bool(D.constraints.one_hot.check(x.detach()))
    weights = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    expected, = mg.autograd.grad((d.probs * weights).sum(), [logits], retain_graph=True)
    (x * weights).sum().backward()
    np.testing.assert_allclose(logits.grad.numpy(), expected.numpy())


def test_rsample_loss_gradient_matches_torch_through_shared_noise(torch):
    # the same uniform noise on both sides: icdf(u) is what rsample computes
    u = np.random.RandomState(0).rand(6, 3) * 0.9 + 0.05
    for make in (lambda X, a, b: X.Exponential(b), lambda X, a, b: X.Laplace(a, b),
                 lambda X, a, b: X.Cauchy(a, b), lambda X, a, b: X.Gumbel(a, b),
                 lambda X, a, b: X.Weibull(b, b + 1), lambda X, a, b: X.Pareto(b, b + 1)):
        ma, mb = (mg.tensor(v[0, :3], requires_grad=True) for v in (LOC, POS))
        ta, tb = (torch.tensor(v[0, :3], requires_grad=True) for v in (LOC, POS))
        m_out = make(D, ma, mb).icdf(mg.tensor(u)).sin()
        t_out = make(torch.distributions, ta, tb).icdf(torch.tensor(u)).sin()
        _check(m_out, t_out, [ma, mb], [ta, tb])


# --- KL divergence --------------------------------------------------------------------------
def _normal(X, a, b):
    return X.Normal(a, b)


KL_MAKERS = {
    "normal": _normal,
    "exponential": lambda X, a, b: X.Exponential(b),
    "laplace": lambda X, a, b: X.Laplace(a, b),
    "cauchy": lambda X, a, b: X.Cauchy(a, b),
    "gumbel": lambda X, a, b: X.Gumbel(a, b),
    "halfnormal": lambda X, a, b: X.HalfNormal(b),
    "pareto": lambda X, a, b: X.Pareto(b, b + 2.5),
    "uniform": lambda X, a, b: X.Uniform(a, a + b + 1),
    "geometric": lambda X, a, b: X.Geometric(logits=a),
    "onehot": lambda X, a, b: X.OneHotCategorical(logits=a),
    "lognormal": lambda X, a, b: X.LogNormal(a, b),
    "transformed": lambda X, a, b: X.TransformedDistribution(
        X.Normal(a, b), [X.transforms.ExpTransform(), X.transforms.AffineTransform(1.0, 2.0)]),
}
KL_PAIRS = [
    ("exponential", "exponential"), ("laplace", "laplace"), ("cauchy", "cauchy"),
    ("gumbel", "gumbel"), ("halfnormal", "halfnormal"), ("pareto", "pareto"),
    ("geometric", "geometric"), ("onehot", "onehot"), ("lognormal", "lognormal"),
    ("transformed", "transformed"), ("exponential", "gumbel"), ("exponential", "normal"),
    ("exponential", "pareto"), ("exponential", "uniform"), ("gumbel", "normal"),
    ("gumbel", "exponential"), ("gumbel", "uniform"), ("gumbel", "pareto"),
    ("laplace", "normal"), ("laplace", "exponential"), ("laplace", "pareto"),
    ("laplace", "uniform"), ("normal", "gumbel"), ("normal", "laplace"),
    ("normal", "exponential"), ("normal", "pareto"), ("normal", "uniform"),
    ("pareto", "exponential"), ("pareto", "normal"), ("pareto", "uniform"),
    ("uniform", "exponential"), ("uniform", "gumbel"), ("uniform", "normal"),
    ("uniform", "pareto"),
]


@pytest.mark.parametrize("p,q", KL_PAIRS)
def test_kl_divergence_matches_torch(torch, p, q):
    rs = np.random.RandomState(len(p) * 7 + len(q))
    arrays = [rs.randn(2, 3), rs.rand(2, 3) + 0.5, rs.randn(2, 3), rs.rand(2, 3) + 0.5]
    if p == "uniform":
        arrays[0] = np.abs(arrays[0]) + 0.1  # inside Exponential's support
    mp = [mg.tensor(a, requires_grad=True) for a in arrays]
    tp = [torch.tensor(a, requires_grad=True) for a in arrays]
    m_kl = D.kl_divergence(KL_MAKERS[p](D, *mp[:2]), KL_MAKERS[q](D, *mp[2:]))
    t_kl = torch.distributions.kl_divergence(KL_MAKERS[p](torch.distributions, *tp[:2]),
                                             KL_MAKERS[q](torch.distributions, *tp[2:]))
    _check(m_kl, t_kl, mp, tp)


def test_kl_infinite_where_supports_do_not_nest(torch):
    for X, M in ((D, mg), (torch.distributions, torch)):
        pareto = X.kl_divergence(X.Pareto(M.tensor([1.0, 3.0]), 2.0), X.Pareto(2.0, 2.0))
        uniform = X.kl_divergence(X.Uniform(M.tensor([-1.0, 1.0]), 4.0), X.Exponential(1.0))
        heavy = X.kl_divergence(X.Pareto(1.0, M.tensor([0.5, 3.0])), X.Exponential(1.0))
        assert [v.isinf().tolist() for v in (pareto, uniform, heavy)] == \
            [[True, False], [True, False], [True, False]]


def test_kl_of_transformed_with_different_transforms_is_not_implemented():
    p = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.ExpTransform()])
    q = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.SigmoidTransform()])
    with pytest.raises(NotImplementedError):
        D.kl_divergence(p, q)
    assert D.kl_divergence(D.Weibull(1.0, 2.0), D.Weibull(1.0, 2.0)).item() == 0.0


# --- validation -----------------------------------------------------------------------------
BAD_PARAMETERS = [
    lambda M, X: X.Exponential(M.tensor([1.0, -1.0])),
    lambda M, X: X.Laplace(M.tensor([0.0]), M.tensor([0.0])),
    lambda M, X: X.Cauchy(0.0, -2.0),
    lambda M, X: X.Geometric(probs=M.tensor([0.5, 1.5])),
    lambda M, X: X.Geometric(probs=M.tensor([0.5, 0.0])),
    lambda M, X: X.Geometric(),
    lambda M, X: X.OneHotCategorical(probs=M.tensor([0.5, -0.5])),
    lambda M, X: X.LogNormal(M.tensor([0.0]), M.tensor([-1.0])),
    lambda M, X: X.Gumbel(0.0, -1.0),
    lambda M, X: X.HalfNormal(M.tensor([-1.0])),
    lambda M, X: X.HalfCauchy(M.tensor([0.0])),
    lambda M, X: X.Pareto(M.tensor([1.0]), M.tensor([-2.0])),
    lambda M, X: X.Weibull(M.tensor([1.0]), M.tensor([0.0])),
    lambda M, X: X.RelaxedBernoulli(M.tensor(1.0), probs=M.tensor([2.0])),
    lambda M, X: X.RelaxedBernoulli(M.tensor(1.0)),
    lambda M, X: X.TransformedDistribution(X.Normal(0.0, 1.0), "exp"),
    lambda M, X: X.TransformedDistribution(X.Normal(0.0, 1.0), [X.transforms.ExpTransform, 1]),
    lambda M, X: X.TransformedDistribution(X.Normal(0.0, 1.0),
                                           [X.transforms.StickBreakingTransform()]),
]


@pytest.mark.parametrize("make", BAD_PARAMETERS)
def test_bad_parameters_raise_as_torch(torch, make):
    with pytest.raises(Exception) as expected:
        make(torch, torch.distributions)
    with pytest.raises(type(expected.value)) as got:
        make(mg, D)
    assert _as_torch(str(got.value)) == str(expected.value)


BAD_VALUES = [
    (lambda M, X: X.Exponential(1.0), lambda M: M.tensor([-1.0])),
    (lambda M, X: X.Geometric(0.5), lambda M: M.tensor([1.5])),
    (lambda M, X: X.OneHotCategorical(M.ones(3)), lambda M: M.tensor([1.0, 1.0, 0.0])),
    (lambda M, X: X.OneHotCategorical(M.ones(3)), lambda M: M.tensor([1.0, 0.0])),
    (lambda M, X: X.LogNormal(0.0, 1.0), lambda M: M.tensor([0.0])),
    (lambda M, X: X.HalfNormal(1.0), lambda M: M.tensor([-0.5])),
    (lambda M, X: X.Pareto(2.0, 1.0), lambda M: M.tensor([1.0])),
    (lambda M, X: X.RelaxedBernoulli(M.tensor(1.0), probs=0.3), lambda M: M.tensor([1.5])),
    (lambda M, X: X.LogisticNormal(M.zeros(2), M.ones(2)), lambda M: M.tensor([0.5, 0.6, 0.1])),
]


@pytest.mark.parametrize("make,value", BAD_VALUES)
def test_values_outside_the_support_raise_as_torch(torch, make, value):
    with pytest.raises(Exception) as expected:
        make(torch, torch.distributions).log_prob(value(torch))
    with pytest.raises(type(expected.value)) as got:
        make(mg, D).log_prob(value(mg))
    assert _as_torch(str(got.value)) == str(expected.value)


def test_validation_off_gives_torch_values_outside_the_support(torch):
    for make, value in ((lambda X: X.HalfNormal(1.0, validate_args=False), -0.5),
                        (lambda X: X.Exponential(2.0, validate_args=False), -1.0),
                        (lambda X: X.Pareto(2.0, 1.0, validate_args=False), 1.0)):
        m = make(D).log_prob(mg.tensor([value])).numpy()
        t = make(torch.distributions).log_prob(torch.tensor([value])).numpy()
        np.testing.assert_array_equal(m, t)


# --- device ---------------------------------------------------------------------------------
ON_DEVICE = [
    lambda p: D.Exponential(p.exp()), lambda p: D.Laplace(p, p.exp()),
    lambda p: D.Cauchy(p, p.exp()), lambda p: D.Geometric(logits=p),
    lambda p: D.OneHotCategoricalStraightThrough(logits=p), lambda p: D.LogNormal(p, p.exp()),
    lambda p: D.Gumbel(p, p.exp()), lambda p: D.HalfNormal(p.exp()),
    lambda p: D.HalfCauchy(p.exp()), lambda p: D.Pareto(p.exp(), p.exp() + 1),
    lambda p: D.Weibull(p.exp(), p.exp()), lambda p: D.LogisticNormal(p, p.exp()),
    lambda p: D.RelaxedBernoulli(p.exp()[0], logits=p),
    lambda p: D.RelaxedOneHotCategorical(p.exp()[0], logits=p),
]


@pytest.mark.parametrize("make", ON_DEVICE)
def test_distributions_run_on_the_gpu(fake_gpu, make):
    cpu = mg.tensor([0.1, -0.3, 0.5], requires_grad=True)
    gpu = cpu.detach().to("cuda").requires_grad_()
    d = make(gpu)
    v = d.sample((2,))
    assert v.is_cuda
    loss = d.log_prob(v).sum() + (d.rsample().sum() if d.has_rsample else 0)
    loss.backward()
    assert gpu.grad.is_cuda
    np.testing.assert_allclose(d.log_prob(v).sum().item(),
                               make(cpu).log_prob(v.cpu()).sum().item(), rtol=1e-5)


def test_kl_runs_on_the_gpu(fake_gpu):
    p = mg.tensor([0.1, -0.3, 0.5], device="cuda", requires_grad=True)
    for pair in ((D.Laplace(p, 1.0), D.Normal(0.0, 2.0)),
                 (D.Pareto(1.0, p.exp() + 3), D.Pareto(0.5, 2.0)),
                 (D.Uniform(p, p + 1), D.Gumbel(0.0, 1.0))):
        kl = D.kl_divergence(*pair)
        assert kl.is_cuda
        kl.sum().backward()
    assert p.grad.is_cuda


def test_exponential_has_torchs_exponential_family_form(torch):
    rate = np.array([0.5, 2.0])
    m, t = D.Exponential(mg.tensor(rate)), torch.distributions.Exponential(torch.tensor(rate))
    (m_eta,), (t_eta,) = m._natural_params, t._natural_params
    np.testing.assert_array_equal(m_eta.numpy(), t_eta.numpy())
    np.testing.assert_allclose(m._log_normalizer(m_eta).numpy(),
                               t._log_normalizer(t_eta).numpy(), rtol=1e-12)
    assert m._mean_carrier_measure == t._mean_carrier_measure


def test_transformed_distributions_work_under_compile():
    def nll(loc, scale, x):
        simplex = mg.cat([x, mg.ones(1)]).softmax(-1)
        return -(D.LogNormal(loc, scale).log_prob(x).sum() + D.Gumbel(loc, scale).log_prob(x).sum()
                 + D.LogisticNormal(loc, scale).log_prob(simplex)
                 + D.Weibull(scale, scale + 1).log_prob(x).sum())

    loc, scale, x = mg.zeros(3), mg.ones(3) * 2, mg.tensor([0.5, 1.0, 2.0])
    compiled = mg.compile(nll)(loc, scale, x).item()
    np.testing.assert_allclose(compiled, nll(loc, scale, x).item(), rtol=1e-6)
