"""Eager per-op overhead and end-to-end speed, as ratios against baselines measured in the same run.

    python tools/bench.py [--quick] [--repeats N] [--cpu-time] [--alone] [--paired ROUNDS]

Workloads (forward + backward each iteration):
  simple  the seed notebook's ((a + b) * b).sum() on 4-element vectors
  chain   a 200-op chain of elementwise ops on 16-element vectors
  mlp     one SGD step of a 784-256-256-10 ReLU MLP, batch 128, float64: optim.SGD's step
          and zero_grad (PyTorch's too); mlp-loop: the update by hand, p -= lr * p.grad;
          mlp-nn: the same network as nn.Sequential of nn.Linear and nn.ReLU with
          F.cross_entropy (as a PyTorch user writes it; the same weights, transposed)
Baselines: hand-written numpy forward+backward, and PyTorch 2.13 CPU when it is installed;
numpy's BLAS and PyTorch run on one thread each.  Targets (issue #14, eager): simple at
most 0.6x PyTorch's time, chain at most 0.7x, mlp at most 1.0x hand-written numpy.
Timings are the best of several interleaved rounds (machines here are shared and noisy),
so compare the ratios, not the absolute numbers.  In one process, numpy's MLP step runs on
the heap minigrad's steps warmed; ``--alone`` also runs each MLP step in a process of its
own, with its page faults (numpy's allocations fault pages in on every step in some
runs, docs/compile.md).  ``--paired 101`` also times 101 rounds in random order and checks
each target on the median of the rounds' ratios and its 95% interval: a best-of-rounds
ratio within a few percent of its target is noise; an interval is not.
"""
import argparse
import os
import resource
import subprocess
import sys
import time

# One BLAS thread, like PyTorch below: on a shared machine extra threads only add noise.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minigrad as mg  # noqa: E402
from tools._timing import (add_options, best_time, interleaved, paired, paired_ratio,  # noqa: E402
                           paired_verdict, rounds_and_clock)

try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    torch = None

CHAIN_OPS = 200


# ------------------------------------------------------------------ simple
def simple_minigrad(lib=mg):
    a = lib.tensor(np.random.rand(4), requires_grad=True)
    b = lib.tensor(np.random.rand(4), requires_grad=True)

    def step():
        ((a + b) * b).sum().backward()
        a.grad = b.grad = None
    return step


def simple_numpy():
    a, b = np.random.rand(4), np.random.rand(4)

    def step():
        t = a + b
        (t * b).sum()
        grad = np.ones(4)
        return grad * b, grad * t + grad * b
    return step


