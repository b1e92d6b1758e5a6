"""minigrad.distributions against torch.distributions: values and parameter gradients
of log_prob / entropy / cdf / icdf / moments / kl_divergence (float64), validation
errors, sample shapes and statistics, rsample gradients, and an RL and a VAE step."""
import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import distributions as D


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _pair(torch, array, grad=True):
    """The same float64 values as a minigrad and a torch leaf."""
    a = np.asarray(array, dtype=np.float64)
    return (mg.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


def _check(m_out, t_out, m_params, t_params):
    """Same values, and same gradients of a weighted sum w.r.t. every parameter."""
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    weights = np.linspace(0.5, 1.5, max(int(np.prod(t_out.shape)), 1)).reshape(tuple(t_out.shape))
    m_grads = mg.autograd.grad((m_out * mg.tensor(weights)).sum(), m_params, allow_unused=True,
                                retain_graph=True)
    t_grads = torch_module().autograd.grad((t_out * torch_module().tensor(weights)).sum(), t_params,
                                           allow_unused=True, retain_graph=True)
    for mgrad, tgrad in zip(m_grads, t_grads):
        if tgrad is None:
            assert mgrad is None or not mgrad.numpy().any()
        else:
            np.testing.assert_allclose(mgrad.numpy(), tgrad.numpy(), rtol=1e-9, atol=1e-11)


def _as_torch(text):
    """minigrad's reprs spelled as torch's (minigrad.Size -> torch.Size ...)."""
    return text.replace("minigrad.", "torch.")


def torch_module():
    import torch
    return torch


RNG = np.random.RandomState(0)
LOC, SCALE = RNG.randn(3, 4), RNG.rand(3, 4) + 0.5
VALUE = RNG.randn(2, 3, 4)
LOGITS = RNG.randn(3, 5)
PROBS = RNG.rand(3, 5) + 0.1
BLOGITS = RNG.randn(3, 4)
UNIT = RNG.rand(3, 4) * 0.9 + 0.05
TRIL = np.tril(RNG.randn(3, 3, 3) * 0.3) + 2 * np.eye(3)
COV = TRIL[0] @ TRIL[0].T + np.diag([0.5, 1.0, 2.0])


def _build(torch, name):
    """(minigrad dist, torch dist, minigrad params, torch params, a value in the support)."""
    if name == "normal":
        (ml, tl), (ms, ts) = _pair(torch, LOC), _pair(torch, SCALE)
        return D.Normal(ml, ms), torch.distributions.Normal(tl, ts), [ml, ms], [tl, ts], VALUE
    if name == "categorical_logits":
        ml, tl = _pair(torch, LOGITS)
        value = np.array([[0, 4, 2], [1, 1, 3]])
        return (D.Categorical(logits=ml), torch.distributions.Categorical(logits=tl),
                [ml], [tl], value)
    if name == "categorical_probs":
        mp, tp = _pair(torch, PROBS)
        value = np.array([0, 4, 2])
        return (D.Categorical(probs=mp), torch.distributions.Categorical(probs=tp),
                [mp], [tp], value)
    if name == "bernoulli_logits":
        ml, tl = _pair(torch, BLOGITS)
        value = (VALUE > 0).astype(np.float64)
        return D.Bernoulli(logits=ml), torch.distributions.Bernoulli(logits=tl), [ml], [tl], value
    if name == "bernoulli_probs":
        mp, tp = _pair(torch, UNIT)
        value = (VALUE > 0).astype(np.float64)
        return D.Bernoulli(probs=mp), torch.distributions.Bernoulli(probs=tp), [mp], [tp], value
    if name == "uniform":
        (ml, tl), (mh, th) = _pair(torch, LOC - 2), _pair(torch, LOC + SCALE + 2)
        value = LOC + 0.3 * VALUE
        return D.Uniform(ml, mh), torch.distributions.Uniform(tl, th), [ml, mh], [tl, th], value
    if name == "independent":
        (ml, tl), (ms, ts) = _pair(torch, LOC), _pair(torch, SCALE)
        return (D.Independent(D.Normal(ml, ms), 1),
                torch.distributions.Independent(torch.distributions.Normal(tl, ts), 1),
                [ml, ms], [tl, ts], VALUE)
    if name in ("mvn_cov", "mvn_tril", "mvn_prec"):
        a = RNG.randn(2, 4, 4)
        cov = a @ np.swapaxes(a, -1, -2) + np.eye(4)
        matrix = {"mvn_cov": cov, "mvn_prec": cov, "mvn_tril": np.linalg.cholesky(cov)}[name]
        kw = {"mvn_cov": "covariance_matrix", "mvn_prec": "precision_matrix",
              "mvn_tril": "scale_tril"}[name]
        (ml, tl), (mm, tm) = _pair(torch, LOC[:1]), _pair(torch, matrix)
        return (D.MultivariateNormal(ml, **{kw: mm}),
                torch.distributions.MultivariateNormal(tl, **{kw: tm}),
                [ml, mm], [tl, tm], VALUE[:, :2])
    raise AssertionError(name)


ALL = ["normal", "categorical_logits", "categorical_probs", "bernoulli_logits",
       "bernoulli_probs", "uniform", "independent", "mvn_cov", "mvn_tril", "mvn_prec"]


def _value_pair(torch, value):
    return mg.tensor(value), torch.tensor(value)


@pytest.mark.parametrize("name", ALL)
def test_log_prob_and_entropy_match_torch(torch, name):
    m, t, mp, tp, value = _build(torch, name)
    mv, tv = _value_pair(torch, value)
    _check(m.log_prob(mv), t.log_prob(tv), mp, tp)
    _check(m.entropy(), t.entropy(), mp, tp)


@pytest.mark.parametrize("name", ALL)
def test_shapes_moments_and_repr_match_torch(torch, name):
    m, t, mp, tp, _ = _build(torch, name)
    assert tuple(m.batch_shape) == tuple(t.batch_shape)
    assert tuple(m.event_shape) == tuple(t.event_shape)
    assert _as_torch(repr(m)) == repr(t)
    assert _as_torch(repr(m.support)) == repr(t.support)
    for moment in ("mean", "variance", "stddev", "mode"):
        m_out, t_out = getattr(m, moment), getattr(t, moment)
        if t_out.requires_grad:
            _check(m_out, t_out, mp, tp)
        else:
            np.testing.assert_allclose(m_out.detach().numpy(), t_out.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["normal", "uniform"])
def test_cdf_and_icdf_match_torch(torch, name):
    m, t, mp, tp, value = _build(torch, name)
    _check(m.cdf(mg.tensor(value)), t.cdf(torch.tensor(value)), mp, tp)
    q = np.linspace(0.05, 0.95, 12).reshape(3, 4)
    _check(m.icdf(mg.tensor(q)), t.icdf(torch.tensor(q)), mp, tp)


@pytest.mark.parametrize("name", ["normal", "categorical_logits", "bernoulli_probs", "uniform",
                                  "independent", "mvn_tril"])
def test_expand_matches_torch(torch, name):
    m, t, mp, tp, value = _build(torch, name)
    shape = (2,) + tuple(t.batch_shape)
    me, te = m.expand(shape), t.expand(shape)
    assert tuple(me.batch_shape) == tuple(te.batch_shape)
    assert tuple(me.event_shape) == tuple(te.event_shape)
    assert tuple(me.sample().shape) == tuple(te.sample().shape)
    mv, tv = _value_pair(torch, value)
    _check(me.log_prob(mv), te.log_prob(tv), mp, tp)


def test_second_order_gradient_of_log_prob_matches_torch(torch):
    (ml, tl), (ms, ts) = _pair(torch, LOC), _pair(torch, SCALE)
    m_lp = D.Normal(ml, ms).log_prob(mg.tensor(VALUE)).sum()
    t_lp = torch.distributions.Normal(tl, ts).log_prob(torch.tensor(VALUE)).sum()
    (mgs,) = mg.autograd.grad(m_lp, [ms], create_graph=True)
    (tgs,) = torch.autograd.grad(t_lp, [ts], create_graph=True)
    (mgg,) = mg.autograd.grad(mgs.sum(), [ms])
    (tgg,) = torch.autograd.grad(tgs.sum(), [ts])
    np.testing.assert_allclose(mgg.numpy(), tgg.numpy(), rtol=1e-10)


KL_PAIRS = [
    ("normal", lambda M, x, p: x.Normal(p(LOC), p(SCALE)),
     lambda M, x, p: x.Normal(p(LOC[::-1]), p(SCALE + 1))),
    ("categorical", lambda M, x, p: x.Categorical(logits=p(LOGITS)),
     lambda M, x, p: x.Categorical(probs=p(PROBS))),
    ("bernoulli", lambda M, x, p: x.Bernoulli(logits=p(BLOGITS)),
     lambda M, x, p: x.Bernoulli(probs=p(UNIT))),
    ("uniform", lambda M, x, p: x.Uniform(p(LOC - 1), p(LOC + 1)),
     lambda M, x, p: x.Uniform(p(LOC - 2), p(LOC + 3))),
    ("independent", lambda M, x, p: x.Independent(x.Normal(p(LOC), p(SCALE)), 1),
     lambda M, x, p: x.Independent(x.Normal(p(-LOC), p(SCALE * 2)), 1)),
    ("mvn", lambda M, x, p: x.MultivariateNormal(p(LOC[:, :3]), scale_tril=p(TRIL)),
     lambda M, x, p: x.MultivariateNormal(p(-LOC[0, :3]), covariance_matrix=p(COV))),
]


@pytest.mark.parametrize("name,make_p,make_q", KL_PAIRS)
def test_kl_divergence_matches_torch(torch, name, make_p, make_q):
    m_params, t_params = [], []

    def mp(a):
        m_params.append(mg.tensor(np.array(a, dtype=np.float64), requires_grad=True))
        return m_params[-1]

    def tp(a):
        t_params.append(torch.tensor(np.array(a, dtype=np.float64), requires_grad=True))
        return t_params[-1]

    m_kl = D.kl_divergence(make_p(mg, D, mp), make_q(mg, D, mp))
    t_kl = torch.distributions.kl_divergence(make_p(torch, torch.distributions, tp),
                                             make_q(torch, torch.distributions, tp))
    _check(m_kl, t_kl, m_params, t_params)


def test_kl_with_zero_probabilities_is_inf_or_finite_as_torch(torch):
    def kl(M, x, cls, a, b):
        dist = getattr(x, cls)
        return x.kl_divergence(dist(probs=M.tensor(a)), dist(probs=M.tensor(b)))

    p, q = [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]
    for a, b in ((p, q), (q, q), (p, p)):
        m, t = kl(mg, D, "Categorical", a, b), kl(torch, torch.distributions, "Categorical", a, b)
        assert m.item() == pytest.approx(t.item())
    a, b = [0.0, 1.0, 0.3], [1.0, 1.0, 0.0]
    m, t = kl(mg, D, "Bernoulli", a, b), kl(torch, torch.distributions, "Bernoulli", a, b)
    np.testing.assert_allclose(m.numpy(), t.numpy())


def test_register_kl_picks_the_most_specific_pair_and_unregistered_pairs_raise():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    inherited = D.kl_divergence(D.Normal(0.0, 1.0), q).item()
    assert D.kl_divergence(p, q).item() == pytest.approx(inherited)

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return mg.tensor(7.0)

    assert D.kl_divergence(p, q).item() == 7.0
    assert D.kl_divergence(q, q).item() == 0.0
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type "
                                                  "Cauchy and q type Normal"):
        D.kl_divergence(D.Cauchy(0.0, 1.0), q)
    with pytest.raises(TypeError, match="Distribution subclass"):
        D.register_kl(int, D.Normal)


