"""The TCN of locuslab/TCN (Bai et al.) on its adding problem: TemporalBlocks of
weight_norm(nn.Conv1d) with causal padding and Chomp1d, dilations 1/2/4, 1x1 downsample
residuals, init through `.weight.data.normal_` on the weight_norm-computed weight, Adam with
clip_grad_norm_, then remove_weight_norm and eval prediction. Dropout 0; float64; data and
weights from numpy (the deprecation FutureWarning of nn.utils.weight_norm is silenced).
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import weight_norm

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(12)
warnings.simplefilter("ignore", FutureWarning)


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super(Chomp1d, self).__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super(TemporalBlock, self).__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)

        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)

        self.net = nn.Sequential(self.conv1, self.chomp1, self.relu1, self.dropout1,
                                 self.conv2, self.chomp2, self.relu2, self.dropout2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super(TemporalConvNet, self).__init__()
        layers = []
        num_levels = len(num_channels)
        for i in range(num_levels):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i-1]
            out_channels = num_channels[i]
            layers += [TemporalBlock(in_channels, out_channels, kernel_size, stride=1, dilation=dilation_size,
                                     padding=(kernel_size-1) * dilation_size, dropout=dropout)]

        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


class TCN(nn.Module):
    def __init__(self, input_size, output_size, num_channels, kernel_size, dropout):
        super(TCN, self).__init__()
        self.tcn = TemporalConvNet(input_size, num_channels, kernel_size=kernel_size, dropout=dropout)
        self.linear = nn.Linear(num_channels[-1], output_size)
        self.init_weights()

    def init_weights(self):
        self.linear.weight.data.normal_(0, 0.01)

    def forward(self, x):
        y1 = self.tcn(x)
        return self.linear(y1[:, :, -1])


# The adding problem: sum the two marked numbers of a sequence.
def data_generator(N, seq_length):
    X_num = torch.from_numpy(rng.random((N, 1, seq_length)))
    X_mask = torch.zeros([N, 1, seq_length])
    Y = torch.zeros([N, 1])
    for i in range(N):
        positions = rng.choice(seq_length, size=2, replace=False)
        X_mask[i, 0, positions[0]] = 1
        X_mask[i, 0, positions[1]] = 1
        Y[i, 0] = X_num[i, 0, positions[0]] + X_num[i, 0, positions[1]]
    X = torch.cat((X_num, X_mask), dim=1)
    return X, Y


X_train, Y_train = data_generator(32, 12)
model = TCN(2, 1, [6, 6, 6], kernel_size=3, dropout=0.0)
names = [n for n, _ in model.named_parameters()]
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape))))
optimizer = getattr(torch.optim, "Adam")(model.parameters(), lr=4e-3)
batch_size = 8
losses = []
for epoch in range(3):
    for i in range(0, X_train.size(0), batch_size):
        x, y = X_train[i:i + batch_size], Y_train[i:i + batch_size]
        optimizer.zero_grad()
        output = model(x)
        loss = torch.nn.functional.mse_loss(output, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        losses.append(loss.item())

conv = model.tcn.network[0].conv1
weight_before = conv.weight.detach().clone()
torch.nn.utils.remove_weight_norm(conv)
model.eval()
with torch.no_grad():
    prediction = model(X_train[:4])

results = {
    "names": [ord(c) for c in "|".join(names)],
    "losses": losses,
    "state": model.state_dict(),
    "weight_before": weight_before,
    "removed": conv.weight,
    "prediction": prediction,
}
'''


def test_tcn_matches_torch():
    reference, ported = run_both(PROGRAM, "tcn")
    assert_same(reference, ported, rtol=1e-8, atol=1e-11)
