"""The "Stochastic Weight Averaging" recipe (torch.optim.swa_utils docs): a Linear + BatchNorm1d
classifier trained with momentum SGD and CosineAnnealingLR, switching at swa_start to SWALR
(linear annealing) while AveragedModel accumulates the running mean of the weights; an EMA
AveragedModel (get_ema_multi_avg_fn, use_buffers=True) updated every batch; update_bn over the
DataLoader; eval predictions of both averaged models. float64; data and weights from numpy.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, SWALR, get_ema_multi_avg_fn
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(11)

x = torch.from_numpy(rng.standard_normal((64, 5)))
y = (x[:, 0] - 2 * x[:, 1] + 0.5 * x[:, 2] > 0).long()
loader = DataLoader(TensorDataset(x, y), batch_size=16)

model = nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape))))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
scheduler = CosineAnnealingLR(optimizer, T_max=10)
swa_start = 5
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")

losses, lrs = [], []
for epoch in range(10):
    for input, target in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(input), target)
        loss.backward()
        optimizer.step()
        ema_model.update_parameters(model)
        losses.append(loss.item())
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    lrs.append(optimizer.param_groups[0]["lr"])

stats_before = swa_model.module[1].running_mean.clone()
torch.optim.swa_utils.update_bn(loader, swa_model)
swa_model.eval()
ema_model.eval()
with torch.no_grad():
    swa_preds = swa_model(x)
    ema_preds = ema_model(x)

sched_state = swa_scheduler.state_dict()
results = {
    "losses": losses,
    "lrs": lrs,
    "n_averaged": [swa_model.n_averaged, ema_model.n_averaged],
    "swa_state": swa_model.state_dict(),
    "ema_state": ema_model.state_dict(),
    "stats_before": stats_before,
    "swa_preds": swa_preds,
    "ema_preds": ema_preds,
    "sched": [sched_state["anneal_epochs"], sched_state["_step_count"], sched_state["last_epoch"]],
    "bn_momentum": [swa_model.module[1].momentum],
    "training": [swa_model.training, swa_model.module.training],
}
'''


def test_swa_matches_torch():
    reference, ported = run_both(PROGRAM, "swa")
    assert_same(reference, ported, rtol=1e-9, atol=1e-12)
