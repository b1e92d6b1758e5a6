"""How fast can a pure-Python numpy autograd be on bench.py's small workloads?

    python tools/bench_floor.py [--repeats N]

Per-op overhead, not arithmetic, decides the two small workloads of tools/bench.py
(the notebook's ``((a + b) * b).sum()`` and the 200-op chain).  This script puts a
number on the floor: ``Bare`` below is the least a reverse-mode tape can do -- one
node object and one tensor object per op, dependency counting, no sequence order,
no version counters, saved-tensor checks, hooks, views, graph release, anomaly,
clog or leak checks, and no second order.  It runs the same workloads as bench.py,
next to minigrad and PyTorch (one thread) in the same run, and prints ratios.

The ``mlp`` row is bench.py's MLP step (optim.SGD) on the bare tape, with minigrad's
one-pass update (optim/_axpy.py) and the numpy calls of the hand-written step: what a
Python tape without any of minigrad's semantics costs against hand-written numpy
(issue #14's eager target for minigrad: 1.0x).

What it shows on the machines here (2026-11-27, thread CPU time): the bare tape needs
about 0.5x PyTorch's time on the chain and 0.2x on the notebook example, and minigrad,
with version counters, hooks, views, graph release, second order and the gradient
checks, about 1.5x the bare tape's time on the chain.  bench.py's targets (issue #14:
0.7x PyTorch on the chain, 0.6x on the notebook example) leave minigrad about 1.4x
the bare tape's time.  On the MLP step the bare tape, with minigrad's one-pass update,
counts 0.999x the hand-written numpy step's instructions and minigrad 1.014x
(``tools/bench_instructions.py --mlp``); timed, the bare tape took 0.93x to 1.04x numpy's
time and minigrad 1.06x to 1.10x in the same runs (2026-11-27, 11 rounds each).  A tape
can reach the eager target of 1.0x numpy; what minigrad adds over it (its semantics,
about 660k instructions of the 44M step) is the gap.
"""
import argparse
import os
import sys
import time
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the workloads; it also sets one BLAS thread before numpy loads)
from _timing import interleaved  # noqa: E402
from minigrad.optim._axpy import add_scaled_  # noqa: E402


class Bare:
    """A numpy array, its gradient and the node that made it; ``needs``: a gradient is
    wanted (a node's output, or a leaf made with requires_grad)."""

    __slots__ = ("data", "grad", "node", "needs")

    def __init__(self, data, node=None, needs=True):
        self.data, self.grad, self.node, self.needs = data, None, node, needs

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

    # the MLP's ops: bias broadcast in add, matmul, relu, log_softmax, gather, mean, neg
    def __matmul__(self, other):
        return Bare(self.data @ other.data, MatMul((self, other)))

    def relu(self):
        out = np.maximum(self.data, 0)
        return Bare(out, Relu((self,), out))

    def log_softmax(self, dim):
        shifted = self.data - self.data.max(dim, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(dim, keepdims=True))
        return Bare(out, LogSoftmax((self,), (out, dim)))

    def gather(self, dim, index):
        return Bare(np.take_along_axis(self.data, index.data, dim),
                    Gather((self,), (self.data.shape, index.data, dim)))

    def mean(self):
        return Bare(self.data.mean(), Mean((self,), self.data.shape))

    def __neg__(self):
        return Bare(-self.data, Neg((self,)))

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
                if not i.needs:
                    continue
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
        return [g if t.data.shape == g.shape else g.sum(0) for t in self.inputs]  # (a bias)


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


class MatMul(Node):
    def apply(self, g):
        a, b = self.inputs
        return (g @ b.data.T if a.needs else None, a.data.T @ g)


class Relu(Node):
    def apply(self, g):
        return (g * (self.saved > 0),)   # (the hand-written step's backward)


class LogSoftmax(Node):
    def apply(self, g):
        out, dim = self.saved
        return (g - np.exp(out) * g.sum(dim, keepdims=True),)


class Gather(Node):
    def apply(self, g):
        shape, index, dim = self.saved
        full = np.zeros(shape)
        np.put_along_axis(full, index, g, dim)   # (each row picks one class)
        return (full,)


class Mean(Node):
    def apply(self, g):
        return (np.full(self.saved, g / np.prod(self.saved)),)


class Neg(Node):
    def apply(self, g):
        return (-g,)


class BareSGD:
    """optim.SGD without momentum: minigrad's one-pass update, then set_to_none."""

    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def step(self):
        for p in self.params:
            if p.grad is not None:
                add_scaled_(p.data, p.grad, -self.lr)

    def zero_grad(self):
        for p in self.params:
            p.grad = None


class BareLib:
    """What bench.py's workloads call on a library (``lib.tensor``)."""

    @staticmethod
    def tensor(data, requires_grad=False):
        data = np.array(data)
        return Bare(data.astype(np.float64) if data.dtype.kind == "f" else data,
                    needs=requires_grad)

    optim = types.SimpleNamespace(SGD=BareSGD)


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
    check_mlp()


def check_mlp():
    """Two MLP steps on the bare tape leave the weights minigrad's leave."""
    weights = []
    for lib in (BareLib, bench.mg):
        made = []

        def tensor(data, requires_grad=False, lib=lib, made=made):  # (records the parameters)
            t = lib.tensor(data, requires_grad=requires_grad)
            if requires_grad:
                made.append(t)
            return t
        step = bench.mlp_minigrad(types.SimpleNamespace(tensor=tensor, optim=lib.optim))
        step()
        step()
        weights.append([np.asarray(p.data) for p in made])
    for ours, theirs in zip(*weights):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="interleaved rounds")
    repeats = parser.parse_args().repeats
    check_gradients()
    torch = bench.torch
    print(f"{'workload':8} {'bare tape':>12} {'minigrad':>12} {'torch':>12} {'numpy':>12} "
          f"{'bare/torch':>11} {'minigrad/torch':>15} {'bare/numpy':>11} {'minigrad/numpy':>15}")
    for name in ("simple", "chain", "mlp"):
        make, make_numpy, iterations, _, _ = bench.WORKLOADS[name]
        steps = {"bare": make(BareLib), "ours": make(), "numpy": make_numpy()}
        if torch:
            steps["torch"] = make(torch)
        times = interleaved(steps, iterations, repeats, time.thread_time)
        bare, ours, theirs = times["bare"], times["ours"], times.get("torch", float("nan"))
        numpy_time = times["numpy"]
        print(f"{name:8} {bare * 1e6:10.1f}us {ours * 1e6:10.1f}us {theirs * 1e6:10.1f}us "
              f"{numpy_time * 1e6:10.1f}us {bare / theirs:10.2f}x {ours / theirs:14.2f}x "
              f"{bare / numpy_time:10.2f}x {ours / numpy_time:14.2f}x")


if __name__ == "__main__":
    main()
