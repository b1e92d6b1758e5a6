"""How much memory activation checkpointing saves on a 50-block chain.

    python tools/bench_checkpoint.py

Each block is ``h + tanh(h @ W) * sigmoid(h) * exp(-h * h)`` on a (256, 32) float64
activation, so a plain forward keeps several activation-sized arrays per block for
backward.
Checkpointing in segments keeps only each segment's input, and recomputes one
segment at a time during backward.  Two byte counts (ratios, not timings):

- ``saved``: bytes of the arrays the graph holds for backward right after the
  forward (a walk over the graph, minigrad.autograd.graph.saved_bytes);
- ``peak``: the peak of memory allocated (tracemalloc) during forward + backward,
  which includes what the backward recomputes.

Gradients are compared with the plain run: they must be identical.
"""
import os
import sys
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minigrad as mg  # noqa: E402
from minigrad.autograd.graph import saved_bytes
from minigrad.utils.checkpoint import checkpoint

BLOCKS, BATCH, WIDTH, SEGMENTS = 50, 256, 32, 10


def make_params(seed=0):
    rng = np.random.default_rng(seed)
    return [mg.tensor(rng.standard_normal((WIDTH, WIDTH)) / WIDTH ** 0.5, requires_grad=True)
            for _ in range(BLOCKS)]


def block(h, w):
    return h + mg.tanh(h @ w) * mg.sigmoid(h) * mg.exp(-h * h)


def segment(params):
    def run(h):
        for w in params:
            h = block(h, w)
        return h
    return run


def forward(x, params, mode):
    h = x
    if mode == "plain":
        for w in params:
            h = block(h, w)
        return h
    size = BLOCKS // SEGMENTS
    for start in range(0, BLOCKS, size):
        h = checkpoint(segment(params[start:start + size]), h,
                       use_reentrant=(mode == "reentrant"))
    return h


def measure(mode):
    """(saved bytes after forward, peak traced bytes over forward + backward, grads)."""
    params = make_params()
    x = mg.tensor(np.random.default_rng(1).standard_normal((BATCH, WIDTH)), requires_grad=True)
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = forward(x, params, mode)
    loss = out.sum()
    saved = saved_bytes(loss)
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return saved, peak, [x.grad.numpy()] + [p.grad.numpy() for p in params]


def run():
    results = {mode: measure(mode) for mode in ("plain", "reentrant", "non_reentrant")}
    plain_saved, plain_peak, plain_grads = results["plain"]
    report = {}
    for mode in ("reentrant", "non_reentrant"):
        saved, peak, grads = results[mode]
        identical = all(np.array_equal(a, b) for a, b in zip(grads, plain_grads))
        # non-reentrant checkpoints keep their inputs in the checkpoint, not in the graph
        saved_ratio = plain_saved / saved if saved else float("inf")
        report[mode] = dict(saved_ratio=saved_ratio, peak_ratio=plain_peak / peak,
                            identical_grads=identical, saved=saved, peak=peak)
    report["plain"] = dict(saved=plain_saved, peak=plain_peak)
    return report


def main():
    report = run()
    plain = report["plain"]
    print(f"{BLOCKS} blocks, activation {BATCH}x{WIDTH} float64, {SEGMENTS} checkpointed segments")
    print(f"{'plain':>14}: saved {plain['saved'] / 2**20:8.2f} MiB   peak {plain['peak'] / 2**20:8.2f} MiB")
    for mode in ("reentrant", "non_reentrant"):
        r = report[mode]
        print(f"{mode:>14}: saved {r['saved'] / 2**20:8.2f} MiB   peak {r['peak'] / 2**20:8.2f} MiB   "
              f"saved x{r['saved_ratio']:.1f} smaller, peak x{r['peak_ratio']:.1f} smaller, "
              f"identical grads: {r['identical_grads']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
