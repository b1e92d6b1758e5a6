"""minigrad.compile against eager minigrad, eager PyTorch, torch.compile and numpy, in one run.

    python tools/bench_compile.py [--quick] [--repeats N] [--no-torch-compile] [--cpu-time] [--paired ROUNDS]
                                  [--only simple,chain,...,cost]

Workloads (forward + backward each iteration; PyTorch CPU with one thread):
  simple  ((a + b) * b).sum() on 4 elements          target: compiled <= 0.3x eager torch
  chain   200 elementwise ops on 16 elements          target: compiled <= 0.2x eager torch
  mlp     784-256-256-10 ReLU MLP, batch 128, SGD    target: compiled <= 1.0x numpy
          (optim.SGD's step and zero_grad; mlp-loop: the update by hand, p -= lr * p.grad;
          mlp-nn: nn.Sequential of nn.Linear and nn.ReLU, F.cross_entropy)
  hvp     Hessian-vector product of sum(tanh(W x)^2), 64x64    target: <= 1.0x torch
  big     sin(x) * exp(x) + x**3 on 2M float32   target: <= 1.0x torch (float64: reported)
Also: the cost of compiling the 200-op chain, in eager runs of it (target < 20).
Timings are the best of several interleaved rounds (numpy's BLAS and PyTorch on one
thread each); compare the ratios, not the absolute numbers.  ``--paired ROUNDS`` also
checks each target on the median of ROUNDS paired rounds' ratios and its 95% interval.
"""
import argparse
import os
import sys
import time

# One BLAS thread, like PyTorch below: on a shared machine extra threads only add noise.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minigrad as mg  # noqa: E402
from bench import CHAIN_OPS, mlp_minigrad, mlp_nn, mlp_numpy  # noqa: E402
from _timing import add_options, interleaved, paired, paired_ratio, paired_verdict, rounds_and_clock  # noqa: E402,E501

try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    torch = None


def _simple(a, b):
    return ((a + b) * b).sum()


