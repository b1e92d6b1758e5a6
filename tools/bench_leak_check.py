"""How much the leak check costs: the same workloads with it on and off, in one run.

    python tools/bench_leak_check.py [--repeats 7] [--number 2000]

Workloads (forward + backward each time, a fresh graph per iteration):
- simple: seed 003's ``((a + b) * b).sum()`` on 4-element vectors;
- chain200: a 200-op elementwise chain on 16-element vectors.
For each, the best-of-repeats time per iteration with the check "off" and "warn"
(the default), alternating run by run so machine noise hits both, and the
ratio on/off (best of all rounds, then each round's own ratio).
The node marking in the engine runs in both modes (it is one store); "off" skips
the bookkeeping at the start and end of each backward and the stale-node list.

    python tools/bench_leak_check.py --baseline main

also times the same workloads on a git ref without the check (extracted with
``git archive`` into a temporary directory), in separate processes, alternating,
and prints the ratio this checkout / baseline: what the marking itself costs.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad.autograd import leaks  # noqa: E402


def simple_workload():
    a = mg.tensor(np.array([0.3605, 0.9889, 0.8768, 0.5413]), requires_grad=True)
    b = mg.tensor(np.array([0.2517, 0.3470, 0.8960, 0.3315]), requires_grad=True)

    def step():
        loss = ((a + b) * b).sum()
        loss.backward()
    return step


def chain_workload(length=200):
    x = mg.tensor(np.linspace(0.1, 1.0, 16), requires_grad=True)

    def step():
        y = x
        for i in range(length):
            y = y * 1.001 if i % 2 else y + 0.5
        y.sum().backward()
    return step


def measure(step, number):
    step()
    return min(timeit.repeat(step, number=number, repeat=1)) / number


def compare(step, number, repeats):
    """Alternate off/on runs so load on the machine hits both; the minimum of each is kept."""
    times = {"off": [], "warn": []}
    for _ in range(repeats):
        for mode in ("off", "warn"):
            with leaks.set_leak_mode(mode):
                times[mode].append(measure(step, number))
    return min(times["off"]), min(times["warn"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--number", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="git ref to compare against (e.g. main)")
    parser.add_argument("--runs", type=int, default=10, help="process pairs for --baseline")
    args = parser.parse_args()
    if args.baseline:
        return compare_with(args.baseline, args.runs)
    workloads = [("simple", simple_workload(), args.number),
                 ("chain200", chain_workload(), max(1, args.number // 50))]
    print(f"{'workload':<10} {'off (us)':>10} {'on (us)':>10} {'on/off':>8}")
    for name, step, number in workloads:
        ratios, offs, ons = [], [], []
        for _ in range(args.rounds):
            off, on = compare(step, number, args.repeats)
            offs.append(off)
            ons.append(on)
            ratios.append(on / off)
        print(f"{name:<10} {min(offs) * 1e6:>10.2f} {min(ons) * 1e6:>10.2f} "
              f"{min(ons) / min(offs):>8.3f}   (per round: "
              f"{', '.join(f'{r:.3f}' for r in ratios)})")


_CHILD = """
import timeit, numpy as np, minigrad as mg
a = mg.tensor(np.array([0.3605, 0.9889, 0.8768, 0.5413]), requires_grad=True)
b = mg.tensor(np.array([0.2517, 0.3470, 0.8960, 0.3315]), requires_grad=True)
def simple():
    ((a + b) * b).sum().backward()
x = mg.tensor(np.linspace(0.1, 1.0, 16), requires_grad=True)
def chain():
    y = x
    for i in range(200):
        y = y * 1.001 if i % 2 else y + 0.5
    y.sum().backward()
print(min(timeit.repeat(simple, number=1000, repeat=7)) / 1000,
      min(timeit.repeat(chain, number=20, repeat=7)) / 20)
"""


def compare_with(ref, runs):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as base:
        archive = subprocess.run(["git", "-C", here, "archive", ref], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", base], input=archive.stdout, check=True)
        best = {"this": [float("inf")] * 2, ref: [float("inf")] * 2}
        for _ in range(runs):
            for label, root in (("this", here), (ref, base)):
                out = subprocess.run([sys.executable, "-c", _CHILD], cwd=root, capture_output=True,
                                     text=True, check=True, env={**os.environ, "PYTHONPATH": root})
                times = [float(v) for v in out.stdout.split()]
                best[label] = [min(o, n) for o, n in zip(best[label], times)]
    print(f"{'workload':<10} {ref + ' (us)':>12} {'this (us)':>10} {'this/' + ref:>10}")
    for i, name in enumerate(("simple", "chain200")):
        print(f"{name:<10} {best[ref][i] * 1e6:>12.2f} {best['this'][i] * 1e6:>10.2f} "
              f"{best['this'][i] / best[ref][i]:>10.3f}")


if __name__ == "__main__":
    main()
