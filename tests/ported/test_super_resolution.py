"""pytorch/examples super_resolution: the sub-pixel CNN (Conv2d stack + nn.PixelShuffle, init.orthogonal_
with calculate_gain), MSELoss, Adam, PSNR via log10, train/test over DataLoaders, on smooth
random "images" whose low-resolution inputs come from F.interpolate(bilinear); then a U-Net
decoder block (nn.Upsample bilinear with align_corners=True, or nearest; F.pad to the skip
connection's size; cat; Conv2d) with backward, nn.PixelUnshuffle, the legacy
UpsamplingBilinear2d, nearest-exact resizing to an explicit size, and the modules' reprs.
float64; weights from numpy.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
from math import log10

import numpy as np
import torch
import torch.nn as nn
import torch.nn.init as init
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(8)


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


upscale_factor = 2
# "images": smooth targets, inputs are their bicubic-free downsampled versions
hr = torch.from_numpy(rng.random((12, 1, 16, 16)))
hr = F.avg_pool2d(F.pad(hr, (1, 1, 1, 1), mode='replicate'), 3, stride=1)
lr_images = F.interpolate(hr, scale_factor=0.5, mode='bilinear', align_corners=False)
train_set = TensorDataset(lr_images[:8], hr[:8])
test_set = TensorDataset(lr_images[8:], hr[8:])
training_data_loader = DataLoader(dataset=train_set, batch_size=4, shuffle=False)
testing_data_loader = DataLoader(dataset=test_set, batch_size=4, shuffle=False)

model = Net(upscale_factor=upscale_factor)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, tuple(p.shape))))
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
print(model)

epoch_losses, psnrs = [], []


def train(epoch):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0], batch[1]
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
    epoch_losses.append(epoch_loss / len(training_data_loader))
    print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))


def test():
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0], batch[1]
            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    psnrs.append(avg_psnr / len(testing_data_loader))
    print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))


for epoch in range(1, 4):
    train(epoch)
    test()


# A U-Net style decoder step: upsample, concatenate the skip connection, convolve;
# then the inverse (PixelUnshuffle) and the deprecated UpsamplingBilinear2d.
class Up(nn.Module):
    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
        else:
            self.up = nn.Upsample(scale_factor=2, mode='nearest')
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2,
                        diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


up_grads = []
for bilinear in (True, False):
    up = Up(6, 3, bilinear)
    with torch.no_grad():
        for p in up.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape))))
    x1 = torch.from_numpy(rng.standard_normal((2, 3, 4, 5))).requires_grad_()
    x2 = torch.from_numpy(rng.standard_normal((2, 3, 9, 11)))
    out = up(x1, x2)
    out.pow(2).sum().backward()
    up_grads += [out, x1.grad, up.conv.weight.grad]

shuffled = nn.PixelUnshuffle(2)(hr[:2])
legacy = nn.UpsamplingBilinear2d(scale_factor=2)(lr_images[:1])
sizes = F.interpolate(lr_images[:1], size=(5, 7), mode='nearest-exact')

results = {
    "epoch_losses": epoch_losses,
    "psnrs": psnrs,
    "state": model.state_dict(),
    "lr_images": lr_images,
    "up": up_grads,
    "shuffled": shuffled,
    "legacy": legacy,
    "sizes": sizes,
    "reprs": [ord(c) for c in repr(model) + repr(Up(6, 3)) + repr(nn.Upsample(size=(3, 4)))],
}
'''


def test_super_resolution_matches_torch():
    reference, ported = run_both(PROGRAM, "super_resolution")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
