"""ASGD and Adafactor follow torch's trajectories step by step from the same weights
(float64 tightly, float32 to its rounding), keep torch's state (names, shapes,
values) and state_dict, and refuse bad options with torch's errors."""
import numpy as np
import pytest

import minigrad as mg
from tests.unit.nn._torch_pair import raised

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(2)
X = RNG.standard_normal((12, 5))
Y = RNG.standard_normal((12, 3))
START = [RNG.standard_normal((5, 3)) * 0.5, RNG.standard_normal(3) * 0.1,
         RNG.standard_normal((2, 3, 4)) * 0.3]


def _loss(lib, x, y, w, b, t):
    return ((lib.tanh(x @ w + b) - y) ** 2).mean() + 0.01 * (w ** 4).sum() + (t ** 2).sum()


def _run(lib, name, options, dtype, steps):
    params = [lib.tensor(a.astype(dtype), requires_grad=True) for a in START]
    opt = getattr(lib.optim, name)(params, **options)
    x, y = lib.tensor(X.astype(dtype)), lib.tensor(Y.astype(dtype))
    trajectory = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, x, y, *params).backward()
        opt.step()
        trajectory.append([p.detach().numpy().copy() for p in params])
    return opt, trajectory


CASES = [
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.1, lambd=1e-2, alpha=0.5, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0)),
    ("Adafactor", dict(lr=0.02, weight_decay=0.1, maximize=True)),
]


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-10), (np.float32, 2e-5)])
@pytest.mark.parametrize("name,options", CASES)
def test_follows_torch_step_by_step(name, options, dtype, rtol):
    t_opt, theirs = _run(torch, name, options, dtype, 12)
    m_opt, mine = _run(mg, name, options, dtype, 12)
    for step, (a, b) in enumerate(zip(mine, theirs)):
        for p, q in zip(a, b):
            assert p.dtype == q.dtype
            np.testing.assert_allclose(p, q, rtol=rtol, atol=rtol * 1e-2,
                                       err_msg=f"after step {step + 1}")
    t_state, m_state = t_opt.state_dict(), m_opt.state_dict()
    assert m_state["param_groups"] == t_state["param_groups"]
    for key, t_entry in t_state["state"].items():
        m_entry = m_state["state"][key]
        assert sorted(m_entry) == sorted(t_entry)
        for field, value in t_entry.items():
            np.testing.assert_allclose(np.asarray(m_entry[field].numpy()), value.numpy(),
                                       rtol=rtol, atol=rtol * 1e-2, err_msg=field)
            assert m_entry[field].dtype.itemsize == value.dtype.itemsize, field


def test_resumes_from_a_state_dict_as_torch():
    t_opt, _ = _run(torch, "Adafactor", {}, np.float64, 3)
    m_params = [mg.tensor(a, requires_grad=True) for a in START]
    m_opt = mg.optim.Adafactor(m_params)
    m_opt.load_state_dict({
        "state": {k: {f: mg.tensor(v.numpy()) for f, v in entry.items()}
                  for k, entry in t_opt.state_dict()["state"].items()},
        "param_groups": t_opt.state_dict()["param_groups"]})
    assert m_opt.state[m_params[0]]["step"].item() == 3


@pytest.mark.parametrize("name,options", [
    ("ASGD", dict(lr=-1.0)), ("ASGD", dict(weight_decay=-0.1)),
    ("Adafactor", dict(lr=-1.0)), ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))), ("Adafactor", dict(eps=(None, -1.0))),
    ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-1.0))])
def test_bad_options_raise_torchs_errors(name, options):
    t_err = raised(lambda: getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)],
                                                      **options))
    m_err = raised(lambda: getattr(mg.optim, name)([mg.zeros(2, requires_grad=True)],
                                                   **options))
    assert t_err[0] is not None and m_err == t_err