# --- validation errors, as torch ---------------------------------------------------------

BAD_PARAMETERS = [
    lambda M, x: x.Normal(M.tensor([0.0, 1.0]), M.tensor([1.0, -1.0])),
    lambda M, x: x.Normal(M.tensor([float("nan")]), M.tensor([1.0])),
    lambda M, x: x.Categorical(probs=M.tensor([0.5, -0.1])),
    lambda M, x: x.Categorical(logits=M.tensor([float("nan"), 0.0])),
    lambda M, x: x.Bernoulli(probs=M.tensor([1.5])),
    lambda M, x: x.Uniform(M.tensor([1.0]), M.tensor([0.0])),
    lambda M, x: x.MultivariateNormal(M.zeros(2), M.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda M, x: x.MultivariateNormal(M.zeros(2), scale_tril=M.tensor([[1.0, 1.0], [0.0, 1.0]])),
]

BAD_CONSTRUCTION = [
    lambda M, x: x.Categorical(),
    lambda M, x: x.Categorical(probs=M.tensor([0.5, 0.5]), logits=M.tensor([0.0, 0.0])),
    lambda M, x: x.Categorical(logits=M.tensor(0.0)),
    lambda M, x: x.Bernoulli(),
    lambda M, x: x.Normal("a", 1.0),
    lambda M, x: x.Independent(x.Normal(M.zeros(2), M.ones(2)), 2),
    lambda M, x: x.MultivariateNormal(M.zeros(2)),
    lambda M, x: x.MultivariateNormal(M.tensor(0.0), M.eye(2)),
    lambda M, x: x.MultivariateNormal(M.zeros(2), scale_tril=M.ones(2)),
]

BAD_VALUES = [
    (lambda M, x: x.Normal(M.zeros(3), M.ones(3)), lambda M: M.tensor([0.0, float("nan"), 1.0])),
    (lambda M, x: x.Normal(M.zeros(3), M.ones(3)), lambda M: M.zeros(2)),
    (lambda M, x: x.Normal(M.zeros(3), M.ones(3)), lambda M: [0.0, 1.0, 2.0]),
    (lambda M, x: x.Categorical(logits=M.zeros(3)), lambda M: M.tensor(3)),
    (lambda M, x: x.Categorical(logits=M.zeros(3)), lambda M: M.tensor(1.5)),
    (lambda M, x: x.Bernoulli(probs=M.tensor([0.3, 0.4])), lambda M: M.tensor([0.5, 1.0])),
    (lambda M, x: x.Uniform(M.zeros(2), M.ones(2)), lambda M: M.tensor([0.5, 1.5])),
    (lambda M, x: x.MultivariateNormal(M.zeros(3), M.eye(3)), lambda M: M.zeros(2)),
]


def _same_error(torch, m_call, t_call):
    with pytest.raises(Exception) as t_err:
        t_call()
    with pytest.raises(type(t_err.value)) as m_err:
        m_call()
    assert _as_torch(str(m_err.value)) == str(t_err.value)


@pytest.mark.parametrize("make", BAD_PARAMETERS + BAD_CONSTRUCTION)
def test_bad_parameters_raise_as_torch(torch, make):
    _same_error(torch, lambda: make(mg, D), lambda: make(torch, torch.distributions))


@pytest.mark.parametrize("make,value", BAD_VALUES)
def test_values_outside_the_support_raise_as_torch(torch, make, value):
    _same_error(torch, lambda: make(mg, D).log_prob(value(mg)),
                lambda: make(torch, torch.distributions).log_prob(value(torch)))


def test_validation_can_be_turned_off():
    d = D.Normal(mg.tensor([0.0]), mg.tensor([-1.0]), validate_args=False)
    assert math.isnan(d.log_prob(mg.tensor([0.0])).item())
    assert D.Uniform(0.0, 1.0, validate_args=False).log_prob(mg.tensor(2.0)).item() == -math.inf


# --- sampling -----------------------------------------------------------------------------

@pytest.mark.parametrize("make,dtype", [
    (lambda: D.Normal(mg.zeros(3), mg.ones(3)), mg.float32),
    (lambda: D.Normal(mg.zeros(3, dtype=mg.float64), 1.0), mg.float64),
    (lambda: D.Categorical(logits=mg.zeros(3, 5)), mg.int64),
    (lambda: D.Bernoulli(probs=mg.full((3,), 0.3)), mg.float32),
    (lambda: D.Uniform(mg.zeros(3), 2.0), mg.float32),
    (lambda: D.Independent(D.Normal(mg.zeros(3), mg.ones(3)), 1), mg.float32),
    (lambda: D.MultivariateNormal(mg.zeros(3), mg.eye(3)), mg.float32),
])
def test_sample_shapes_and_dtypes(make, dtype):
    d = make()
    for sample_shape in [(), (4,), (2, 5)]:
        s = d.sample(sample_shape)
        assert tuple(s.shape) == tuple(sample_shape) + tuple(d.batch_shape) + tuple(d.event_shape)
        assert s.dtype == dtype
        assert not s.requires_grad
    assert D.Normal(0.0, 1.0).sample().shape == ()


def test_samples_are_reproducible_with_manual_seed():
    d = D.Normal(mg.zeros(4), mg.ones(4))
    c = D.Categorical(logits=mg.zeros(6))
    mg.manual_seed(3)
    first = d.sample((5,)), c.sample((5,))
    mg.manual_seed(3)
    second = d.sample((5,)), c.sample((5,))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("make", [
    lambda: D.Normal(mg.tensor([-1.0, 2.0], dtype=mg.float64),
                     mg.tensor([0.5, 3.0], dtype=mg.float64)),
    lambda: D.Categorical(probs=mg.tensor([0.1, 0.2, 0.7], dtype=mg.float64)),
    lambda: D.Bernoulli(logits=mg.tensor([-1.0, 0.5], dtype=mg.float64)),
    lambda: D.Uniform(mg.tensor([-1.0, 2.0], dtype=mg.float64),
                      mg.tensor([0.0, 5.0], dtype=mg.float64)),
])
def test_sample_statistics(make):
    mg.manual_seed(0)
    d = make()
    s = d.sample((40000,)).double()
    if isinstance(d, D.Categorical):  # mean/variance are nan: compare frequencies
        freq = np.bincount(s.numpy().astype(int), minlength=3) / len(s)
        np.testing.assert_allclose(freq, d.probs.numpy(), atol=0.01)
        return
    # 4 standard errors of the mean of 40000 draws
    np.testing.assert_allclose(s.mean(0).numpy(), d.mean.numpy(),
                               atol=4 * d.stddev.numpy().max() / 200)
    np.testing.assert_allclose(s.var(0).numpy(), d.variance.numpy(), rtol=0.05)


def test_multivariate_normal_sample_covariance():
    mg.manual_seed(0)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    d = D.MultivariateNormal(mg.tensor([1.0, -1.0], dtype=mg.float64), mg.tensor(cov))
    s = d.sample((40000,)).numpy()
    np.testing.assert_allclose(s.mean(0), [1.0, -1.0], atol=0.05)
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.06)


