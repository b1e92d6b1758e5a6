"""pytorch/examples vae/main.py: the VAE model and loss_function as published, trained a few
steps with Adam on MNIST-shaped data.

Data, weights and the reparameterisation noise come from numpy (random streams differ):
`torch.randn_like(std)` becomes a numpy draw of the same shape. float64 throughout.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
from __future__ import print_function
import numpy as np
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)
device = torch.device("cpu")


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()

        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5*logvar)
        eps = torch.from_numpy(rng.standard_normal(tuple(std.shape)))
        return mu + eps*std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
with torch.no_grad():
    for name, p in model.named_parameters():
        bound = 1 / np.sqrt(p.shape[-1] if name.endswith("weight") else 400)
        p.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))))
optimizer = optim.Adam(model.parameters(), lr=1e-3)


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')

    # see Appendix B from VAE paper:
    # Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    # https://arxiv.org/abs/1312.6114
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return BCE + KLD


images = torch.from_numpy(rng.uniform(0, 1, (64, 1, 28, 28)))
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images, torch.zeros(64, dtype=torch.long)),
    batch_size=16, shuffle=False)


def train(epoch):
    model.train()
    train_loss = 0
    losses = []
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        losses.append(loss.item())
        optimizer.step()
    print('====> Epoch: {} Average loss: {:.4f}'.format(
          epoch, train_loss / len(train_loader.dataset)))
    return losses


losses = []
for epoch in range(1, 3):
    losses += train(epoch)

with torch.no_grad():
    sample = torch.from_numpy(rng.standard_normal((8, 20))).to(device)
    sample = model.decode(sample).cpu()

results = {
    "losses": losses,
    "sample": sample.view(8, 1, 28, 28),
    "state": model.state_dict(),
    "grads": [p.grad for p in model.parameters()],
}
'''


def test_vae_matches_torch():
    reference, ported = run_both(PROGRAM, "vae")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
