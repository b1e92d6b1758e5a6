"""minigrad on a CUDA GPU (through CuPy) against PyTorch CUDA, measured in the same run.

    python tools/bench_gpu.py [--quick] [--skip-suite] [--out benchmarks]

Needs an NVIDIA GPU, CuPy (``pip install minigrad[cuda]``) and PyTorch built with CUDA;
without them it exits with a message saying what is missing.  Workloads (float32 unless
said), each timed as the best of several repeats with both libraries synchronized:

  mlp      4096-4096-4096-10 ReLU MLP, batch 4096, one SGD training step
           target: <= 1.15x PyTorch CUDA
  chain    200 elementwise ops on 1M elements, forward + backward, eager and
           minigrad.compile'd; target: eager <= 1.5x, compiled <= 1.0x eager PyTorch CUDA
  suite    the generated gradcheck suite (float64, first and second order) and the engine
           tests with every tensor on cuda (MINIGRAD_TEST_DEVICE=cuda); target: passes
  digits   examples/train_digits.py's MLP trained on the CPU and on cuda with the same seed
           (needs scikit-learn for the data); target: the same test accuracy

Everything printed also goes to benchmarks/gpu-<date>.txt, headed by the device and the
versions, so the raw output of each GPU run is kept.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import minigrad as mg  # noqa: E402
from tools._timing import best_time  # noqa: E402

CHAIN_OPS = 200
ENGINE_TESTS = ["tests/unit/test_engine.py", "tests/unit/test_seed_engine.py",
                "tests/unit/test_trust_engine.py", "tests/unit/test_hooks.py",
                "tests/unit/test_views_inplace.py"]


class Report:
    """Prints each line and keeps it for the benchmarks/ file."""

    def __init__(self):
        self.lines = []

    def __call__(self, line=""):
        print(line, flush=True)
        self.lines.append(line)


def requirements():
    """(torch, cupy), or exit saying what is missing."""
    try:
        import cupy
    except ImportError:
        raise SystemExit("bench_gpu.py needs CuPy and an NVIDIA GPU: pip install minigrad[cuda] "
                         "(cupy-cuda12x). Nothing was measured.") from None
    if not mg.cuda.is_available():
        raise SystemExit("bench_gpu.py: CuPy is installed but minigrad sees no GPU "
                         "(minigrad.cuda.is_available() is False). Nothing was measured.")
    try:
        import torch
    except ImportError:
        raise SystemExit("bench_gpu.py compares with PyTorch CUDA: install torch with CUDA. "
                         "Nothing was measured.") from None
    if not torch.cuda.is_available():
        raise SystemExit("bench_gpu.py: this PyTorch has no CUDA (torch.cuda.is_available() "
                         "is False). Nothing was measured.")
    return torch, cupy


def header(report, torch, cupy):
    # MINIGRAD_COMMIT first: a tree copied to a GPU machine may carry a stale .git
    commit = os.environ.get("MINIGRAD_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
        text=True).stdout.strip() or "unknown"
    runtime = cupy.cuda.runtime.runtimeGetVersion()
    report(f"minigrad GPU benchmark, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}")
    report(f"device: {mg.cuda.get_device_name()} (torch sees {torch.cuda.get_device_name()})")
    report(f"versions: python {platform.python_version()}, numpy {np.__version__}, "
           f"cupy {cupy.__version__} (CUDA runtime {runtime // 1000}.{runtime % 1000 // 10}), "
           f"torch {torch.__version__} (CUDA {torch.version.cuda}), minigrad commit {commit}")
    report()


# ------------------------------------------------------------------------------ mlp
def mlp_step(lib, batch, sizes):
    """One SGD step of a ReLU MLP on ``lib`` ("minigrad" or torch), all on cuda."""
    rng = np.random.default_rng(0)
    host = [(rng.standard_normal((i, o)) * np.sqrt(2 / i)).astype(np.float32)
            for i, o in zip(sizes, sizes[1:])]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    params = [lib.tensor(w, device="cuda", requires_grad=True) for w in host]
    params += [lib.zeros(o, device="cuda", requires_grad=True) for o in sizes[1:]]
    xt, yt = lib.tensor(x, device="cuda"), lib.tensor(y, device="cuda")
    phases = _mlp_phases(lib, params, xt, yt)

    def step():
        for phase in phases.values():
            phase()
    step.phases = phases  # (mlp_breakdown times them apart)
    return step


def _mlp_phases(lib, params, xt, yt):
    """The step's forward, backward and update as three calls, run in that order."""
    n = len(params) // 2
    box = {}

    def forward():
        h = xt
        for i in range(n):
            h = h @ params[i] + params[n + i]
            if i < n - 1:
                h = h.relu()
        box["loss"] = lib.nn.functional.cross_entropy(h, yt)

    def backward():
        box.pop("loss").backward()

    def update():
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
    return {"forward": forward, "backward": backward, "update": update}


