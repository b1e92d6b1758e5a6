"""How fast can a pure-Python numpy autograd be on bench.py's small workloads?

    python tools/bench_floor.py

Per-op overhead, not arithmetic, decides the two small workloads of tools/bench.py
(the notebook's ``((a + b) * b).sum()`` and the 200-op chain).  This script puts a
number on the floor: ``Bare`` below is the least a reverse-mode tape can do -- one
node object and one tensor object per op, dependency counting, no sequence order,
no version counters, saved-tensor checks, hooks, views, graph release, anomaly,
clog or leak checks, and no second order.  It runs the same workloads as bench.py,
next to minigrad and PyTorch (one thread) in the same run, and prints ratios.

What it shows on the machines here (2026-11-27, thread CPU time): the bare tape needs
about 0.5x PyTorch's time on the chain and 0.2x on the notebook example, and minigrad,
with version counters, hooks, views, graph release, second order and the gradient
checks, about 1.5x the bare tape's time on the chain.  bench.py's targets (issue #14:
0.7x PyTorch on the chain, 0.6x on the notebook example) leave minigrad about 1.4x
the bare tape's time.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the workloads)
from _timing import interleaved  # noqa: E402


class Bare:
    """A numpy array, its gradient and the node that made it: nothing else."""

    __slots__ = ("data", "grad", "node")

    def __init__(self, data, node=None):
        self.data, self.grad, self.node = data, None, node

    def __add__(self, other):
        if type(other) is Bare:  # the workloads add a tensor, or a number
            return Bare(self.data + other.data, Add((self, other)))
        return Bare(self.data + other, Add((self,)))

    def __mul__(self, other):
        if type(other) is Bare:
            return Bare(self.data * other.data, Mul((self, other), (other.data, self.data)))
        return Bare(self.data * other, Mul((self,), (other,)))

    def tanh(self):
        out = np.tanh(self.data)
        return Bare(out, Tanh((self,), out))

    def sin(self):
        return Bare(np.sin(self.data), Sin((self,), self.data))

    def sum(self):
        return Bare(self.data.sum(), Sum((self,), self.data.shape))

    def backward(self):
        # Count the uses of every tensor, then run each node once all its uses arrived.
        uses, stack = {}, [self]
        while stack:
            node = stack.pop().node
            if node is not None:
                for t in node.inputs:
                    if t in uses:
                        uses[t] += 1
                    else:
                        uses[t] = 1
                        stack.append(t)
        grads, ready = {self: np.ones_like(self.data)}, [self]
        while ready:
            t = ready.pop()
            g = grads.pop(t)
            if t.node is None:  # a leaf
                t.grad = g if t.grad is None else t.grad + g
                continue
            for i, gi in zip(t.node.inputs, t.node.apply(g)):
                grads[i] = grads[i] + gi if i in grads else gi
                left = uses[i] - 1
                uses[i] = left
                if not left:
                    ready.append(i)


class Node:
    """``inputs``: the tensors the op read; ``saved``: what its derivative needs."""

    __slots__ = ("inputs", "saved")

    def __init__(self, inputs, saved=None):
        self.inputs, self.saved = inputs, saved


class Add(Node):
    def apply(self, g):
        return (g, g)


class Mul(Node):
    def apply(self, g):
        return [g * factor for factor in self.saved]


class Tanh(Node):
    def apply(self, g):
        out = self.saved
        return (g * (1 - out * out),)


class Sin(Node):
    def apply(self, g):
        return (g * np.cos(self.saved),)


class Sum(Node):
    def apply(self, g):
        return (np.broadcast_to(g, self.saved),)


class BareLib:
    """What bench.py's workloads call on a library (``lib.tensor``)."""

    @staticmethod
    def tensor(data, requires_grad=False):  # every Bare is differentiated: no flag to check
        return Bare(np.array(data, dtype=np.float64))


def check_gradients():
    """The floor must compute the same gradients as minigrad, or its time means nothing."""
    rng = np.random.default_rng(0)
    x0 = rng.random(16)
    results = []
    for lib in (BareLib, bench.mg):
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for _ in range(bench.CHAIN_OPS // 4):
            y = (y * 0.9 + 0.1).tanh().sin()
        a = lib.tensor(x0[:4], requires_grad=True)
        b = lib.tensor(x0[4:8], requires_grad=True)
        (y.sum() + ((a + b) * b).sum()).backward()
        results.append([np.asarray(t.grad.data if lib is bench.mg else t.grad) for t in (x, a, b)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def main():
    check_gradients()
    torch = bench.torch
    print(f"{'workload':8} {'bare tape':>12} {'minigrad':>12} {'torch':>12} "
          f"{'bare/torch':>11} {'minigrad/torch':>15}")
    for name in ("simple", "chain"):
        make, _, iterations, _, _ = bench.WORKLOADS[name]
        steps = {"bare": make(BareLib), "ours": make()}
        if torch:
            steps["torch"] = make(torch)
        times = interleaved(steps, iterations, 7, time.thread_time)
        bare, ours, theirs = times["bare"], times["ours"], times.get("torch", float("nan"))
        print(f"{name:8} {bare * 1e6:10.1f}us {ours * 1e6:10.1f}us {theirs * 1e6:10.1f}us "
              f"{bare / theirs:10.2f}x {ours / theirs:14.2f}x")


if __name__ == "__main__":
    main()