def test_normal_rsample_gradients_are_one_and_the_standardized_noise():
    loc = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    scale = mg.tensor([1.0, 2.0, 0.5], dtype=mg.float64, requires_grad=True)
    x = D.Normal(loc, scale).rsample((4,))
    assert x.requires_grad
    dloc, dscale = mg.autograd.grad(x.sum(), [loc, scale])
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(dloc.numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_allclose(dscale.numpy(), eps.sum(0).numpy(), rtol=1e-12)


def test_uniform_and_mvn_rsample_gradients():
    low = mg.tensor([0.0, 1.0], dtype=mg.float64, requires_grad=True)
    high = mg.tensor([1.0, 3.0], dtype=mg.float64, requires_grad=True)
    x = D.Uniform(low, high).rsample()
    u = (x.detach() - low.detach()) / (high.detach() - low.detach())
    dlow, dhigh = mg.autograd.grad(x.sum(), [low, high])
    np.testing.assert_allclose(dhigh.numpy(), u.numpy(), rtol=1e-12)
    np.testing.assert_allclose(dlow.numpy(), 1 - u.numpy(), rtol=1e-12)
    L = mg.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=mg.float64, requires_grad=True)
    y = D.MultivariateNormal(mg.zeros(2, dtype=mg.float64), scale_tril=L).rsample()
    eps = mg.linalg.solve_triangular(L.detach(), y.detach().unsqueeze(-1), upper=False).squeeze(-1)
    (dL,) = mg.autograd.grad(y.sum(), [L])  # d(L eps)_i / dL_ij = eps_j
    np.testing.assert_allclose(dL.numpy(), np.ones((2, 1)) * eps.numpy()[None], rtol=1e-12)