def mlp_breakdown(report, torch, cupy, sizes, batch, repeats):
    """Where the MLP step's time goes, each library alone: its matrix products by layout,
    then forward, backward and update timed apart (synchronized between them)."""
    n = sizes[1]
    a = cupy.random.standard_normal((n, n), dtype=cupy.float32)
    t = torch.randn(n, n, device="cuda")
    sync_c, sync_t = cupy.cuda.Device().synchronize, torch.cuda.synchronize
    for label, ours, theirs in (("x @ W", lambda: a @ a, lambda: t @ t),
                                ("g @ W.T", lambda: a @ a.T, lambda: t @ t.T),
                                ("x.T @ g", lambda: a.T @ a, lambda: t.T @ t)):
        c, p = best_time(ours, 3, repeats, sync_c), best_time(theirs, 3, repeats, sync_t)
        report(f"  matmul {label:<8} {n}^3 float32: cupy {c * 1e3:7.2f}ms  torch {p * 1e3:7.2f}ms"
               f"  {c / p:5.2f}x")
    # a bias's gradient: the sum over the batch (a strided reduction for CuPy)
    c = best_time(lambda: a.sum(axis=0), 3, repeats, sync_c)
    p = best_time(lambda: t.sum(0), 3, repeats, sync_t)
    report(f"  sum(axis=0) {n}x{n} float32: cupy {c * 1e3:7.3f}ms  torch {p * 1e3:7.3f}ms  "
           f"{c / p:5.2f}x")
    for lib, sync in ((mg, mg.cuda.synchronize), (torch, torch.cuda.synchronize)):
        phases = mlp_step(lib, batch, sizes).phases
        times = {name: float("inf") for name in phases}
        for _ in range(repeats):
            for name, phase in phases.items():
                sync()
                start = time.perf_counter()
                phase()
                sync()
                times[name] = min(times[name], time.perf_counter() - start)
        report(f"  {lib.__name__:<9}" + "  ".join(f"{k} {v * 1e3:6.2f}ms" for k, v in times.items()))


