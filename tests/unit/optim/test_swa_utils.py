"""optim.swa_utils against torch (float64): SWALR's schedule (cos/linear, per-group swa_lr,
anneal_epochs=0) and state_dict round trip, AveragedModel with the default, avg_fn and
multi_avg_fn averages (with and without buffers), update_bn; PyTorch's error texts."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.optim import swa_utils

torch = pytest.importorskip("torch")

R = np.random.default_rng(5)


def _pair(lib, weights):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
                              lib.nn.Linear(4, 1)).double()
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w))
    return model


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 4])
def test_swalr_schedule_matches_torch(strategy, anneal_epochs):
    lrs = {}
    for lib in (torch, mg):
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 1)
        opt = lib.optim.SGD([{"params": a.parameters()}, {"params": b.parameters(), "lr": 0.5}],
                            lr=1.0)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.1, 0.05], anneal_epochs=anneal_epochs,
                                          anneal_strategy=strategy)
        seen = []
        for _ in range(7):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr())
        state = sched.state_dict()
        fresh = lib.optim.swa_utils.SWALR(opt, swa_lr=0.2)
        fresh.load_state_dict(state)
        opt.step()
        fresh.step()
        seen.append(fresh.get_last_lr())
        lrs[lib.__name__] = seen
    np.testing.assert_allclose(lrs["minigrad"], lrs["torch"], rtol=1e-12)


@pytest.mark.parametrize("averaging", ["swa", "swa_fn", "ema_fn", "ema_multi", "ema_buffers"])
def test_averaged_model_matches_torch(averaging):
    weights = [R.standard_normal(s) for s in [(4, 3), (4,), (4,), (4,), (1, 4), (1,)]]
    steps = [[R.standard_normal(w.shape) for w in weights] for _ in range(4)]
    batches = [R.standard_normal((8, 3)) for _ in range(3)]
    out = {}
    for lib in (torch, mg):
        su = lib.optim.swa_utils
        kwargs = {"swa": {}, "swa_fn": {"avg_fn": su.get_swa_avg_fn()},
                  "ema_fn": {"avg_fn": su.get_ema_avg_fn(0.8)},
                  "ema_multi": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.8)},
                  "ema_buffers": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.8),
                                  "use_buffers": True}}[averaging]
        model = _pair(lib, weights)
        averaged = su.AveragedModel(model, **kwargs)
        for step, batch in zip(steps, batches + [batches[0]]):
            model(lib.tensor(batch))  # moves the BatchNorm statistics
            with lib.no_grad():
                for p, delta in zip(model.parameters(), step):
                    p.add_(lib.tensor(delta))
            averaged.update_parameters(model)
        state = {k: v.detach().numpy().copy() for k, v in averaged.state_dict().items()}
        su.update_bn([(lib.tensor(b), 0) for b in batches], averaged)
        state["after_update_bn"] = averaged.module[1].running_var.detach().numpy().copy()
        out[lib.__name__] = state
    assert list(out["minigrad"]) == list(out["torch"])
    for key, value in out["torch"].items():
        np.testing.assert_allclose(out["minigrad"][key], value, rtol=1e-12, atol=1e-14,
                                   err_msg=key)


def test_errors_are_torchs():
    for lib in (torch, mg):
        opt = lib.optim.SGD(lib.nn.Linear(1, 1).parameters(), lr=0.1)
        su = lib.optim.swa_utils
        calls = [lambda: su.SWALR(opt, swa_lr=[0.1, 0.2]),
                 lambda: su.SWALR(opt, swa_lr=0.1, anneal_strategy="x"),
                 lambda: su.SWALR(opt, swa_lr=0.1, anneal_epochs=-1),
                 lambda: su.get_ema_avg_fn(1.5),
                 lambda: su.get_ema_multi_avg_fn(-0.1)]
        messages = []
        for call in calls:
            with pytest.raises(ValueError) as info:
                call()
            messages.append(str(info.value))
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
            su.AveragedModel(lib.nn.Linear(1, 1), avg_fn=su.get_swa_avg_fn(),
                             multi_avg_fn=su.get_swa_multi_avg_fn())
        if lib is torch:
            expected = messages
    assert messages == expected