def test_distribution_works_under_compile():
    def nll(loc, scale, x):
        return -D.Normal(loc, scale).log_prob(x).sum()

    loc, scale, x = mg.zeros(3), mg.ones(3) * 2, mg.tensor([0.5, 1.0, -2.0])
    compiled = mg.compile(nll)(loc, scale, x).item()
    np.testing.assert_allclose(compiled, nll(loc, scale, x).item(), rtol=1e-6)


# --- small programs -----------------------------------------------------------------------

def test_reinforce_step_matches_torch(torch):
    rng = np.random.RandomState(1)
    w, b = rng.randn(4, 3) * 0.5, rng.randn(3) * 0.1
    obs, actions, returns = rng.randn(6, 4), rng.randint(0, 3, 6), rng.randn(6)

    def step(M, x, nn, optim):
        policy = nn.Linear(4, 3).double()
        with M.no_grad():
            policy.weight.copy_(M.tensor(w.T))
            policy.bias.copy_(M.tensor(b))
        opt = optim.SGD(policy.parameters(), lr=0.1)
        dist = x.Categorical(logits=policy(M.tensor(obs)))
        loss = -(dist.log_prob(M.tensor(actions)) * M.tensor(returns)).mean()
        loss = loss - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item(), policy.weight.detach().numpy(), policy.bias.detach().numpy()

    m = step(mg, D, mg.nn, mg.optim)
    t = step(torch, torch.distributions, torch.nn, torch.optim)
    assert m[0] == pytest.approx(t[0], rel=1e-12)
    np.testing.assert_allclose(m[1], t[1], rtol=1e-12)
    np.testing.assert_allclose(m[2], t[2], rtol=1e-12)


