"""The PyTorch tutorial "Language Modeling with nn.Transformer": PositionalEncoding with a
registered buffer, TransformerEncoder of TransformerEncoderLayer, the causal mask from
nn.Transformer.generate_square_subsequent_mask, CrossEntropyLoss, SGD + StepLR,
clip_grad_norm_, evaluate(); then a batch_first GELU encoder with a final LayerNorm on padded
sequences (eval under no_grad, where PyTorch's nested-tensor fast path returns zeros at the
padded positions, and train with backward), a norm_first layer with is_causal, an
nn.Transformer encoder-decoder trained a few Adam steps, and PyTorch's warning and error texts.
Dropout 0 (the tutorial's 0.2 draws masks that differ between libraries); float64.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import math
import warnings

import numpy as np
import torch
from torch import nn, Tensor
from torch.nn import TransformerEncoder, TransformerEncoderLayer

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(6)


class TransformerModel(nn.Module):

    def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int,
                 nlayers: int, dropout: float = 0.5):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)

        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


class PositionalEncoding(nn.Module):

    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)

        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


def batchify(data: Tensor, bsz: int) -> Tensor:
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data


bptt = 7


def get_batch(source: Tensor, i: int):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i+seq_len]
    target = source[i+1:i+1+seq_len].reshape(-1)
    return data, target


ntokens = 25
emsize, d_hid, nlayers, nhead = 16, 32, 2, 2
dropout = 0.0  # the tutorial's 0.2; dropout masks differ between libraries
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, dropout)
nested_warning = [str(w.message) for w in caught]
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, tuple(p.shape))))
n_params = sum(p.numel() for p in model.parameters())
param_names = [n for n, _ in model.named_parameters()]

train_data = batchify(torch.from_numpy(rng.integers(0, ntokens, 160)), 4)
val_data = batchify(torch.from_numpy(rng.integers(0, ntokens, 60)), 2)

criterion = nn.CrossEntropyLoss()
lr = 5.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
losses, val_losses = [], []


def train(model: nn.Module) -> None:
    model.train()
    num_batches = len(train_data) // bptt
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)

        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        losses.append(loss.item())


def evaluate(model: nn.Module, eval_data: Tensor) -> float:
    model.eval()
    total_loss = 0.
    with torch.no_grad():
        for i in range(0, eval_data.size(0) - 1, bptt):
            data, targets = get_batch(eval_data, i)
            seq_len = data.size(0)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            total_loss += seq_len * criterion(output_flat, targets).item()
    return total_loss / (len(eval_data) - 1)


for epoch in range(1, 4):
    train(model)
    val_loss = evaluate(model, val_data)
    val_losses.append(val_loss)
    print(f'| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}')
    scheduler.step()

# A batch_first encoder with norm_first and GELU, run on padded sequences: in eval mode
# PyTorch's fast path returns zeros at the padded positions.
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0,
                                   activation="gelu", batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(8))
with torch.no_grad():
    for p in encoder.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape))))
x = torch.from_numpy(rng.standard_normal((3, 5, 8)))
pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
encoder.eval()
with torch.no_grad():
    padded_eval = encoder(x, src_key_padding_mask=pad)
encoder.train()
padded_train = encoder(x, src_key_padding_mask=pad)
padded_train.sum().backward()

pre_norm = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True, norm_first=True)
with torch.no_grad():
    for p in pre_norm.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape))))
causal = nn.Transformer.generate_square_subsequent_mask(5)
pre_norm_out = pre_norm(x, src_mask=causal, is_causal=True)

# nn.Transformer: encoder-decoder on a copy task, a few Adam steps
transformer = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                             dim_feedforward=16, dropout=0.0)
with torch.no_grad():
    for p in transformer.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape))))
src = torch.from_numpy(rng.standard_normal((6, 2, 8)))
tgt = torch.from_numpy(rng.standard_normal((4, 2, 8)))
opt = torch.optim.Adam(transformer.parameters(), lr=1e-2)
seq_losses = []
for step in range(5):
    opt.zero_grad()
    out = transformer(src, tgt, tgt_mask=transformer.generate_square_subsequent_mask(4))
    loss = nn.functional.mse_loss(out, tgt)
    loss.backward()
    opt.step()
    seq_losses.append(loss.item())
try:
    transformer(src, tgt[:, :1])
    batch_error = ""
except RuntimeError as e:
    batch_error = str(e)
try:
    nn.TransformerEncoderLayer(8, 2, activation="tanh")
    act_error = ""
except RuntimeError as e:
    act_error = str(e)

results = {
    "texts": [ord(c) for c in "|".join(nested_warning + param_names + [batch_error, act_error])],
    "n_params": n_params,
    "losses": losses,
    "val_losses": val_losses,
    "state": model.state_dict(),
    "padded_eval": padded_eval,
    "padded_train": padded_train,
    "encoder_grads": [p.grad for p in encoder.parameters()],
    "pre_norm_out": pre_norm_out,
    "seq_losses": seq_losses,
    "transformer": transformer.state_dict(),
}
'''


def test_transformer_language_model_matches_torch():
    reference, ported = run_both(PROGRAM, "transformer_lm")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
