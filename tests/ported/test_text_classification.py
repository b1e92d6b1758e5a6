"""The PyTorch tutorial "Text classification with the torchtext library": the collate_batch
that concatenates token ids and builds offsets with cumsum, TextClassificationModel
(nn.EmbeddingBag(sparse=False) in mean mode + Linear, init through `.data.uniform_`),
CrossEntropyLoss, SGD(lr=5) with clip_grad_norm_(0.1), StepLR stepped when validation
accuracy drops, random_split, DataLoaders with collate_fn, evaluate() and predict() on one
unbatched text with offsets [0]. AG_NEWS and the torchtext vocabulary are replaced by a fixed
toy corpus (no download); float64; weights from numpy.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.dataset import random_split

torch.set_default_dtype(torch.float64)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
rng = np.random.default_rng(10)

# The tutorial's AG_NEWS iterator and torchtext vocab, replaced by a fixed toy corpus.
words = ["ball", "team", "goal", "match", "stock", "market", "price", "bank", "rocket",
         "space", "chip", "phone", "vote", "law", "the", "a"]
vocab = {w: i for i, w in enumerate(words)}
topics = [["ball", "team", "goal", "match"], ["stock", "market", "price", "bank"],
          ["rocket", "space", "chip", "phone"], ["vote", "law", "bank", "team"]]
train_iter = []
for _ in range(48):
    label = int(rng.integers(1, 5))
    n = int(rng.integers(3, 8))
    tokens = [topics[label - 1][int(rng.integers(0, 4))] if rng.random() < 0.7
              else words[int(rng.integers(0, len(words)))] for _ in range(n)]
    train_iter.append((label, " ".join(tokens)))


def tokenizer(text):
    return text.split()


text_pipeline = lambda x: [vocab[t] for t in tokenizer(x)]
label_pipeline = lambda x: int(x) - 1


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list.to(device), text_list.to(device), offsets.to(device)


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set([label for (label, text) in train_iter]))
vocab_size = len(vocab)
emsize = 8
model = TextClassificationModel(vocab_size, emsize, num_class).to(device)
with torch.no_grad():
    model.embedding.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (vocab_size, emsize))))
    model.fc.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (num_class, emsize))))

train_losses, accs = [], []


def train(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        train_losses.append(loss.item())
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0
    with torch.no_grad():
        for idx, (label, text, offsets) in enumerate(dataloader):
            predicted_label = model(text, offsets)
            loss = criterion(predicted_label, label)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


EPOCHS = 4
LR = 5
BATCH_SIZE = 8

criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
total_accu = None
train_dataset = train_iter[:32]
test_dataset = train_iter[32:]
num_train = int(len(train_dataset) * 0.95)
split_train_, split_valid_ = random_split(train_dataset, [num_train, len(train_dataset) - num_train])
split_lengths = [len(split_train_), len(split_valid_)]
# random_split's permutation differs between libraries: go on with a fixed split
split_train_, split_valid_ = train_dataset[:num_train], train_dataset[num_train:]

train_dataloader = DataLoader(split_train_, batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)
valid_dataloader = DataLoader(split_valid_, batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)
test_dataloader = DataLoader(test_dataset, batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)

lrs = []
for epoch in range(1, EPOCHS + 1):
    epoch_start_time = time.time()
    train(train_dataloader)
    accu_val = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    accs.append(accu_val)
    lrs.append(scheduler.get_last_lr()[0])
    print("-" * 59)
    print("| end of epoch {:3d} | time: {:5.2f}s | valid accuracy {:8.3f} ".format(
        epoch, time.time() - epoch_start_time, accu_val))

accu_test = evaluate(test_dataloader)
print("test accuracy {:8.3f}".format(accu_test))

ag_news_label = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}
model = model.to("cpu")  # as the tutorial: predict() builds its tensors on the CPU


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


prediction = predict("rocket space chip the phone", text_pipeline)
print("This is a %s news" % ag_news_label[prediction])

results = {
    "split_lengths": split_lengths,
    "train_losses": train_losses,
    "accs": accs,
    "lrs": lrs,
    "accu_test": accu_test,
    "prediction": prediction,
    "state": model.state_dict(),
    "grads": [p.grad for p in model.parameters()],
}
'''


def test_text_classification_matches_torch():
    reference, ported = run_both(PROGRAM, "text_classification")
    assert_same(reference, ported, rtol=1e-9, atol=1e-12)