def _chain(x):
    y = x
    for _ in range(CHAIN_OPS // 4):
        y = y * 0.9
        y = y + 0.1
        y = y.tanh()
        y = y.sin()
    return y.sum()


def _big(x):
    return (x.sin() * x.exp() + x ** 3).sum()


def _steps(lib, fn, make_inputs, compiled=False):
    """A step: loss = fn(*inputs); loss.backward(); grads cleared."""
    inputs = make_inputs(lib)
    if compiled == "minigrad":
        fn = mg.compile(fn)
    elif compiled == "torch":
        fn = torch.compile(fn)

    def step():
        fn(*inputs).backward()
        for t in inputs:
            t.grad = None
    return step


def _leaves(lib, *arrays):
    return [lib.tensor(a.copy(), requires_grad=True) for a in arrays]


def simple_inputs(lib):
    rng = np.random.default_rng(0)
    return _leaves(lib, rng.random(4), rng.random(4))


def chain_inputs(lib):
    return _leaves(lib, np.random.default_rng(1).random(16))


def big_inputs(dtype):
    def make(lib):
        return _leaves(lib, np.random.default_rng(2).random(2_000_000).astype(dtype))
    return make


# ------------------------------------------------------------------ mlp
def mlp_step(lib, compiled=False, optimizer=True, layers=False):
    """bench.py's MLP step (``layers``: its nn.Linear version), its loss compiled by
    minigrad or torch (``compiled``)."""
    compile = {"minigrad": mg.compile, "torch": getattr(torch, "compile", None)}.get(compiled)
    return mlp_nn(lib, compile) if layers else mlp_minigrad(lib, optimizer, compile)


# ------------------------------------------------------------------ hvp
def hvp_step(lib, compiled=False):
    rng = np.random.default_rng(3)
    w = lib.tensor(rng.standard_normal((64, 64)) * 0.1, requires_grad=True)
    x, v = lib.tensor(rng.standard_normal(64)), lib.tensor(rng.standard_normal((64, 64)))

    def f(w, x):
        return (w @ x).tanh().pow(2).sum()
    if compiled == "minigrad":
        f = mg.compile(f)
    grad = mg.autograd.grad if lib is mg else torch.autograd.grad

    def step():
        g, = grad([f(w, x)], [w], create_graph=True)
        hv, = grad([(g * v).sum()], [w])
        return hv
    return step


def compile_cost(repeats):
    """Seconds to trace + generate the chain, in eager runs of it."""
    eager_step = _steps(mg, _chain, chain_inputs)
    eager_step()
    costs, eagers = [], []
    for _ in range(repeats):
        inputs = chain_inputs(mg)
        fn = mg.compile(_chain)
        start = time.perf_counter()
        fn(*inputs).backward()
        costs.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(5):
            eager_step()
        eagers.append((time.perf_counter() - start) / 5)
    return min(costs), min(costs) / min(eagers)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument("--no-torch-compile", action="store_true",
                        help="skip torch.compile (its first compile takes a while)")
    parser.add_argument("--only", default="",
                        help="comma-separated workloads to run (default: all, and the compile cost)")
    options = parser.parse_args()
    only = set(filter(None, options.only.split(",")))
    repeats, clock = rounds_and_clock(options)
    use_tc = torch is not None and not options.no_torch_compile
    rows = [
        ("simple", lambda c, lib: _steps(lib, _simple, simple_inputs, c), 2000, 0.3, "torch"),
        ("chain", lambda c, lib: _steps(lib, _chain, chain_inputs, c), 30, 0.2, "torch"),
        ("mlp", lambda c, lib: mlp_step(lib, c), 10, 1.0, "numpy"),
        ("mlp-loop", lambda c, lib: mlp_step(lib, c, optimizer=False), 10, 1.0, "numpy"),
        ("mlp-nn", lambda c, lib: mlp_step(lib, c, layers=True), 10, 1.0, "numpy"),
        ("hvp", lambda c, lib: hvp_step(lib, c), 200, 1.0, "torch"),
        ("big32", lambda c, lib: _steps(lib, _big, big_inputs(np.float32), c), 3, 1.0, "torch"),
        # float64: reported, not a target (numpy's float64 sin and exp are slower than PyTorch's)
        ("big64", lambda c, lib: _steps(lib, _big, big_inputs(np.float64), c), 3, None, "torch"),
    ]
    print(f"{'workload':8} {'compiled':>11} {'eager':>11} {'torch':>11} {'torch.cmp':>11} "
          f"{'numpy':>11} | {'cmp/torch':>9} {'cmp/tc':>7} {'eager/torch':>11} {'cmp/numpy':>9}  target")
    for name, make, iterations, target, against in rows:
        if only and name not in only:
            continue
        steps = {"compiled": make("minigrad", mg), "eager": make(False, mg)}
        if torch:
            steps["torch"] = make(False, torch)
        if use_tc and name != "hvp":
            try:
                steps["tc"] = make("torch", torch)
                steps["tc"]()   # compiles
            except Exception as exc:  # noqa: BLE001 - torch.compile may be unavailable
                steps.pop("tc")
                print(f"  (torch.compile failed on {name}: {type(exc).__name__})")
        if name.startswith("mlp"):
            steps["numpy"] = mlp_numpy()
        times = interleaved(steps, iterations, repeats, clock)
        nan = float("nan")
        compiled, eager = times["compiled"], times["eager"]
        torch_time, tc, numpy_time = times.get("torch", nan), times.get("tc", nan), times.get("numpy", nan)
        baseline = numpy_time if against == "numpy" else torch_time
        verdict = ("reported" if target is None
                   else f"<= {target}x {against}: " + ("ok" if compiled / baseline <= target
                                                      else "MISSED"))
        print(f"{name:8} {compiled * 1e6:9.1f}us {eager * 1e6:9.1f}us {torch_time * 1e6:9.1f}us "
              f"{tc * 1e6:9.1f}us {numpy_time * 1e6:9.1f}us | {compiled / torch_time:8.2f}x "
              f"{compiled / tc:6.2f}x {eager / torch_time:10.2f}x {compiled / numpy_time:8.2f}x  "
              f"{verdict}")
        if options.paired and target is not None:
            samples = paired(steps, iterations, options.paired, clock)
            base = "numpy" if against == "numpy" else "torch"
            print(f"{'':8} paired, {options.paired} rounds: compiled/{against} "
                  f"{paired_verdict(paired_ratio(samples, 'compiled', base), target)}")
    if only and "cost" not in only:
        return
    seconds, runs = compile_cost(repeats)
    print(f"compiling the {CHAIN_OPS}-op chain: {seconds * 1e3:.1f} ms = {runs:.1f} eager runs "
          f"(target < 20): {'ok' if runs < 20 else 'MISSED'}")


if __name__ == "__main__":
    main()
