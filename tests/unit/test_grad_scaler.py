"""minigrad.amp.GradScaler("cpu") against torch's: scaled losses, steps skipped where a
gradient overflows, the scale's backoff and growth, state_dict, and torch's errors."""
import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def _run(lib):
    rng = np.random.default_rng(0)
    model = lib.nn.Linear(3, 2)
    with lib.no_grad():
        model.weight.copy_(lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float32))
        model.bias.zero_()
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    trace = []
    for step in range(6):
        x = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32)
        if step == 2:
            x = x * 1e36   # the scaled loss overflows: that step is skipped, the scale halves
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.unscale_(opt)
        stepped = scaler.step(opt)
        scaler.update()
        trace.append((scaled.item(), scaler.get_scale(), stepped,
                      model.weight.detach().numpy().copy()))
    return trace, scaler.state_dict()


def test_a_training_loop_with_a_scaler_runs_as_torchs():
    (mine, my_state), (theirs, their_state) = _run(minigrad), _run(torch)
    for (s1, scale1, r1, w1), (s2, scale2, r2, w2) in zip(mine, theirs):
        assert scale1 == scale2 and r1 == r2
        np.testing.assert_allclose(s1, s2, rtol=1e-6)
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
    assert my_state == their_state


@pytest.mark.parametrize("misuse", ["unscale twice", "unscale after step", "step twice",
                                    "update without steps", "closure"])
def test_misuse_gets_torchs_error(misuse):
    messages = []
    for lib in (minigrad, torch):
        model = lib.nn.Linear(2, 1)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(model(lib.ones(1, 2)).sum()).backward()
        with pytest.raises((RuntimeError, AssertionError)) as error:
            if misuse == "unscale twice":
                scaler.unscale_(opt)
                scaler.unscale_(opt)
            elif misuse == "unscale after step":
                scaler.step(opt)
                scaler.unscale_(opt)
            elif misuse == "step twice":
                scaler.step(opt)
                scaler.step(opt)
            elif misuse == "update without steps":
                scaler.update()
            else:
                scaler.step(opt, closure=lambda: 0.0)
        messages.append((type(error.value), str(error.value)))
    assert messages[0] == messages[1]
