"""minigrad.func against torch.func, as ratios of times measured in the same run.

    python tools/bench_func.py [--quick]

Workloads, in float64 and float32 (torch on one thread):
  jvp      jvp of tools/bench.py's 200-op elementwise chain on 16 elements
  jacfwd   jacfwd of a 64 -> 64 tanh layer, tanh(W @ x)
  hessian  hessian of sum(tanh(W @ x) ** 2), W 32 x 32 (forward-over-reverse)
  grad     grad of the chain's sum                  (reference, reverse mode)
  jacrev   jacrev of the 64 -> 64 tanh layer         (reference: one backward per row,
                                                      torch batches them with vmap)
Targets: jvp, jacfwd and hessian at most 1.0x torch.func's time.  Each time is the
median of several repeats of a batch of calls.  The forward-mode workloads need
minigrad.autograd.forward_ad and are reported as skipped without it.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minigrad as mg  # noqa: E402
from minigrad.autograd import _dual_support  # noqa: E402
from tools.bench import chain  # noqa: E402 - the same chain workload, not a copy

import torch  # noqa: E402
import torch.func  # noqa: E402

torch.set_num_threads(1)


def median_time(fn, iterations, repeats):
    """Seconds per call: the median over ``repeats`` batches of ``iterations`` calls."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        times.append((time.perf_counter() - start) / iterations)
    return statistics.median(times)


def arrays(dtype, seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def workload_jvp(lib, dtype):
    x = lib.tensor(np.random.default_rng(0).random(16).astype(dtype))
    t = lib.tensor(arrays(dtype, 1, 16))
    return lambda: lib.func.jvp(chain, (x,), (t,))


def workload_jacfwd(lib, dtype):
    w, x = lib.tensor(arrays(dtype, 0, 64, 64) / 8), lib.tensor(arrays(dtype, 1, 64))
    return lambda: lib.func.jacfwd(lambda x: (w @ x).tanh())(x)


def workload_hessian(lib, dtype):
    w, x = lib.tensor(arrays(dtype, 0, 32, 32) / 6), lib.tensor(arrays(dtype, 1, 32))
    return lambda: lib.func.hessian(lambda x: ((w @ x).tanh() ** 2).sum())(x)


def workload_grad(lib, dtype):
    x = lib.tensor(np.random.default_rng(0).random(16).astype(dtype))
    return lambda: lib.func.grad(lambda x: chain(x).sum())(x)


def workload_jacrev(lib, dtype):
    w, x = lib.tensor(arrays(dtype, 0, 64, 64) / 8), lib.tensor(arrays(dtype, 1, 64))
    return lambda: lib.func.jacrev(lambda x: (w @ x).tanh())(x)


# name: (make, iterations, target or None for a reference, needs forward_ad)
WORKLOADS = {
    "jvp": (workload_jvp, 20, 1.0, True),
    "jacfwd": (workload_jacfwd, 50, 1.0, True),
    "hessian": (workload_hessian, 20, 1.0, True),
    "grad": (workload_grad, 20, None, False),
    "jacrev": (workload_jacrev, 10, None, False),
}


def check_same(ours, theirs, dtype):
    tol = 1e-4 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("workloads", nargs="*", default=list(WORKLOADS),
                        help=f"a subset of {', '.join(WORKLOADS)}")
    options = parser.parse_args()
    repeats = 3 if options.quick else 9
    have_forward_ad = _dual_support.forward_ad_or_none() is not None
    print(f"{'workload':8} {'dtype':8} {'minigrad':>11} {'torch.func':>11} {'ratio':>7}  target")
    for name in options.workloads:
        make, iterations, target, forward = WORKLOADS[name]
        for dtype in (np.float64, np.float32):
            label = f"{name:8} {np.dtype(dtype).name:8}"
            if forward and not have_forward_ad:
                print(f"{label} skipped: needs minigrad.autograd.forward_ad (not in this build)")
                continue
            ours, theirs = make(mg, dtype), make(torch, dtype)
            check_same(_first(ours()), _first(theirs()), dtype)
            t_ours = median_time(ours, iterations, repeats)
            t_theirs = median_time(theirs, iterations, repeats)
            ratio = t_ours / t_theirs
            verdict = ("reference" if target is None else
                       f"<= {target}x: {'ok' if ratio <= target else 'MISSED'}")
            print(f"{label} {t_ours * 1e6:9.1f}us {t_theirs * 1e6:9.1f}us {ratio:6.2f}x  {verdict}")


def _first(result):
    """The first tensor of a transform's result (jvp returns a pair)."""
    return result[1] if isinstance(result, tuple) else result


if __name__ == "__main__":
    main()
