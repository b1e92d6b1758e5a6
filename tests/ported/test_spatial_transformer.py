"""PyTorch tutorial "Spatial Transformer Networks Tutorial" (intermediate/spatial_transformer_tutorial):
the Net as published (localization conv stack, fc_loc regressing theta initialised to the
identity transform, F.affine_grid + F.grid_sample, conv classifier, log_softmax + nll_loss),
trained a few steps with SGD on MNIST-shaped random data.

Data and weights come from numpy (random streams differ). The tutorial's Dropout2d and
F.dropout stay in the model, but train() calls model.eval(): dropout masks are random draws
that differ between the libraries, and F.dropout(training=self.training) has no `p` to zero.
float64.

theta starts a hair (1e-3) off the identity: at the exact identity every sample point of
align_corners=False lands on a pixel centre, the kink of bilinear interpolation, where the
gradient with respect to the grid is one-sided and the side is decided by the last bit of
the unnormalised coordinate. torch's vectorised CPU kernel rounds that coordinate as a fused
multiply-add, so at 28 pixels column/row 4 lands at 3.9999999999999996 there, and at 4.0 in
minigrad (as in ATen's scalar formula ((x + 1) * size - 1) / 2): the first step's theta
gradient at the exact identity is a tie-break, not a value either library gets wrong.
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

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)
device = torch.device("cpu")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2)
        )

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net().to(device)
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.startswith("fc_loc.2"):
            continue  # the tutorial's identity initialisation (perturbed below)
        fan_in = int(np.prod(p.shape[1:])) if p.dim() > 1 else 32
        bound = 1 / np.sqrt(fan_in)
        p.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))))
    model.fc_loc[2].bias.add_(torch.from_numpy(rng.uniform(-1e-3, 1e-3, 6)))

optimizer = optim.SGD(model.parameters(), lr=0.01)

images = torch.from_numpy(rng.uniform(0, 1, (24, 1, 28, 28)))
labels = torch.from_numpy(rng.integers(0, 10, 24))
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images, labels), batch_size=8, shuffle=False)


def train(epoch):
    model.eval()  # dropout off: its random masks differ between libraries
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)

        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def test():
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in train_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)

            # sum up batch loss
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            # get the index of the max log-probability
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()

        test_loss /= len(train_loader.dataset)
        return test_loss, correct


losses = []
for epoch in range(1, 3):
    losses += train(epoch)
test_loss, correct = test()

# Visualize the STN transformation on a batch
with torch.no_grad():
    data = next(iter(train_loader))[0].to(device)
    input_tensor = data.cpu()
    transformed_input_tensor = model.stn(data).cpu()
    theta = model.fc_loc(model.localization(data).view(-1, 90)).view(-1, 2, 3)

results = {
    "losses": losses,
    "test": [test_loss, correct],
    "state": model.state_dict(),
    "grads": [p.grad for p in model.parameters()],
    "theta": theta,
    "transformed": transformed_input_tensor,
}
'''


@pytest.mark.filterwarnings("ignore:Default grid_sample and affine_grid behavior")
def test_spatial_transformer_matches_torch():
    reference, ported = run_both(PROGRAM, "spatial_transformer")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
