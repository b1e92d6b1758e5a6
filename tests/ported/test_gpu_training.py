"""A training script written for a GPU, as a PyTorch user writes one: `device` picked with
`torch.cuda.is_available()`, a small CNN with BatchNorm, AdamW with a cosine schedule,
gradient clipping, a DataLoader with `pin_memory=True`, `loss.item()` each step, then a
checkpoint saved and loaded with `map_location="cpu"`, float32 throughout.

On CPU CI minigrad runs it on the CuPy-like test backend (its "cuda") and torch on the
CPU; on a GPU machine (`MINIGRAD_TEST_DEVICE=cuda`) both run on the real GPU.  Data and
initial weights come from numpy, so the runs agree to float32 rounding.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
rng = np.random.default_rng(0)


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


images = torch.from_numpy(rng.normal(size=(64, 3, 12, 12)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 10, 64))
loader = DataLoader(TensorDataset(images, labels), batch_size=16, pin_memory=True)

model = SmallCNN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
model = model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
scheduler = CosineAnnealingLR(optimizer, T_max=4)

losses = []
for epoch in range(2):
    model.train()
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        losses.append(loss.item())
    scheduler.step()

buffer = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu")
restored = SmallCNN()
restored.load_state_dict(checkpoint["model"])
restored.eval()
model.eval()
with torch.no_grad():
    on_device = model(images[:8].to(device)).cpu()
    on_cpu = restored(images[:8])

results = {
    "losses": losses,
    "state": {k: v.cpu() for k, v in model.state_dict().items()},
    "logits": on_device,
    "restored_logits": on_cpu,
    "lr": scheduler.get_last_lr(),
    "steps": checkpoint["optimizer"]["state"][0]["step"],
}
'''


def test_gpu_training_script_matches_torch(fake_gpu):
    reference, ported = run_both(PROGRAM, "gpu_training")
    assert_same(reference, ported, rtol=2e-4, atol=2e-5)
