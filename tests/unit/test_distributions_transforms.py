"""minigrad.distributions.transforms and constraint_registry against torch (float64):
forward and inverse values, log-det-Jacobians and their gradients, domains, codomains,
signs, shapes, caching, composition, and biject_to / transform_to."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import distributions as D
from minigrad.distributions import constraints, transforms


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _as_torch(text):
    return text.replace("minigrad.", "torch.")


R = np.random.RandomState(3)
X = R.randn(2, 3, 4)
POS = R.rand(2, 3, 4) + 0.2
SIMPLEX = R.dirichlet(np.ones(5), size=(2, 3))
A, B = R.randn(3, 4), R.rand(3, 4) + 0.5
_C = X[:, :, :3] @ np.swapaxes(X[:, :, :3], -1, -2) + np.eye(3)
_SD = np.sqrt(np.einsum("...ii->...i", _C))
CORR = _C / (_SD[..., :, None] * _SD[..., None, :])  # correlation matrices

# name -> (make(T, M, *params), params, x in the domain, y in the codomain)
CASES = {
    "exp": (lambda T, M: T.ExpTransform(), [], X, POS),
    "affine_numbers": (lambda T, M: T.AffineTransform(1.5, -2.0), [], X, X),
    "affine_tensors": (lambda T, M, a, b: T.AffineTransform(a, b), [A, B], X, X),
    "affine_event": (lambda T, M, a, b: T.AffineTransform(a, b, event_dim=2), [A, B], X, X),
    "sigmoid": (lambda T, M: T.SigmoidTransform(), [], X, POS / 2.5),
    "tanh": (lambda T, M: T.TanhTransform(), [], X, POS / 1.3 - 0.5),
    "power": (lambda T, M, e: T.PowerTransform(e), [B], POS, POS),
    "power_negative": (lambda T, M, e: T.PowerTransform(-e), [B], POS, POS),
    "abs": (lambda T, M: T.AbsTransform(), [], X, POS),
    "softplus": (lambda T, M: T.SoftplusTransform(), [], X, POS),
    "softmax": (lambda T, M: T.SoftmaxTransform(), [], X, SIMPLEX),
    "stick_breaking": (lambda T, M: T.StickBreakingTransform(), [], X, SIMPLEX),
    "reshape": (lambda T, M: T.ReshapeTransform((3, 4), (2, 6)), [], X, X.reshape(2, 2, 6)),
    "independent": (lambda T, M: T.IndependentTransform(T.ExpTransform(), 2), [], X, POS),
    "compose": (lambda T, M, a, b: T.ComposeTransform(
        [T.AffineTransform(a, b), T.ExpTransform(), T.PowerTransform(M.tensor(0.5))]),
        [A, B], X, POS),
    "compose_event": (lambda T, M: T.ComposeTransform(
        [T.ExpTransform(), T.AffineTransform(0.0, 2.0), T.ExpTransform().inv,
         T.StickBreakingTransform()]), [], X, SIMPLEX),
    "inverse": (lambda T, M: T.SigmoidTransform().inv, [], POS / 2.5, X),
    "identity": (lambda T, M: T.identity_transform, [], X, X),
    "normal_cdf": (lambda T, M, a, b: T.CumulativeDistributionTransform(
        M.distributions.Normal(a, b)), [A, B], X, POS / 2.5),
    "cat": (lambda T, M, a, b: T.CatTransform(
        [T.ExpTransform(), T.AffineTransform(a[:, :1], b[:, :1]), T.SigmoidTransform()],
        dim=-1, lengths=[1, 1, 2]), [A, B], X, POS / 2.5),
    "cat_batch_dim": (lambda T, M: T.CatTransform(
        [T.IndependentTransform(T.ExpTransform(), 1), T.SigmoidTransform()],
        dim=1, lengths=[2, 1]), [], X, POS / 2.5),
    "stack": (lambda T, M, a, b: T.StackTransform(
        [T.ExpTransform(), T.AffineTransform(a[0], b[0]), T.TanhTransform()], dim=1),
        [A, B], X, POS / 1.3 - 0.5),
    "corr_cholesky": (lambda T, M: T.CorrCholeskyTransform(), [], X[..., :3] * 0.5,
                      np.linalg.cholesky(CORR)),
    "lower_cholesky": (lambda T, M: T.LowerCholeskyTransform(), [], X[:, :3, :3],
                       np.tril(X[:, :3, :3], -1) + np.eye(3) * (1 + POS[:, :3, :3])),
    "positive_definite": (lambda T, M: T.PositiveDefiniteTransform(), [], X[:, :3, :3],
                          X[:, :3, :3] @ np.swapaxes(X[:, :3, :3], -1, -2) + np.eye(3)),
}


def _build(torch, name):
    make, params, x, y = CASES[name]
    mp = [mg.tensor(p, requires_grad=True) for p in params]
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    t = make(torch.distributions.transforms, torch, *tp)
    return make(D.transforms, mg, *mp), t, mp, tp, x, y


def _check(m_out, t_out, m_inputs, t_inputs):
    """Same values, and the same gradients of a weighted sum w.r.t. the inputs."""
    import torch
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    if not t_out.requires_grad:
        return
    weights = np.linspace(0.5, 1.5, max(t_out.numel(), 1)).reshape(tuple(t_out.shape))
    m_grads = mg.autograd.grad((m_out * mg.tensor(weights)).sum(), m_inputs, allow_unused=True)
    t_grads = torch.autograd.grad((t_out * torch.tensor(weights)).sum(), t_inputs,
                                  allow_unused=True)
    for mgrad, tgrad in zip(m_grads, t_grads):
        if tgrad is None:
            assert mgrad is None or not mgrad.numpy().any()
        else:
            np.testing.assert_allclose(mgrad.numpy(), tgrad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", list(CASES))
def test_forward_inverse_and_log_det_jacobian_match_torch(torch, name):
    m, t, mp, tp, x, y = _build(torch, name)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    _check(m(mx), t(tx), [mx] + mp, [tx] + tp)
    my, ty = mg.tensor(y, requires_grad=True), torch.tensor(y, requires_grad=True)
    _check(m.inv(my), t.inv(ty), [my] + mp, [ty] + tp)
    try:
        t_ladj = t.log_abs_det_jacobian(tx, t(tx))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            m.log_abs_det_jacobian(mx, m(mx))
        return
    _check(m.log_abs_det_jacobian(mx, m(mx)), t_ladj, [mx] + mp, [tx] + tp)


@pytest.mark.parametrize("name", list(CASES))
def test_domains_signs_shapes_and_reprs_match_torch(torch, name):
    m, t, _, _, x, _ = _build(torch, name)
    assert _as_torch(repr(m)) == repr(t)
    for side in ("domain", "codomain"):
        assert repr(getattr(m, side)) == repr(getattr(t, side))
        assert getattr(m, side).event_dim == getattr(t, side).event_dim
    assert m.bijective == t.bijective
    try:
        t_sign = t.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            m.sign  # noqa: B018 (the property raises)
    else:
        m_sign = m.sign
        if isinstance(t_sign, int):
            assert m_sign == t_sign
        else:
            np.testing.assert_array_equal(m_sign.detach().numpy(), t_sign.detach().numpy())
    shape = x.shape
    assert tuple(m.forward_shape(mg.Size(shape))) == tuple(t.forward_shape(torch.Size(shape)))
    out = tuple(t.forward_shape(torch.Size(shape)))
    assert tuple(m.inverse_shape(mg.Size(out))) == tuple(t.inverse_shape(torch.Size(out)))
    assert m.inv.inv is m


def test_the_inverse_swaps_domain_and_codomain_and_negates_the_log_det():
    t = transforms.SigmoidTransform()
    x = mg.tensor(X)
    assert t.inv.domain is t.codomain and t.inv.codomain is t.domain
    ladj = t.inv.log_abs_det_jacobian(t(x), x)
    np.testing.assert_allclose(ladj.numpy(), -t.log_abs_det_jacobian(x, t(x)).numpy())
    assert t.inv == transforms.SigmoidTransform().inv
    assert t.inv != transforms.ExpTransform().inv


def test_log_det_jacobian_is_the_log_derivative():
    x = mg.tensor([-1.3, 0.2, 2.5], dtype=mg.float64, requires_grad=True)
    for t in (transforms.ExpTransform(), transforms.SigmoidTransform(), transforms.TanhTransform(),
              transforms.SoftplusTransform(), transforms.AffineTransform(1.0, -3.0)):
        y = t(x)
        dy, = mg.autograd.grad(y.sum(), [x])
        np.testing.assert_allclose(t.log_abs_det_jacobian(x, y).detach().numpy(),
                                   np.log(np.abs(dy.numpy())), rtol=1e-10)


def test_caching_returns_the_remembered_input():
    t = transforms.ExpTransform(cache_size=1)
    x = mg.tensor([0.5, 1.0])
    y = t(x)
    assert t(x) is y and t.inv(y) is x
    uncached = transforms.ExpTransform()
    assert uncached.inv(uncached(x)) is not x
    assert transforms.ExpTransform().with_cache(1)._cache_size == 1
    affine = transforms.AffineTransform(1.0, 2.0).with_cache()
    assert affine._cache_size == 1 and affine.loc == 1.0
    composed = transforms.ComposeTransform([transforms.ExpTransform(), affine], cache_size=1)
    assert all(p._cache_size == 1 for p in composed.parts)


def test_bad_arguments_raise_as_torch(torch):
    cases = [
        lambda T: T.ExpTransform(cache_size=2),
        lambda T: T.ReshapeTransform((2, 3), (4,)),
        lambda T: T.ReshapeTransform((2, 3), (6,)).forward_shape((2, 4)),
        lambda T: T.StickBreakingTransform().forward_shape(()),
        lambda T: T.ReshapeTransform((2, 3), (6,)).event_dim,
        lambda T: T.Transform().sign,
        lambda T: T.AffineTransform(1.0, 2.0).with_cache(3),
    ]
    for make in cases:
        with pytest.raises(Exception) as expected:
            make(torch.distributions.transforms)
        with pytest.raises(type(expected.value)) as got:
            make(transforms)
        assert _as_torch(str(got.value)) == str(expected.value)


def test_equality_follows_torch(torch):
    for T, M in ((transforms, mg), (torch.distributions.transforms, torch)):
        assert T.ExpTransform() == T.ExpTransform()
        assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
        assert T.AffineTransform(M.tensor([1.0]), 2.0) != T.AffineTransform(M.tensor([0.0]), 2.0)
        assert T.PowerTransform(M.tensor(2.0)) == T.PowerTransform(M.tensor(2.0))
        assert T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()])
        assert T.ExpTransform() != T.SigmoidTransform()


def test_transformed_distribution_matches_a_hand_written_change_of_variables():
    base = D.Normal(mg.tensor(0.3, dtype=mg.float64), mg.tensor(0.8, dtype=mg.float64))
    d = D.TransformedDistribution(base, [transforms.AffineTransform(1.0, 2.0),
                                         transforms.ExpTransform()])
    y = mg.tensor([0.5, 3.0, 10.0], dtype=mg.float64)
    x = (y.log() - 1.0) / 2.0
    expected = base.log_prob(x) - y.log() - np.log(2.0)
    np.testing.assert_allclose(d.log_prob(y).numpy(), expected.numpy(), rtol=1e-12)


def test_transformed_distribution_shapes_follow_the_transforms(torch):
    for make in (lambda X, M: X.TransformedDistribution(
                     X.Normal(M.zeros(3, 4), M.ones(3, 4)), X.transforms.StickBreakingTransform()),
                 lambda X, M: X.TransformedDistribution(
                     X.Normal(M.zeros(4), M.ones(4)),
                     X.transforms.AffineTransform(M.zeros(2, 1), 1.0)),
                 lambda X, M: X.TransformedDistribution(
                     X.Normal(M.zeros(2, 6), M.ones(2, 6)),
                     X.transforms.ReshapeTransform((6,), (2, 3))),
                 lambda X, M: X.TransformedDistribution(X.Normal(0.0, 1.0), [])):
        m, t = make(D, mg), make(torch.distributions, torch)
        assert (tuple(m.batch_shape), tuple(m.event_shape)) == \
            (tuple(t.batch_shape), tuple(t.event_shape))
        assert repr(m.support) == repr(t.support)
        assert tuple(m.rsample((2,)).shape) == tuple(t.rsample((2,)).shape)
        value = t.sample()
        np.testing.assert_allclose(m.log_prob(mg.tensor(value.numpy())).numpy(),
                                   t.log_prob(value).numpy(), rtol=1e-5)


# --- biject_to / transform_to -----------------------------------------------------------------
CONSTRAINTS = [
    lambda C, M: C.real, lambda C, M: C.positive, lambda C, M: C.nonnegative,
    lambda C, M: C.greater_than(M.tensor([1.0, -2.0, 0.5, 3.0])),
    lambda C, M: C.greater_than_eq(2.0), lambda C, M: C.less_than(-1.0),
    lambda C, M: C.unit_interval, lambda C, M: C.interval(-2.0, 3.0),
    lambda C, M: C.interval(M.zeros(4), M.ones(4)),
    lambda C, M: C.simplex, lambda C, M: C.real_vector,
    lambda C, M: C.independent(C.positive, 1),
    lambda C, M: C.cat([C.positive, C.real, C.unit_interval], dim=-1, lengths=[2, 1, 1]),
    lambda C, M: C.stack([C.positive, C.real, C.interval(-1.0, 1.0)], dim=0),
]
MATRIX_CONSTRAINTS = [lambda C, M: C.lower_cholesky, lambda C, M: C.positive_definite]
CORR_CONSTRAINT = [lambda C, M: C.corr_cholesky]


@pytest.mark.parametrize("make,registry",
                         [(c, r) for c in CONSTRAINTS for r in ("biject_to", "transform_to")]
                         + [(c, "transform_to") for c in MATRIX_CONSTRAINTS]
                         + [(c, r) for c in CORR_CONSTRAINT for r in ("biject_to", "transform_to")])
def test_constraint_registry_matches_torch(torch, make, registry):
    m = getattr(D, registry)(make(constraints, mg))
    t = getattr(torch.distributions, registry)(make(torch.distributions.constraints, torch))
    assert repr(m) == repr(t)
    assert m.bijective == t.bijective
    if make in MATRIX_CONSTRAINTS:
        x = R.randn(2, 3, 3)
    else:
        x = R.randn(3, 6 if make in CORR_CONSTRAINT else 4)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    _check(m(mx), t(tx), [mx], [tx])
    assert bool(make(constraints, mg).check(m(mg.tensor(x))).all())


def test_constraint_registry_refuses_what_it_cannot_map(torch):
    for C, registry in ((constraints, D.biject_to), (torch.distributions.constraints,
                                                      torch.distributions.biject_to)):
        with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
            registry(C.boolean)
        with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky"):
            registry(C.lower_cholesky)  # transform_to only: the upper triangle is dropped
        with pytest.raises(TypeError, match="Expected constraint to be either"):
            registry.register(3, lambda c: None)


def test_a_registered_constraint_is_used():
    class _Odd(constraints.Constraint):
        def check(self, value):
            return value % 2 == 1

    registry = D.constraint_registry.ConstraintRegistry()
    registry.register(_Odd, lambda c: transforms.AffineTransform(1.0, 2.0))
    assert registry(_Odd())(mg.tensor(3.0)).item() == 7.0


def test_unconstrained_optimisation_through_transform_to():
    # minimise a loss over the simplex by optimising unconstrained logits
    target = mg.tensor([0.2, 0.5, 0.3])
    z = mg.zeros(3, requires_grad=True)
    opt = mg.optim.SGD([z], lr=5.0)
    to_simplex = D.transform_to(constraints.simplex)
    for _ in range(200):
        opt.zero_grad()
        loss = ((to_simplex(z) - target) ** 2).sum()
        loss.backward()
        opt.step()
    np.testing.assert_allclose(to_simplex(z).detach().numpy(), target.numpy(), atol=1e-3)


def test_triangle_helpers_and_corr_cholesky_constraint_match_torch(torch):
    from minigrad.distributions import utils
    tutils = torch.distributions.utils
    for diag in (-1, 0, 1):
        vec = R.randn(2, 6 if diag == 0 else (3 if diag == -1 else 8))
        m = utils.vec_to_tril_matrix(mg.tensor(vec), diag)
        expected = tutils.vec_to_tril_matrix(torch.tensor(vec), diag).numpy()
        np.testing.assert_array_equal(m.numpy(), expected)
        np.testing.assert_array_equal(utils.tril_matrix_to_vec(m, diag).numpy(), vec)
    for call in (lambda U, M: U.vec_to_tril_matrix(M.zeros(5), -1),
                 lambda U, M: U.tril_matrix_to_vec(M.zeros(3, 3), 3)):
        with pytest.raises(ValueError) as expected:
            call(tutils, torch)
        with pytest.raises(ValueError) as got:
            call(utils, mg)
        assert str(got.value) == str(expected.value)
    candidates = np.stack([np.linalg.cholesky(CORR[0]), np.linalg.cholesky(CORR[0]) * 1.1,
                           np.eye(3)[::-1]])
    np.testing.assert_array_equal(
        constraints.corr_cholesky.check(mg.tensor(candidates)).numpy(),
        torch.distributions.constraints.corr_cholesky.check(torch.tensor(candidates)).numpy())
