"""Each optimizer follows PyTorch's trajectory in float64 on the same problem from the
same weights (rtol 1e-6 over 50 steps; LBFGS: 20), for several option combinations."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import optim

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 5))
Y = RNG.standard_normal((16, 3))
W0 = RNG.standard_normal((5, 3)) * 0.5
B0 = RNG.standard_normal(3) * 0.1


def _loss(lib, x, y, w, b):
    # A small non-quadratic regression: tanh layer, squared error.
    return ((lib.tanh(x @ w + b) - y) ** 2).mean() + 0.01 * (w ** 4).sum()


def _pair():
    mine = [mg.tensor(W0.copy(), requires_grad=True), mg.tensor(B0.copy(), requires_grad=True)]
    theirs = [torch.tensor(W0.copy(), requires_grad=True), torch.tensor(B0.copy(), requires_grad=True)]
    return mine, theirs


def _closures(opt, t_opt, mine, theirs):
    x, y, tx, ty = mg.tensor(X), mg.tensor(Y), torch.tensor(X), torch.tensor(Y)

    def closure():
        opt.zero_grad()
        loss = _loss(mg, x, y, *mine)
        loss.backward()
        return loss

    def t_closure():
        t_opt.zero_grad()
        loss = _loss(torch, tx, ty, *theirs)
        loss.backward()
        return loss
    return closure, t_closure


def _assert_same(mine, theirs, step):
    for p, q in zip(mine, theirs):
        np.testing.assert_allclose(p._data, q.detach().numpy(), rtol=1e-6, atol=1e-12,
                                   err_msg=f"after step {step}")


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=False)),
    ("SGD", dict(lr=0.05, momentum=0.5, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, eps=1e-6)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.2, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.005, centered=True, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, weight_decay=0.05, momentum=0.5)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.02, initial_accumulator_value=0.1)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.01)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.05)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.02, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1, decoupled_weight_decay=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-4, 0.2))),
]


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_matches_torch(name, options):
    mine, theirs = _pair()
    opt = getattr(optim, name)(mine, **options)
    t_opt = getattr(torch.optim, name)(theirs, **options)
    closure, t_closure = _closures(opt, t_opt, mine, theirs)
    for step in range(50):
        loss = opt.step(closure)
        t_loss = t_opt.step(t_closure)
        np.testing.assert_allclose(loss.item(), t_loss.item(), rtol=1e-6)
        _assert_same(mine, theirs, step)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                                  "NAdam", "RAdam", "Rprop"])
def test_maximize_climbs_as_torch(name):
    mine, theirs = _pair()
    opt = getattr(optim, name)(mine, lr=0.01, maximize=True)
    t_opt = getattr(torch.optim, name)(theirs, lr=0.01, maximize=True)
    closure, t_closure = _closures(opt, t_opt, mine, theirs)
    for step in range(20):
        opt.step(closure), t_opt.step(t_closure)
        _assert_same(mine, theirs, step)


@pytest.mark.parametrize("options", [
    dict(), dict(line_search_fn="strong_wolfe"), dict(lr=0.5, history_size=3, max_iter=5),
    dict(line_search_fn="strong_wolfe", history_size=4, max_iter=7)])
def test_lbfgs_trajectory_matches_torch(options):
    mine, theirs = _pair()
    opt, t_opt = optim.LBFGS(mine, **options), torch.optim.LBFGS(theirs, **options)
    closure, t_closure = _closures(opt, t_opt, mine, theirs)
    for step in range(20):
        loss, t_loss = opt.step(closure), t_opt.step(t_closure)
        np.testing.assert_allclose(loss.item(), t_loss.item(), rtol=1e-6)
        _assert_same(mine, theirs, step)
    assert opt.state[mine[0]]["func_evals"] == t_opt.state[theirs[0]]["func_evals"]
    assert opt.state[mine[0]]["n_iter"] == t_opt.state[theirs[0]]["n_iter"]


def test_lbfgs_never_warns_about_clogs(recwarn):
    w = mg.tensor(np.array([1.0, -2.0]), requires_grad=True)
    opt = optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((w - 3) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    np.testing.assert_allclose(w._data, [3.0, 3.0])
    assert not [w for w in recwarn.list if "clog" in str(w.message).lower()]


def test_step_runs_without_recording_and_bumps_version():
    w = mg.tensor(np.ones(3), requires_grad=True)
    (w * w).sum().backward()
    version = w._version
    optim.SGD([w], lr=0.1).step()
    assert w._version > version and w.grad_fn is None and w.requires_grad
    np.testing.assert_allclose(w._data, 0.8)


def test_params_without_grad_are_skipped():
    a = mg.tensor(np.ones(2), requires_grad=True)
    b = mg.tensor(np.ones(2), requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    opt.step()
    np.testing.assert_allclose(b._data, 1.0)
    assert b not in opt.state and a in opt.state


def test_float32_params_stay_float32():
    w = mg.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    opt = optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert w._data.dtype == np.float32 and opt.state[w]["exp_avg"]._data.dtype == np.float32


def test_step_counter_follows_the_default_dtype():
    w = mg.tensor(np.ones(2), requires_grad=True)
    (w * w).sum().backward()
    opt = optim.Adam([w])
    opt.step()
    assert opt.state[w]["step"]._data.dtype == np.float32
    previous = mg.get_default_dtype()
    try:
        mg.set_default_dtype(mg.float64)
        opt2 = optim.Adam([w])
        opt2.step()
        assert opt2.state[w]["step"]._data.dtype == np.float64
    finally:
        mg.set_default_dtype(previous)


@pytest.mark.parametrize("name,options", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", {}),
                                          ("AdamW", {}), ("RMSprop", dict(centered=True)),
                                          ("Adagrad", {}), ("Adadelta", {}),
                                          ("LBFGS", dict(line_search_fn="strong_wolfe")),
                                          ("LBFGS", {})])
def test_optimizers_and_schedulers_never_clog(name, options):
    # minigrad's own code reads numbers with .item(): no clog warning, even as an error.
    mine, _ = _pair()
    opt = getattr(optim, name)(mine, **options)
    sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    closure, _ = _closures(opt, torch.optim.SGD([torch.zeros(1, requires_grad=True)]), mine, [])
    with mg.autograd.set_clog_mode("error"):
        for _ in range(3):
            loss = opt.step(closure)
            sched.step(loss)
