"""A character-level language model in the style of pytorch/examples word_language_model:
Embedding -> LSTM/GRU -> Linear decoder, truncated BPTT with `repackage_hidden`,
CrossEntropyLoss, clip_grad_norm_, and the example's manual SGD update
(`p.data.add_(p.grad, alpha=-lr)`).

The text is fixed, the weights come from numpy; float64 throughout. One program text,
parametrised over the RNN type the way the example's --model flag is.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)
RNN_TYPE = "{rnn_type}"

text = "the quick brown fox jumps over the lazy dog. " * 8
chars = sorted(set(text))
stoi = {{c: i for i, c in enumerate(chars)}}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.0):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return torch.nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


bptt = 8
def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i+seq_len]
    target = source[i+1:i+1+seq_len].view(-1)
    return data, target


train_data = batchify(data, 4)
model = RNNModel(RNN_TYPE, len(chars), 12, 16, 2)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.25, 0.25, tuple(p.shape))))
criterion = nn.NLLLoss()
lr, clip = 2.0, 0.25

model.train()
hidden = model.init_hidden(4)
losses, norms = [], []
for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
    data, targets = get_batch(train_data, i)
    # Starting each batch, we detach the hidden state from how it was previously produced.
    # If we didn't, the model would try backpropagating all the way to start of the dataset.
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    output, hidden = model(data, hidden)
    loss = criterion(output, targets)
    loss.backward()

    # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
    norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), clip).item())
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    losses.append(loss.item())
    print('| batch {{:3d}} | loss {{:5.2f}} | ppl {{:8.2f}}'.format(batch, loss.item(),
                                                                 math.exp(loss.item())))

results = {{
    "losses": losses,
    "norms": norms,
    "state": model.state_dict(),
    "hidden": list(hidden) if isinstance(hidden, tuple) else [hidden],
    "grads": [p.grad for p in model.parameters()],
}}
'''


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH"])
def test_char_rnn_matches_torch(rnn_type):
    source = PROGRAM.format(rnn_type="RNN" if rnn_type == "RNN_TANH" else rnn_type)
    reference, ported = run_both(source, f"char_rnn[{rnn_type}]")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
