"""A small MLP classifier as in the beginner tutorials: TensorDataset, DataLoader,
nn.Sequential, CrossEntropyLoss, Adam, an eval loop under no_grad with accuracy.

Data and initial weights come from numpy (random streams differ); shuffling is off so
both runs see the same batches. Runs in float64 (set_default_dtype) for a tight comparison,
and as PyTorch's default float32 without that line.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)

# Three Gaussian blobs in 8 dimensions.
centers = rng.standard_normal((3, 8)) * 2
labels = rng.integers(0, 3, 300)
features = centers[labels] + rng.standard_normal((300, 8))
X = torch.tensor(features, dtype=torch.get_default_dtype())
y = torch.from_numpy(labels)
train_ds = TensorDataset(X[:240], y[:240])
test_ds = TensorDataset(X[240:], y[240:])
train_loader = DataLoader(train_ds, batch_size=32, shuffle=False)
test_loader = DataLoader(test_ds, batch_size=64)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
with torch.no_grad():
    for name, param in model.named_parameters():
        param.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(param.shape))))

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    losses = []
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)

        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        losses.append(loss.item())
        if batch % 4 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
    return losses


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f}")
    return test_loss, correct


epochs = 3
history = []
for t in range(epochs):
    print(f"Epoch {t+1}")
    history += train(train_loader, model, loss_fn, optimizer)
    test_loss, accuracy = test(test_loader, model, loss_fn)

results = {
    "losses": history,
    "test": [test_loss, accuracy],
    "state": model.state_dict(),
    "exp_avg_sq": optimizer.state_dict()["state"][4]["exp_avg_sq"],
    "logits": model(X[:5]),
}
'''


def test_mlp_classifier_matches_torch():
    reference, ported = run_both(PROGRAM, "mlp_classifier")
    assert reference["test"][1] > 0.9  # the program learns: the comparison is not vacuous
    assert_same(reference, ported, rtol=1e-8, atol=1e-10)


def test_mlp_classifier_in_default_float32_matches_torch():
    # The same program without its set_default_dtype line: PyTorch's float32 default.
    program = PROGRAM.replace("torch.set_default_dtype(torch.float64)\n", "")
    reference, ported = run_both(program, "mlp_classifier[float32]")
    assert str(reference["logits"].dtype) == "torch.float32"
    assert_same(reference, ported, rtol=1e-4, atol=1e-5)