# ------------------------------------------------------------------ chain
def chain(y):
    """The chain's forward: CHAIN_OPS elementwise ops on a minigrad or torch tensor."""
    for i in range(CHAIN_OPS // 4):
        y = y * 0.9
        y = y + 0.1
        y = y.tanh()
        y = y.sin()
    return y


def chain_minigrad(lib=mg):
    x = lib.tensor(np.random.rand(16), requires_grad=True)

    def step():
        chain(x).sum().backward()
        x.grad = None
    return step


def chain_numpy():
    x = np.random.rand(16)

    def step():
        values, y = [], x
        for _ in range(CHAIN_OPS // 4):
            y = y * 0.9
            y = y + 0.1
            t = np.tanh(y)
            values.append((t,))
            y = np.sin(t)
            values[-1] += (np.cos(t),)
        g = np.ones(16)
        for t, cos_t in reversed(values):
            g = g * cos_t
            g = g * (1 - t * t)
            g = g * 0.9
        return g
    return step


# ------------------------------------------------------------------ mlp
#: the MLP's layer sizes and batch (tools/bench_instructions.py --tiny shrinks them, keeping
#: the 10 classes, to count the per-step overhead alone)
MLP_SIZES, MLP_BATCH = (784, 256, 256, 10), 128


def mlp_data():
    rng = np.random.default_rng(0)
    sizes = MLP_SIZES
    weights = [rng.standard_normal((i, o)) * np.sqrt(2 / i) for i, o in zip(sizes, sizes[1:])]
    biases = [np.zeros(o) for o in sizes[1:]]
    x = rng.standard_normal((MLP_BATCH, sizes[0]))
    y = rng.integers(0, sizes[-1], MLP_BATCH)
    return weights, biases, x, y


def mlp_minigrad(lib=mg, optimizer=True, compile=None):
    """The step as a PyTorch user writes it: ``optim.SGD``'s ``step`` and ``zero_grad``, or
    (``optimizer=False``) the update by hand, ``p -= lr * p.grad`` under no_grad.
    ``compile``: ``minigrad.compile`` or ``torch.compile`` for the loss (bench_compile.py)."""
    weights, biases, x, y = mlp_data()
    params = [lib.tensor(p, requires_grad=True) for pair in zip(weights, biases) for p in pair]
    xt = lib.tensor(x)
    picks = lib.tensor(y[:, None])
    opt = lib.optim.SGD(params, lr=0.01)

    def loss_fn(xt, picks):
        h = xt
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i < len(params) - 2:
                h = h.relu()
        return -h.log_softmax(1).gather(1, picks).mean()
    if compile is not None:
        loss_fn = compile(loss_fn)

    def step():
        loss_fn(xt, picks).backward()
        if optimizer:
            opt.step()
            opt.zero_grad()
            return
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
    return step


def mlp_nn(lib=mg, compile=None):
    """The same step with the layers a PyTorch user reaches for: ``nn.Sequential`` of
    ``nn.Linear`` (weights stored ``(out, in)``: mlp_data's, transposed) and ``nn.ReLU``,
    ``F.cross_entropy``, ``optim.SGD``.  ``compile``: as in ``mlp_minigrad``."""
    weights, biases, x, y = mlp_data()
    layers = []
    for w, b in zip(weights, biases):
        linear = lib.nn.Linear(*w.shape, dtype=lib.float64)
        with lib.no_grad():
            linear.weight.copy_(lib.tensor(w.T))
            linear.bias.copy_(lib.tensor(b))
        layers += [linear, lib.nn.ReLU()]
    model = lib.nn.Sequential(*layers[:-1])
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    xt, yt = lib.tensor(x), lib.tensor(y)

    def loss_fn(xt, yt):
        return lib.nn.functional.cross_entropy(model(xt), yt)
    if compile is not None:
        loss_fn = compile(loss_fn)

    def step():
        loss_fn(xt, yt).backward()
        opt.step()
        opt.zero_grad()
    return step


def mlp_numpy():
    weights, biases, x, y = mlp_data()
    onehot = np.eye(10)[y]

    def step():
        acts, h = [x], x
        for i, (w, b) in enumerate(zip(weights, biases)):
            h = h @ w + b
            if i < len(weights) - 1:
                h = np.maximum(h, 0)
            acts.append(h)
        shifted = h - h.max(1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        -(logp * onehot).sum(1).mean()
        g = (np.exp(logp) - onehot) / len(x)
        for i in reversed(range(len(weights))):
            gw, gb = acts[i].T @ g, g.sum(0)
            if i > 0:
                g = (g @ weights[i].T) * (acts[i] > 0)
            weights[i] -= 0.01 * gw
            biases[i] -= 0.01 * gb
    return step


WORKLOADS = {
    "simple": (simple_minigrad, simple_numpy, 2000, 0.6, "torch"),
    "chain": (chain_minigrad, chain_numpy, 30, 0.7, "torch"),
    "mlp": (mlp_minigrad, mlp_numpy, 10, 1.0, "numpy"),
    "mlp-loop": (lambda lib=mg: mlp_minigrad(lib, optimizer=False), mlp_numpy, 10, 1.0, "numpy"),
    "mlp-nn": (mlp_nn, mlp_numpy, 10, 1.0, "numpy"),
}


def alone(rounds=3):
    """The MLP step of minigrad (eager, optim.SGD) and of numpy, each in a process of its own
    (alternating): CPU time and page faults per step, where nothing else shaped the heap."""
    print(f"{'mlp alone':10} {'ms/step':>8} {'faults/step':>12}")
    for _ in range(rounds):
        for name in ("minigrad", "numpy"):
            out = subprocess.run([sys.executable, __file__, "--alone-child", name], check=True,
                                 capture_output=True, text=True).stdout.split()
            print(f"{name:10} {float(out[0]):8.2f} {float(out[1]):12.0f}")


def alone_child(name):
    step = mlp_minigrad() if name == "minigrad" else mlp_numpy()
    step()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    best = best_time(step, 10, 7, clock=time.thread_time)   # (71 steps: a warm-up, 7 x 10)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / 71
    print(best * 1e3, faults)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument("--alone", action="store_true",
                        help="also time the MLP step of minigrad and of numpy each in a "
                             "process of its own (page faults included)")
    parser.add_argument("--alone-child", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.alone_child:
        return alone_child(options.alone_child)
    repeats, clock = rounds_and_clock(options)
    print(f"{'workload':8} {'minigrad':>12} {'numpy':>12} {'torch':>12} "
          f"{'vs numpy':>9} {'vs torch':>9}  target")
    for name, (make, make_numpy, iterations, target, against) in WORKLOADS.items():
        steps = {"minigrad": make(), "numpy": make_numpy()}
        if torch:
            steps["torch"] = make(torch)
        times = interleaved(steps, iterations, repeats, clock)
        ours, numpy_time = times["minigrad"], times["numpy"]
        torch_time = times.get("torch", float("nan"))
        baseline = torch_time if against == "torch" else numpy_time
        verdict = "ok" if ours / baseline <= target else "MISSED"
        print(f"{name:8} {ours * 1e6:10.1f}us {numpy_time * 1e6:10.1f}us {torch_time * 1e6:10.1f}us "
              f"{ours / numpy_time:8.2f}x {ours / torch_time:8.2f}x  <= {target}x {against}: "
              f"{verdict if baseline == baseline else 'no torch'}")
        if options.paired and baseline == baseline:
            samples = paired(steps, iterations, options.paired, clock)
            print(f"{'':8} paired, {options.paired} rounds: minigrad/{against} "
                  f"{paired_verdict(paired_ratio(samples, 'minigrad', against), target)}")
    if options.alone:
        alone()


if __name__ == "__main__":
    main()
