"""The PyTorch tutorial "What is torch.nn really?" on MNIST-shaped fake data: logistic
regression from scratch (hand-written log_softmax/nll, manual SGD under no_grad with in-place
`-=` on leaves), then the tutorial's refactors one by one: F.cross_entropy, nn.Module with
nn.Parameter, nn.Linear, optim.SGD, TensorDataset + DataLoader with train/eval and the
weighted validation loss, and finally the nn.Sequential CNN with a Lambda module,
AdaptiveAvgPool2d and momentum SGD. float32 as in the tutorial; data and weights from numpy.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch import optim
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
# fake "MNIST": 784 features, 10 classes
x_train = torch.tensor(rng.random((256, 784)), dtype=torch.float32)
y_train = torch.tensor(rng.integers(0, 10, 256))
x_valid = torch.tensor(rng.random((64, 784)), dtype=torch.float32)
y_valid = torch.tensor(rng.integers(0, 10, 64))
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train.numpy(), y_train.numpy(), x_valid.numpy(), y_valid.numpy()))
n, c = x_train.shape
print(x_train, y_train)
print(x_train.shape)
print(y_train.min(), y_train.max())

init_w = rng.standard_normal((784, 10)).astype(np.float32)
weights = torch.from_numpy(init_w.copy()) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
first_loss = loss_func(preds, yb)


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


first_acc = accuracy(preds, yb)

lr = 0.5
epochs = 2
manual_losses = []
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        manual_losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
manual_weights = weights.detach().clone()

# Using torch.nn.functional
loss_func = F.cross_entropy


def model(xb):
    return xb @ weights + bias


f_loss = loss_func(model(xb), yb)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.from_numpy(init_w.copy()) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = Mnist_Logistic()


def fit():
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit()
module_loss = loss_func(model(xb), yb)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)
        with torch.no_grad():
            self.lin.weight.copy_(torch.from_numpy(init_w.T.copy()) / math.sqrt(784))
            self.lin.bias.zero_()

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=False),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


val_losses = []


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        val_losses.append(float(val_loss))
        print(epoch, val_loss)


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)

# CNN with nn.Sequential and a Lambda layer, momentum SGD
class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 28, 28)


cnn = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
with torch.no_grad():
    for p in cnn.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
opt = optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9)
fit(epochs, cnn, loss_func, opt, train_dl, valid_dl)

results = {
    "first_loss": first_loss,
    "first_acc": first_acc,
    "manual_losses": manual_losses,
    "manual_weights": manual_weights,
    "f_loss": f_loss,
    "module_loss": module_loss,
    "val_losses": val_losses,
    "lin": model.state_dict(),
    "cnn": cnn.state_dict(),
}
'''


def test_nn_tutorial_matches_torch():
    reference, ported = run_both(PROGRAM, "nn_tutorial")
    assert_same(reference, ported, rtol=1e-5, atol=1e-6)
