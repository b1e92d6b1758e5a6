"""KL pairs across the distribution groups (gamma family x transformed/location-scale),
and the exponential-family members' Bregman entropy, against torch."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

PARAMS = {"Beta": ([1.5, 0.7], [2.0, 3.0]), "Exponential": ([1.3, 0.4],),
          "Pareto": ([1.0, 2.0], [0.5, 2.5]), "ContinuousBernoulli": ([0.3, 0.8],),
          "Gamma": ([2.0, 0.6], [1.5, 3.0]), "Gumbel": ([0.2, -1.0], [1.3, 0.5]),
          "Laplace": ([0.2, -1.0], [1.3, 0.5]), "Normal": ([0.3, -1.0], [1.5, 0.7]),
          "Bernoulli": ([0.3, 0.8],)}
PAIRS = [("Beta", "Exponential"), ("Beta", "Pareto"), ("ContinuousBernoulli", "Exponential"),
         ("ContinuousBernoulli", "Pareto"), ("Exponential", "Beta"),
         ("Exponential", "ContinuousBernoulli"), ("Exponential", "Gamma"),
         ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gamma", "Pareto"), ("Gumbel", "Beta"),
         ("Gumbel", "ContinuousBernoulli"), ("Gumbel", "Gamma"), ("Laplace", "Beta"),
         ("Laplace", "ContinuousBernoulli"), ("Laplace", "Gamma"), ("Pareto", "Beta"),
         ("Pareto", "ContinuousBernoulli"), ("Pareto", "Gamma")]


def _make(lib, name):
    tensors = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in PARAMS[name]]
    return getattr(lib.distributions, name)(*tensors), tensors


def _kl_and_grads(lib, p_name, q_name):
    p, p_params = _make(lib, p_name)
    q, q_params = _make(lib, q_name)
    kl = lib.distributions.kl_divergence(p, q)
    finite = np.isfinite(kl.detach().numpy())
    if not finite.any():
        return kl.detach().numpy(), []
    grads = lib.autograd.grad(kl[finite].sum() if lib is torch else kl[mg.tensor(finite)].sum(),
                              p_params + q_params, allow_unused=True)
    return kl.detach().numpy(), [None if g is None else g.numpy() for g in grads]


@pytest.mark.parametrize("p_name,q_name", PAIRS)
def test_cross_group_kl_matches_torch(p_name, q_name):
    expected, expected_grads = _kl_and_grads(torch, p_name, q_name)
    got, got_grads = _kl_and_grads(mg, p_name, q_name)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert len(got_grads) == len(expected_grads)
    for g, e in zip(got_grads, expected_grads):
        if e is None:
            assert g is None or not np.any(g)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-12)   # (digamma's last bits)


@pytest.mark.parametrize("name", ["Normal", "Bernoulli", "Exponential", "Gamma"])
def test_exponential_family_members_and_bregman_entropy(name):
    for lib in (torch, mg):
        assert isinstance(_make(lib, name)[0], lib.distributions.ExponentialFamily)
    # the Bregman form of the base class, not the member's own closed form
    expected = torch.distributions.ExponentialFamily.entropy(_make(torch, name)[0])
    got = mg.distributions.ExponentialFamily.entropy(_make(mg, name)[0])
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10)


def test_bregman_entropy_without_a_carrier_measure_raises_as_torch():
    # torch's Beta has no _mean_carrier_measure: the base-class entropy refuses in both
    for lib in (torch, mg):
        with pytest.raises(NotImplementedError):
            lib.distributions.ExponentialFamily.entropy(_make(lib, "Beta")[0])
