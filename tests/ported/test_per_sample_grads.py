"""PyTorch tutorial "Per-sample-gradients" (intermediate/per_sample_grads): the SimpleCNN as
published, per-sample gradients once with a loop of `torch.autograd.grad` over single
samples and once with `vmap(grad(compute_loss))` over `functional_call`, and the two
compared as the tutorial does.

Data and weights come from numpy (random streams differ); the tutorial's batch of 64 MNIST
images is 8 here. float64.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)
device = 'cpu'

# Here's a simple CNN and loss function:


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


batch_size = 8
num_classes = 10

data = torch.from_numpy(rng.standard_normal((batch_size, 1, 28, 28))).to(device)
targets = torch.from_numpy(rng.integers(0, num_classes, batch_size)).to(device)

model = SimpleCNN().to(device=device)
with torch.no_grad():
    for p in model.parameters():
        fan_in = int(np.prod(p.shape[1:])) if p.dim() > 1 else p.shape[0]
        bound = 1 / np.sqrt(fan_in)
        p.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))))

predictions = model(data)  # move the entire mini-batch through the model

loss = loss_fn(predictions, targets)
loss.backward()  # back propagate the 'average' gradient of this mini-batch


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)  # prepend batch dimension for processing
    target = target.unsqueeze(0)

    prediction = model(sample)
    loss = loss_fn(prediction, target)

    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    """ manually process each sample with per sample gradient """
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


per_sample_grads = compute_sample_grads(data, targets)

from torch.func import functional_call, vmap, grad

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)

    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))

ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

# we can double check that the results using ``grad`` and ``vmap`` match the results of
# hand processing each one individually:
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)

results = {
    "loop": per_sample_grads,
    "vmap": ft_per_sample_grads,
    "batch_grads": [p.grad for p in model.parameters()],
    "mean_of_samples": [g.mean(0) for g in ft_per_sample_grads.values()],
}
'''


def test_per_sample_grads_matches_torch():
    reference, ported = run_both(PROGRAM, "per_sample_grads")
    assert_same(reference, ported, rtol=1e-7, atol=1e-12)
    # the batch gradient of a mean loss is the mean of the per-sample gradients
    for batch, mean in zip(ported["batch_grads"], ported["mean_of_samples"]):
        assert torch.allclose(torch.from_numpy(batch.numpy()), torch.from_numpy(mean.numpy()),
                              rtol=1e-9, atol=1e-12)
