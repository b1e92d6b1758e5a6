"""pytorch/examples mnist/main.py: the Net (Conv2d, max_pool2d, Dropout, log_softmax), the
train/test functions, Adadelta and StepLR as published, on MNIST-shaped random data.

Dropout masks are random draws that differ between the libraries, so the program turns
dropout off the way a user would (`m.p = 0.0` on every nn.Dropout); data and weights come
from numpy; float64 throughout.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(model, device, train_loader, optimizer, epoch, losses):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        print('Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'.format(
            epoch, batch_idx * len(data), len(train_loader.dataset),
            100. * batch_idx / len(train_loader), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)
    print('Test set: Average loss: {:.4f}, Accuracy: {}/{}'.format(
        test_loss, correct, len(test_loader.dataset)))
    return test_loss, correct


use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
train_kwargs = {'batch_size': 8}
test_kwargs = {'batch_size': 16}

images = torch.from_numpy(rng.normal(0.0, 1.0, (32, 1, 28, 28)))
targets = torch.from_numpy(rng.integers(0, 10, 32))
dataset1 = torch.utils.data.TensorDataset(images[:16], targets[:16])
dataset2 = torch.utils.data.TensorDataset(images[16:], targets[16:])
train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)

model = Net().to(device)
for m in model.modules():
    if isinstance(m, nn.Dropout):
        m.p = 0.0
with torch.no_grad():
    for p in model.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else 64
        p.copy_(torch.from_numpy(rng.uniform(-1, 1, tuple(p.shape)) / np.sqrt(fan_in)))
optimizer = optim.Adadelta(model.parameters(), lr=1.0)

scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
losses, lrs = [], []
for epoch in range(1, 3):
    train(model, device, train_loader, optimizer, epoch, losses)
    test_loss, correct = test(model, device, test_loader)
    scheduler.step()
    lrs.append(scheduler.get_last_lr()[0])

results = {
    "losses": losses,
    "test": [test_loss, correct],
    "lrs": lrs,
    "state": model.state_dict(),
    "grads": [p.grad for p in model.parameters()],
}
'''


def test_mnist_cnn_matches_torch():
    reference, ported = run_both(PROGRAM, "mnist_cnn")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