# ---------------------------------------------------------------------------- chain
def _chain(y):
    for _ in range(CHAIN_OPS // 4):
        y = y * 0.9
        y = y + 0.1
        y = y.tanh()
        y = y.sin()
    return y.sum()


def chain_step(lib, n, compiled=False):
    x = lib.tensor(np.random.default_rng(0).random(n, dtype=np.float32), device="cuda",
                   requires_grad=True)
    fn = mg.compile(_chain) if compiled else _chain

    def step():
        fn(x).backward()
        x.grad = None
    return step


# ---------------------------------------------------------------------------- suite
def run_suite(report, quick):
    """The generated gradcheck suite and the engine tests with every tensor on cuda."""
    env = dict(os.environ, MINIGRAD_TEST_DEVICE="cuda", PYTHONPATH=ROOT)
    for name, paths in (("generated gradcheck suite", ["tests/generated"]),
                        ("engine tests", ENGINE_TESTS)):
        command = [sys.executable, "-m", "pytest", *paths, "-q", "-p", "no:cacheprovider",
                   "-rf", "--tb=line"]
        if quick:
            command += ["-x"]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        lines = done.stdout.strip().splitlines()
        failures = [line for line in lines if line.startswith("FAILED")]
        summary = lines[-1] if lines else done.stderr.strip()[-300:]
        report(f"suite    {name} on cuda (float64 as on the CPU, same tolerances): {summary} "
               f"[{seconds:.0f}s] target: passes: {'ok' if done.returncode == 0 else 'MISSED'}")
        for line in failures[:40]:
            report(f"         {line}")
        if len(failures) > 40:
            report(f"         ... and {len(failures) - 40} more")


# --------------------------------------------------------------------------- digits
def digits_accuracy(device, epochs):
    """Test accuracy of examples/train_digits.py's MLP trained on ``device``."""
    from sklearn.datasets import load_digits  # only this workload needs scikit-learn
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32).reshape(len(digits.images), -1)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    test, train = order[:360], order[360:]
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(64, 128), mg.nn.ReLU(), mg.nn.Linear(128, 64),
                             mg.nn.ReLU(), mg.nn.Linear(64, 10)).to(device)
    opt = mg.optim.Adam(model.parameters(), lr=1e-3)
    loader = mg.utils.data.DataLoader(
        mg.utils.data.TensorDataset(mg.tensor(x[train]), mg.tensor(y[train])), batch_size=64,
        shuffle=True, generator=mg.Generator().manual_seed(0))
    for _ in range(epochs):
        for xb, yb in loader:
            loss = mg.nn.functional.cross_entropy(model(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
    with mg.no_grad():
        logits = model(mg.tensor(x[test], device=device))
        return (logits.argmax(dim=1).cpu() == mg.tensor(y[test])).float().mean().item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller chain")
    parser.add_argument("--skip-suite", action="store_true", help="no gradcheck/engine suite")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time the MLP step's matrix products and phases apart")
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks"))
    args = parser.parse_args(argv)
    torch, cupy = requirements()
    report = Report()
    header(report, torch, cupy)
    repeats = 3 if args.quick else 7
    sync_mg, sync_torch = mg.cuda.synchronize, torch.cuda.synchronize

    report(f"{'workload':<34}{'minigrad':>12}{'torch cuda':>12}{'ratio':>8}  target")
    sizes, batch = [4096, 4096, 4096, 10], 4096
    ours = best_time(mlp_step(mg, batch, sizes), 5, repeats, sync_mg)
    theirs = best_time(mlp_step(torch, batch, sizes), 5, repeats, sync_torch)
    ratio = ours / theirs
    report(f"{'mlp 4096-4096-4096-10 b4096 step':<34}{ours * 1e3:>10.2f}ms{theirs * 1e3:>10.2f}ms"
           f"{ratio:>7.2f}x  <= 1.15x: {'ok' if ratio <= 1.15 else 'MISSED'}")
    if args.breakdown:
        mlp_breakdown(report, torch, cupy, sizes, batch, repeats)

    n = 1 << 18 if args.quick else 1 << 20
    theirs = best_time(chain_step(torch, n), 3, repeats, sync_torch)
    for label, compiled, target in (("eager", False, 1.5), ("compiled", True, 1.0)):
        ours = best_time(chain_step(mg, n, compiled), 3, repeats, sync_mg)
        ratio = ours / theirs
        report(f"{f'chain 200 ops {n} elems {label}':<34}{ours * 1e3:>10.2f}ms"
               f"{theirs * 1e3:>10.2f}ms{ratio:>7.2f}x  <= {target}x eager torch: "
               f"{'ok' if ratio <= target else 'MISSED'}")

    try:
        epochs = 3 if args.quick else 20
        cpu, gpu = digits_accuracy("cpu", epochs), digits_accuracy("cuda", epochs)
        report(f"digits   MLP test accuracy after {epochs} epochs: cpu {cpu:.4f}, cuda {gpu:.4f}"
               f"  target: the same: {'ok' if abs(cpu - gpu) <= 0.01 else 'MISSED'}")
    except ImportError:
        report("digits   skipped: scikit-learn (the digits data) is not installed")

    if not args.skip_suite:
        run_suite(report, args.quick)

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"gpu-{datetime.date.today():%Y-%m-%d}.txt")
    if os.path.exists(path):
        path = path[:-4] + f"-{datetime.datetime.now():%H%M%S}.txt"
    with open(path, "w") as f:
        f.write("\n".join(report.lines) + "\n")
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
