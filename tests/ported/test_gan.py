"""The DCGAN example's training step on 2-d points with Linear layers: Generator with BatchNorm1d,
Discriminator with LeakyReLU(inplace) and Sigmoid, the weights_init hook through Module.apply
(classname matching), BCELoss, two Adam optimizers with betas=(0.5, 0.999), `label.fill_`,
the discriminator step on `fake.detach()` and the generator step through D, eval sampling
under no_grad. float64; data and weights from numpy.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(4)
nz, ngf, nc = 4, 16, 2


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(nz, ngf),
            nn.BatchNorm1d(ngf),
            nn.ReLU(True),
            nn.Linear(ngf, nc),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(nc, ngf),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ngf, 1),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Linear') != -1:
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.normal(0.0, 0.4, tuple(m.weight.shape))))
            m.bias.fill_(0.01)
    elif classname.find('BatchNorm') != -1:
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.normal(1.0, 0.02, tuple(m.weight.shape))))
        nn.init.constant_(m.bias, 0)


netG = Generator()
netG.apply(weights_init)
netD = Discriminator()
netD.apply(weights_init)

criterion = nn.BCELoss()
real_label, fake_label = 1., 0.
optimizerD = optim.Adam(netD.parameters(), lr=0.002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.002, betas=(0.5, 0.999))
fixed_noise = torch.from_numpy(rng.standard_normal((8, nz)))

D_losses, G_losses, D_x, D_G_z = [], [], [], []
for i in range(25):
    real = torch.from_numpy(rng.standard_normal((16, nc)) * 0.5 + 1.0)
    b_size = real.size(0)
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    label = torch.full((b_size,), real_label, dtype=real.dtype)
    output = netD(real)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x.append(output.mean().item())
    noise = torch.from_numpy(rng.standard_normal((b_size, nz)))
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) Update G network: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z.append(output.mean().item())
    optimizerG.step()
    D_losses.append(errD.item())
    G_losses.append(errG.item())

netG.eval()
with torch.no_grad():
    samples = netG(fixed_noise).detach().cpu()

results = {
    "D_losses": D_losses,
    "G_losses": G_losses,
    "D_x": D_x,
    "D_G_z": D_G_z,
    "netG": netG.state_dict(),
    "netD": netD.state_dict(),
    "samples": samples,
    "D_grads": [p.grad for p in netD.parameters()],
    "adam_step": [optimizerG.state_dict()["state"][0]["step"]],
}
'''


def test_gan_matches_torch():
    reference, ported = run_both(PROGRAM, "gan")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
