"""Forward-mode AD speed, as ratios against torch.func measured in the same run.

    python tools/bench_forward_ad.py [--quick]

Workloads (issue 13):
  jvp      one JVP through a 200-op elementwise chain on 16-element vectors
  jacfwd   the Jacobian of a 64 -> 64 tanh layer, all 64 basis tangents pushed at once
  hessian  of sum(tanh(W x) ** 2), W 32 x 32: forward-over-reverse (batched tangents
           through the backward formulas)
minigrad's side uses minigrad.autograd.forward_ad directly (_make_dual_batched for the
batch of basis tangents); torch's is torch.func.jvp / jacfwd / hessian with one thread.
Target: each at most 1.0x.  Timings are the best of several repeats; compare the ratios.
Also prints the cost of the forward-AD check on plain ops (a level never entered) as the
chain's forward+backward time, for comparison with tools/bench.py's chain.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minigrad as mg  # noqa: E402
import minigrad.autograd.forward_ad as fwAD  # noqa: E402

try:
    import torch
    import torch.func
    torch.set_num_threads(1)
except ImportError:
    torch = None

CHAIN_OPS = 200


def best_time(fn, iterations, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        best = min(best, (time.perf_counter() - start) / iterations)
    return best


def chain(lib, y):
    for _ in range(CHAIN_OPS // 4):
        y = lib.sin(lib.tanh(y * 0.9 + 0.1))
    return y


def jvp_minigrad():
    x, t = mg.tensor(np.random.rand(16)), mg.tensor(np.random.rand(16))

    def step():
        with fwAD.dual_level():
            return fwAD.unpack_dual(chain(mg, fwAD.make_dual(x, t))).tangent
    return step


def jvp_torch():
    x, t = torch.rand(16, dtype=torch.float64), torch.rand(16, dtype=torch.float64)
    return lambda: torch.func.jvp(lambda v: chain(torch, v), (x,), (t,))[1]


def jacfwd_minigrad():
    rng = np.random.default_rng(0)
    w, b, x = (mg.tensor(rng.standard_normal(s)) for s in ((64, 64), (64,), (64,)))
    basis = mg.eye(64, dtype=mg.float64)

    def step():
        with fwAD.dual_level():
            return fwAD.unpack_dual(mg.tanh(w @ fwAD._make_dual_batched(x, basis) + b)).tangent
    return step


def jacfwd_torch():
    rng = np.random.default_rng(0)
    w, b, x = (torch.tensor(rng.standard_normal(s)) for s in ((64, 64), (64,), (64,)))
    return lambda: torch.func.jacfwd(lambda v: torch.tanh(w @ v + b))(x)


def hessian_minigrad():
    rng = np.random.default_rng(1)
    w, x0 = mg.tensor(rng.standard_normal((32, 32))), rng.standard_normal(32)
    basis = mg.eye(32, dtype=mg.float64)

    def step():
        with fwAD.dual_level():
            x = fwAD._make_dual_batched(mg.tensor(x0, requires_grad=True), basis)
            g, = mg.autograd.grad((mg.tanh(w @ x) ** 2).sum(), x)
            return fwAD.unpack_dual(g).tangent
    return step


def hessian_torch():
    rng = np.random.default_rng(1)
    w, x0 = torch.tensor(rng.standard_normal((32, 32))), torch.tensor(rng.standard_normal(32))
    return lambda: torch.func.hessian(lambda v: (torch.tanh(w @ v) ** 2).sum())(x0)


def check_results():
    """The benchmarked computations give torch's numbers."""
    if torch is None:
        return
    np.random.seed(0)
    for ours, theirs in ((jacfwd_minigrad, jacfwd_torch), (hessian_minigrad, hessian_torch)):
        a, b = ours()(), theirs()()
        a = a.numpy().T if ours is jacfwd_minigrad else a.numpy()
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-9, atol=1e-12)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    iterations, repeats = (5, 3) if options.quick else (30, 7)
    check_results()
    print(f"{'workload':10s} {'minigrad':>12s} {'torch.func':>12s} {'ratio':>8s}")
    for name, ours, theirs in (("jvp", jvp_minigrad, jvp_torch),
                               ("jacfwd", jacfwd_minigrad, jacfwd_torch),
                               ("hessian", hessian_minigrad, hessian_torch)):
        t_ours = best_time(ours(), iterations, repeats)
        if torch is None:
            print(f"{name:10s} {t_ours * 1e3:10.3f}ms {'-':>12s}")
            continue
        t_theirs = best_time(theirs(), iterations, repeats)
        print(f"{name:10s} {t_ours * 1e3:10.3f}ms {t_theirs * 1e3:10.3f}ms {t_ours / t_theirs:7.2f}x")


if __name__ == "__main__":
    main()
