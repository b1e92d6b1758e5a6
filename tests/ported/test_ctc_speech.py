"""A small CTC speech-recognition training program as users write it (the shape of
DeepSpeech-style examples): a bidirectional LSTM acoustic model over padded "spectrogram"
frames (packed with pack_padded_sequence), nn.Linear to the alphabet, log_softmax(2) on
(T, N, C), nn.CTCLoss(blank=0, zero_infinity=True) over padded targets of different
lengths, Adam with clip_grad_norm_, and greedy decoding (argmax, collapse repeats, drop
blanks) under no_grad.

One utterance's transcript is longer than its frames allow: its loss is infinite and
zero_infinity zeroes it and its gradient. Data and weights come from numpy (random streams
differ). float64.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)

n_mels, hidden, n_classes = 13, 16, 6   # class 0 is the CTC blank


class AcousticModel(nn.Module):
    def __init__(self, n_feats, n_hidden, n_class):
        super().__init__()
        self.rnn = nn.LSTM(n_feats, n_hidden, num_layers=1, bidirectional=True)
        self.fc = nn.Linear(2 * n_hidden, n_class)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = pad_packed_sequence(out, total_length=x.size(0))
        return self.fc(out).log_softmax(2)   # (T, N, C)


def greedy_decode(log_probs, lengths, blank=0):
    best = log_probs.argmax(2).t()   # (N, T)
    decoded = []
    for path, length in zip(best.tolist(), lengths.tolist()):
        out, previous = [], blank
        for label in path[:length]:
            if label != previous and label != blank:
                out.append(label)
            previous = label
        decoded.append(out)
    return decoded


model = AcousticModel(n_mels, hidden, n_classes)
with torch.no_grad():
    for p in model.parameters():
        bound = 1 / np.sqrt(hidden)
        p.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))))

T, N = 20, 4
input_lengths = torch.tensor([20, 17, 12, 4], dtype=torch.long)
target_lengths = torch.tensor([6, 4, 5, 5], dtype=torch.long)   # the last: 5 labels, 4 frames
features = torch.from_numpy(rng.standard_normal((T, N, n_mels)))
for i, length in enumerate(input_lengths.tolist()):
    features[length:, i] = 0.0   # padding frames
targets = torch.zeros(N, int(target_lengths.max()), dtype=torch.long)
for i, length in enumerate(target_lengths.tolist()):
    labels = rng.integers(1, n_classes, length)
    labels[1::2] = labels[::2][:len(labels[1::2])]   # repeats need a blank between them
    targets[i, :length] = torch.from_numpy(labels)

criterion = nn.CTCLoss(blank=0, zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-2)

losses, grad_norms = [], []
for step in range(25):
    model.train()
    optimizer.zero_grad()
    log_probs = model(features, input_lengths)
    loss = criterion(log_probs, targets, input_lengths, target_lengths)
    loss.backward()
    grad_norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
    optimizer.step()
    losses.append(loss.item())

model.eval()
with torch.no_grad():
    log_probs = model(features, input_lengths)
    per_utterance = F.ctc_loss(log_probs, targets, input_lengths, target_lengths,
                               blank=0, reduction="none", zero_infinity=False)
    decoded = greedy_decode(log_probs, input_lengths)

results = {
    "losses": losses,
    "grad_norms": grad_norms,
    "grads": [p.grad for p in model.parameters()],
    "state": model.state_dict(),
    "per_utterance": per_utterance,
    "log_probs": log_probs,
    "decoded": [label for sequence in decoded for label in sequence] + [-1] + [len(s) for s in decoded],
}
'''


def test_ctc_speech_matches_torch():
    reference, ported = run_both(PROGRAM, "ctc_speech")
    assert reference["per_utterance"][-1] == float("inf")   # zero_infinity had work to do
    assert reference["decoded"][-4:] == [6, 4, 5, 0]   # the feasible transcripts are learnt
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