def test_vae_rsample_and_kl_to_standard_normal_match_torch(torch):
    rng = np.random.RandomState(2)
    mu, log_var, eps = rng.randn(5, 3), rng.randn(5, 3) * 0.3, rng.randn(5, 3)

    def vae_terms(M, x, mu, log_var):
        q = x.Normal(mu, (0.5 * log_var).exp())
        z = q.loc + q.scale * M.tensor(eps)  # rsample with the noise fixed
        prior = x.Normal(M.zeros_like(mu), M.ones_like(mu))
        kl = x.kl_divergence(q, prior).sum(-1)
        loss = (z.pow(2).sum(-1) + kl).mean()
        return loss, kl

    (mm, tm), (ml, tl) = _pair(torch, mu), _pair(torch, log_var)
    m_loss, m_kl = vae_terms(mg, D, mm, ml)
    t_loss, t_kl = vae_terms(torch, torch.distributions, tm, tl)
    np.testing.assert_allclose(m_kl.detach().numpy(), t_kl.detach().numpy(), rtol=1e-12)
    # the closed form of KL(N(mu, sigma) || N(0, 1))
    closed = 0.5 * (np.exp(log_var) + mu ** 2 - 1 - log_var).sum(-1)
    np.testing.assert_allclose(m_kl.detach().numpy(), closed, rtol=1e-12)
    _check(m_loss, t_loss, [mm, ml], [tm, tl])


