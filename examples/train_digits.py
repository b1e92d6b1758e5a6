"""Train an MLP and a small CNN on scikit-learn's bundled 8x8 digits with minigrad.

Written as a PyTorch script would be (only the import differs): DataLoader, Adam,
a tqdm progress bar, a matplotlib PNG of loss/accuracy curves, and the best
checkpoint saved with minigrad.save and reloaded with minigrad.load.

    pip install -e .[examples]
    python examples/train_digits.py                      # both models, ~97-99% test accuracy
    python examples/train_digits.py --model cnn --epochs 2 --out /tmp/digits   # a small budget
    python -m minigrad.distributed.run -n 2 examples/train_digits.py --distributed
                                    # data-parallel over MPI: pip install -e .[distributed]
"""
import argparse
import os

import numpy as np

import minigrad as torch
import minigrad.distributed as dist
from minigrad import nn
from minigrad.nn.parallel import DistributedDataParallel
from minigrad.utils.data import DataLoader, DistributedSampler, TensorDataset

try:
    from sklearn.datasets import load_digits
    from tqdm import tqdm
    import matplotlib
    matplotlib.use("Agg")  # write PNGs without a display
    import matplotlib.pyplot as plt
except ImportError as exc:
    raise SystemExit(f"train_digits.py needs the examples extra ({exc.name} is missing): "
                     "pip install 'minigrad[examples]'") from exc


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),   # 16 x 8 x 8
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),     # 32 x 4 x 4
        nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))


MODELS = {"mlp": mlp, "cnn": cnn}


def datasets(test_fraction, seed):
    """Digits scaled to [0, 1] as (N, 1, 8, 8) float32, split into train and test."""
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return (TensorDataset(torch.tensor(x[train]), torch.tensor(y[train])),
            TensorDataset(torch.tensor(x[test]), torch.tensor(y[test])))


def evaluate(model, loader, loss_fn):
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            total_loss += loss_fn(logits, yb).item() * len(yb)
            correct += (logits.argmax(dim=1) == yb).sum().item()
            count += len(yb)
    return total_loss / count, correct / count


def train(name, args, train_set, test_set):
    torch.manual_seed(args.seed)
    model = MODELS[name]()
    loss_fn = nn.CrossEntropyLoss()
    lead = not args.distributed or dist.get_rank() == 0  # the rank that reports and saves
    sampler = None
    if args.distributed:  # each rank trains on its share; gradients are averaged in backward
        model = DistributedDataParallel(model)
        sampler = DistributedSampler(train_set, seed=args.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=sampler is None,
                              sampler=sampler, generator=generator)
    plain = model.module if args.distributed else model  # what the checkpoint holds
    test_loader = DataLoader(test_set, batch_size=256)
    checkpoint = os.path.join(args.out, f"digits_{name}_best.pt")
    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    best = -1.0
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        running, seen = 0.0, 0
        bar = tqdm(train_loader, desc=f"{name} epoch {epoch}/{args.epochs}", leave=False,
                   disable=args.quiet or not lead)
        for xb, yb in bar:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(yb)
            seen += len(yb)
            bar.set_postfix(loss=f"{running / seen:.4f}")
        test_loss, test_acc = evaluate(model, test_loader, loss_fn)
        history["train_loss"].append(running / seen)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        if test_acc > best:  # every rank holds the same model, so all agree on the best
            best = test_acc
            if lead:
                torch.save({"epoch": epoch, "model": plain.state_dict(),
                            "optimizer": optimizer.state_dict(), "test_acc": test_acc},
                           checkpoint)
        if not args.quiet and lead:
            print(f"{name} epoch {epoch}: train loss {running / seen:.4f}, "
                  f"test loss {test_loss:.4f}, test accuracy {test_acc:.4f}")
    if args.distributed:
        dist.barrier()  # rank 0's last save is complete before anyone reads it
    # the best checkpoint, reloaded into a fresh model, gives the best accuracy again
    state = torch.load(checkpoint)
    reloaded = MODELS[name]()
    reloaded.load_state_dict(state["model"])
    _, reloaded_acc = evaluate(reloaded, test_loader, loss_fn)
    if lead:
        print(f"{name}: best test accuracy {best:.4f} at epoch {state['epoch']}; "
              f"reloaded checkpoint: {reloaded_acc:.4f}")
    return history, reloaded_acc


def plot(histories, path):
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for name, h in histories.items():
        epochs = range(1, len(h["train_loss"]) + 1)
        ax_loss.plot(epochs, h["train_loss"], label=f"{name} train")
        ax_loss.plot(epochs, h["test_loss"], "--", label=f"{name} test")
        ax_acc.plot(epochs, h["test_acc"], label=name)
    ax_loss.set(xlabel="epoch", ylabel="cross entropy", title="loss")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", title="test accuracy")
    ax_loss.legend()
    ax_acc.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--test-fraction", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="digits_out", help="folder for checkpoints and PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or epoch lines")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel over MPI (launch with python -m "
                             "minigrad.distributed.run -n N)")
    args = parser.parse_args(argv)
    if args.distributed:
        dist.init_process_group("mpi")
    os.makedirs(args.out, exist_ok=True)
    train_set, test_set = datasets(args.test_fraction, args.seed)
    names = ["mlp", "cnn"] if args.model == "both" else [args.model]
    histories, accuracies = {}, {}
    for name in names:
        histories[name], accuracies[name] = train(name, args, train_set, test_set)
    if not args.distributed or dist.get_rank() == 0:
        png = os.path.join(args.out, "digits_curves.png")
        plot(histories, png)
        print(f"curves written to {png}")
    if args.distributed:
        dist.destroy_process_group()
    return accuracies


if __name__ == "__main__":
    main()
