"""An image classifier in the style of torchvision's VGG/ResNet training scripts: Conv2d(bias=False)
+ BatchNorm2d + ReLU(inplace) + MaxPool2d blocks, AdaptiveAvgPool2d((1, 1)), torchvision's
init loop (kaiming_normal_ fan_out, constant_, normal_), CrossEntropyLoss(label_smoothing),
SGD with nesterov momentum and weight decay, zero_grad(set_to_none=True), train/eval,
validation accuracy via outputs.max(1), ReduceLROnPlateau(patience=0) on the validation loss;
random_split with fractions and a Generator (checked as a partition; the permutation differs
between libraries, so training continues on a fixed Subset split). float64; data from numpy.
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
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.utils.data import DataLoader, Subset, TensorDataset, random_split

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(3)
images = torch.from_numpy(rng.standard_normal((96, 3, 16, 16)))
labels = torch.from_numpy(rng.integers(0, 4, 96))
dataset = TensorDataset(images, labels)
train_set, val_set = random_split(dataset, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
split = [len(train_set), len(val_set), sorted(list(train_set.indices) + list(val_set.indices)) == list(range(96))]
# the permutation differs between libraries: continue on a fixed split
train_set, val_set = Subset(dataset, range(64)), Subset(dataset, range(64, 96))
train_loader = DataLoader(train_set, batch_size=16)
val_loader = DataLoader(val_set, batch_size=32)


class ConvNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(nn.Dropout(p=0.0), nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = ConvNet()
for m in model.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0, 0.01)
        nn.init.zeros_(m.bias)
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape))))

criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
scheduler = ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=0, threshold=1e-2)

train_losses, val_losses, accs, lrs = [], [], [], []
for epoch in range(6):
    model.train()
    for inputs, targets in train_loader:
        optimizer.zero_grad(set_to_none=True)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        train_losses.append(loss.item())
    model.eval()
    val_loss, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for inputs, targets in val_loader:
            outputs = model(inputs)
            val_loss += criterion(outputs, targets).item() * inputs.size(0)
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
    val_loss /= total
    scheduler.step(val_loss)
    val_losses.append(val_loss)
    accs.append(100. * correct / total)
    lrs.append(optimizer.param_groups[0]['lr'])
    print(f"epoch {epoch} val loss {val_loss:.4f} acc {accs[-1]:.1f}% lr {lrs[-1]}")

results = {
    "train_losses": train_losses,
    "val_losses": val_losses,
    "accs": accs,
    "lrs": lrs,
    "state": model.state_dict(),
    "num_batches_tracked": model.features[1].num_batches_tracked,
    "split": split,
    "scheduler": [scheduler.num_bad_epochs, scheduler.best],
}
'''


def test_cnn_batchnorm_plateau_matches_torch():
    reference, ported = run_both(PROGRAM, "cnn_bn_plateau")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
