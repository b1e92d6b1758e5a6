"""pytorch/examples word_language_model with --tied: Embedding -> 2-layer LSTM -> Linear whose
weight *is* the embedding weight (one Parameter, listed once by parameters()), NLLLoss,
clip_grad_norm_, optim.SGD with StepLR(gamma=0.5) per epoch, evaluate() under eval/no_grad
with a fresh hidden state. Dropout is set to 0 the way a user would (module `p` and the
LSTM's `dropout` attribute); float64; weights from numpy.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(1)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


ntokens = 30
corpus = torch.from_numpy(rng.integers(0, ntokens, 200))
model = RNNModel(ntokens, 16, 16, 2, dropout=0.2, tie_weights=True)
assert model.decoder.weight is model.encoder.weight
n_params = sum(p.numel() for p in model.parameters())
names = [n for n, _ in model.named_parameters()]
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape))))
for m in model.modules():
    if isinstance(m, nn.Dropout):
        m.p = 0.0
# the LSTM's inter-layer dropout is an attribute too
model.rnn.dropout = 0.0

criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
bsz, bptt = 4, 6


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


train_data = batchify(corpus[:160], bsz)
val_data = batchify(corpus[160:], 2)


def evaluate(data_source):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(2)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


losses, val_losses, lrs = [], [], []
for epoch in range(1, 4):
    model.train()
    hidden = model.init_hidden(bsz)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        hidden = tuple(h.detach() for h in hidden)
        optimizer.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        losses.append(loss.item())
    val_loss = evaluate(val_data)
    val_losses.append(val_loss)
    print('| end of epoch {:3d} | valid loss {:5.2f} | valid ppl {:8.2f} | lr {}'.format(
        epoch, val_loss, math.exp(val_loss), scheduler.get_last_lr()))
    lrs.append(scheduler.get_last_lr()[0])
    scheduler.step()

results = {
    "n_params": n_params,
    "names": [len(n) for n in names],
    "losses": losses,
    "val_losses": val_losses,
    "lrs": lrs,
    "state": model.state_dict(),
    "tied_grad": model.encoder.weight.grad,
}
'''


def test_word_language_model_tied_matches_torch():
    reference, ported = run_both(PROGRAM, "word_lm")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