# --- the GPU namespace (CuPy-like fake backend) ---------------------------------------------

@pytest.mark.parametrize("make,value", [
    (lambda p: D.Normal(p, p.exp()), lambda d: d.sample((2,))),
    (lambda p: D.Categorical(logits=p), lambda d: d.sample((2,))),
    (lambda p: D.Bernoulli(logits=p), lambda d: d.sample((2,))),
    (lambda p: D.Uniform(p - 1, p + 1), lambda d: d.sample((2,))),
    (lambda p: D.Independent(D.Normal(p, p.exp()), 1), lambda d: d.sample((2,))),
    (lambda p: D.MultivariateNormal(p, scale_tril=mg.eye(3, device=p.device) * 2),
     lambda d: d.sample((2,))),
])
def test_distributions_run_on_the_gpu(fake_gpu, make, value):
    cpu = mg.tensor([0.1, -0.3, 0.5], requires_grad=True)
    gpu = cpu.detach().to("cuda").requires_grad_()
    d = make(gpu)
    v = value(d)
    assert v.is_cuda
    loss = d.log_prob(v).sum() + d.entropy().sum()
    if d.has_rsample:
        loss = loss + d.rsample().sum()
    loss.backward()
    assert gpu.grad.is_cuda
    expected = make(cpu).log_prob(v.cpu()).sum() + make(cpu).entropy().sum()
    on_gpu = d.log_prob(v).sum() + d.entropy().sum()
    np.testing.assert_allclose(on_gpu.item(), expected.item(), rtol=1e-5)


@pytest.mark.parametrize("make", [lambda M, x: x.Categorical(logits=M.zeros(2, 3)),
                                  lambda M, x: x.Bernoulli(probs=M.tensor([0.2, 0.4]))])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches_torch(torch, make, expand):
    m = make(mg, D).enumerate_support(expand)
    t = make(torch, torch.distributions).enumerate_support(expand)
    assert _as_torch(str(m.dtype)) == str(t.dtype)
    np.testing.assert_array_equal(m.numpy(), t.numpy())


def test_mvn_kl_with_different_event_shapes_raises():
    p = D.MultivariateNormal(mg.zeros(2), mg.eye(2))
    q = D.MultivariateNormal(mg.zeros(3), mg.eye(3))
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(p, q)


def test_a_subclass_without_constraints_warns_as_torch(torch):
    def make(base):
        class Coin(base):
            def __init__(self, p):
                self.p = p
                super().__init__()

            def log_prob(self, value):
                self._validate_sample(value)
                return (value * self.p).sum()
        return Coin

    with pytest.warns(UserWarning) as t_warned:
        make(torch.distributions.Distribution)(torch.tensor(0.5)).log_prob(torch.tensor(1.0))
    with pytest.warns(UserWarning) as m_warned:
        make(D.Distribution)(mg.tensor(0.5)).log_prob(mg.tensor(1.0))
    def after_the_class(warned):
        return [str(w.message).split("> ", 1)[1] for w in warned]
    assert after_the_class(m_warned) == after_the_class(t_warned)
