"""optim, utils.data and save/load with nn modules, against torch (runs once minigrad.nn
has Module and Linear)."""
import io

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not hasattr(minigrad.nn, "Linear"),
                                reason="minigrad.nn.Linear is not built yet")

RNG = np.random.default_rng(3)
X = RNG.standard_normal((40, 6))
Y = RNG.integers(0, 3, 40)
WEIGHTS = [RNG.standard_normal((8, 6)) * 0.4, RNG.standard_normal(8) * 0.1,
           RNG.standard_normal((3, 8)) * 0.4, RNG.standard_normal(3) * 0.1]


def model_for(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)).double()
    with lib.no_grad():
        for p, w in zip(model.parameters(), WEIGHTS):
            p.copy_(lib.tensor(w))
    return model


def train(lib, steps_between_saves=None):
    model = model_for(lib)
    opt = lib.optim.AdamW(model.parameters(), lr=0.01)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.95)
    data = lib.utils.data
    loader = data.DataLoader(data.TensorDataset(lib.tensor(X), lib.tensor(Y)), batch_size=8)
    for epoch in range(4):
        for xb, yb in loader:
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        sched.step()
        if steps_between_saves and epoch == 1:
            buffer = io.BytesIO()
            lib.save({"model": model.state_dict(), "opt": opt.state_dict()}, buffer)
            buffer.seek(0)
            ckpt = lib.load(buffer)
            model = model_for(lib)
            model.load_state_dict(ckpt["model"])
            lr = opt.param_groups[0]["lr"]
            opt = lib.optim.AdamW(model.parameters())
            opt.load_state_dict(ckpt["opt"])
            assert opt.param_groups[0]["lr"] == lr
            sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.95, last_epoch=epoch)
    return [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("resume", [False, True])
def test_module_training_matches_torch(resume):
    mine, theirs = train(minigrad, resume), train(torch, resume)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12)
