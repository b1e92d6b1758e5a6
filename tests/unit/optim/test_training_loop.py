"""A whole training loop written once for both libraries (DataLoader, Adam, StepLR,
save/load of a checkpoint mid-way) gives PyTorch's weights in float64."""
import io

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
X = RNG.standard_normal((60, 4))
Y = RNG.integers(0, 3, 60)
W0, B0 = RNG.standard_normal((3, 4)) * 0.3, np.zeros(3)


def train(lib, epochs, resume_at=None):
    """The same source for both: only ``lib`` differs (``import minigrad as torch``)."""
    F = lib.nn.functional
    data = lib.utils.data
    w = lib.tensor(W0.copy(), requires_grad=True)
    b = lib.tensor(B0.copy(), requires_grad=True)
    loader = data.DataLoader(data.TensorDataset(lib.tensor(X), lib.tensor(Y)), batch_size=16)
    opt = lib.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.02)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    losses = []
    for epoch in range(epochs):
        if epoch == resume_at:  # save, rebuild everything, load, continue
            buffer = io.BytesIO()
            lib.save({"w": w.detach(), "b": b.detach(), "opt": opt.state_dict(),
                      "sched": sched.state_dict()}, buffer)
            buffer.seek(0)
            ckpt = lib.load(buffer)
            w = ckpt["w"].clone().requires_grad_()
            b = ckpt["b"].clone().requires_grad_()
            opt = lib.optim.Adam([{"params": [w]}, {"params": [b]}])
            opt.load_state_dict(ckpt["opt"])
            sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
            sched.load_state_dict(ckpt["sched"])
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(F.linear(xb, w, b), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        sched.step()
    return w.detach().numpy(), b.detach().numpy(), losses


@pytest.mark.parametrize("resume_at", [None, 3])
def test_training_loop_matches_torch(resume_at):
    w, b, losses = train(minigrad, 6, resume_at)
    tw, tb, t_losses = train(torch, 6, resume_at)
    np.testing.assert_allclose(losses, t_losses, rtol=1e-6)
    np.testing.assert_allclose(w, tw, rtol=1e-6)
    np.testing.assert_allclose(b, tb, rtol=1e-6)


def test_resuming_from_a_checkpoint_changes_nothing():
    straight = train(minigrad, 6)
    resumed = train(minigrad, 6, resume_at=3)
    np.testing.assert_array_equal(straight[0], resumed[0])
    assert straight[2] == resumed[2]
