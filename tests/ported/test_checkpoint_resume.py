"""The "Saving and loading a general checkpoint" recipe: train, torch.save a dict of model and
optimizer state dicts, rebuild model and optimizer, torch.load, resume; the resumed run must
continue exactly where an uninterrupted run goes. Both runs of the program compare with
PyTorch's numbers too. SGD with momentum and a StepLR schedule; float64.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)
inputs = torch.from_numpy(rng.standard_normal((40, 6)))
labels = torch.from_numpy(rng.integers(0, 3, 40))
initial = [rng.uniform(-0.4, 0.4, shape) for shape in [(10, 6), (10,), (3, 10), (3,)]]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 10)
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def build():
    net = Net()
    with torch.no_grad():
        for p, value in zip(net.parameters(), initial):
            p.copy_(torch.from_numpy(value))
    optimizer = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    return net, optimizer, scheduler


def train(net, optimizer, scheduler, epochs):
    losses = []
    for epoch in range(epochs):
        for i in range(0, 40, 10):
            optimizer.zero_grad()
            loss = F.cross_entropy(net(inputs[i:i + 10]), labels[i:i + 10])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    return losses, loss


net, optimizer, scheduler = build()
straight, _ = train(net, optimizer, scheduler, 6)

net, optimizer, scheduler = build()
first, loss = train(net, optimizer, scheduler, 3)
PATH = os.path.join(tempfile.mkdtemp(), "model.pt")
torch.save({
            'epoch': 3,
            'model_state_dict': net.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(),
            'scheduler_state_dict': scheduler.state_dict(),
            'loss': loss,
            }, PATH)

model, optimizer, scheduler = build()
checkpoint = torch.load(PATH, weights_only=True)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
model.train()
second, _ = train(model, optimizer, scheduler, 3)

results = {
    "straight": straight,
    "resumed": first + second,
    "saved_loss": [loss.item()],
    "state": model.state_dict(),
    "lr": scheduler.get_last_lr(),
}
'''


def test_checkpoint_resume_matches_torch():
    reference, ported = run_both(PROGRAM, "checkpoint_resume")
    assert reference["straight"] == pytest.approx(reference["resumed"], rel=1e-12)
    assert ported["straight"] == pytest.approx(ported["resumed"], rel=1e-12)
    assert_same(reference, ported, rtol=1e-9, atol=1e-12)
