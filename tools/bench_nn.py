"""nn layers and training, minigrad against PyTorch CPU (one thread), same run.

    python tools/bench_nn.py [--repeat 5] [--clock cpu|wall]

Workloads (float32, the same weights in both libraries):
- an MLP training epoch on the 8x8 digits (64-128-64-10, ReLU, CrossEntropyLoss,
  Adam, DataLoader batch 64, shuffled); target <= 1.1x PyTorch;
- Conv2d forward+backward: batch 32, 8->16 channels, 28x28, 3x3, padding 1; target <= 3x;
- LSTM forward+backward: sequence 35, batch 20, input and hidden 200; target <= 1.5x.
Prints milliseconds per workload (best of --repeat) and the ratio minigrad / PyTorch.
Both libraries run on one thread, so the default clock is the process's CPU time
(--clock cpu): on a shared machine, wall time also counts the time other jobs held
the core, and the wall-clock ratios moved by 2x between runs. --clock wall times
with time.perf_counter instead.

Measured here (2 shared cores, load 4-10; ratios, CPU clock): MLP epoch 0.6-0.7x;
Conv2d 1.4-2.2x (was 6.3-7.3x before kernels/conv.py built im2col with one slice copy per
kernel tap); LSTM 1.1-1.4x (was 3.0-3.3x op by op, 1.5-2.1x with one _lstm_layer node per layer
before its kernels worked in place; see docs/nn_speed.md).
Without one BLAS thread numpy's default pool thrashes on a loaded machine (10x slower).
"""
import argparse
import os
import time

# one thread for numpy's BLAS too, as torch.set_num_threads(1): set before numpy loads
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad import nn  # noqa: E402
from minigrad.utils.data import DataLoader as MgLoader  # noqa: E402
from minigrad.utils.data import TensorDataset as MgDataset  # noqa: E402


_CLOCK = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = _CLOCK["cpu"]


def _best(fn, repeat, number=1):
    fn()  # warm up
    times = []
    for _ in range(repeat):
        start = _clock()
        for _ in range(number):
            fn()
        times.append((_clock() - start) / number)
    return min(times)


def _copy_weights(mg_module, torch_module):
    mg_module.load_state_dict({k: mg.tensor(v.detach().numpy().copy())
                               for k, v in torch_module.state_dict().items()})


def _digits():
    try:
        from sklearn.datasets import load_digits
        d = load_digits()
        return (d.data / 16.0).astype(np.float32), d.target.astype(np.int64)
    except ImportError:  # same size and dtypes as the digits, random values
        rng = np.random.default_rng(0)
        return rng.random((1797, 64), dtype=np.float32), rng.integers(0, 10, 1797)


def bench_mlp_epoch(repeat):
    x, y = _digits()

    def make(lib, nn_, loader_cls, dataset_cls):
        model = nn_.Sequential(nn_.Linear(64, 128), nn_.ReLU(), nn_.Linear(128, 64), nn_.ReLU(),
                               nn_.Linear(64, 10))
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
        loss_fn = nn_.CrossEntropyLoss()
        loader = loader_cls(dataset_cls(lib.tensor(x), lib.tensor(y)), batch_size=64,
                            shuffle=True)

        def epoch():
            for xb, yb in loader:
                opt.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                opt.step()
        return model, epoch

    t_model, t_epoch = make(torch, torch.nn, torch.utils.data.DataLoader,
                            torch.utils.data.TensorDataset)
    m_model, m_epoch = make(mg, nn, MgLoader, MgDataset)
    _copy_weights(m_model, t_model)
    return _best(m_epoch, repeat), _best(t_epoch, repeat)


def _fwd_bwd(lib, module, inputs):
    def run():
        for p in module.parameters():
            p.grad = None
        out = module(*inputs)
        out = out[0] if isinstance(out, tuple) else out
        out.sum().backward()
    return run


def bench_conv(repeat):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 8, 28, 28)).astype(np.float32)
    t_conv = torch.nn.Conv2d(8, 16, 3, padding=1)
    m_conv = nn.Conv2d(8, 16, 3, padding=1)
    _copy_weights(m_conv, t_conv)
    m = _fwd_bwd(mg, m_conv, [mg.tensor(x, requires_grad=True)])
    t = _fwd_bwd(torch, t_conv, [torch.tensor(x, requires_grad=True)])
    return _best(m, repeat, 5), _best(t, repeat, 5)


def bench_lstm(repeat):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((35, 20, 200)).astype(np.float32)
    t_lstm = torch.nn.LSTM(200, 200)
    m_lstm = nn.LSTM(200, 200)
    _copy_weights(m_lstm, t_lstm)
    m = _fwd_bwd(mg, m_lstm, [mg.tensor(x, requires_grad=True)])
    t = _fwd_bwd(torch, t_lstm, [torch.tensor(x, requires_grad=True)])
    return _best(m, repeat, 3), _best(t, repeat, 3)


def main():
    parser = argparse.ArgumentParser(description="nn benchmarks against PyTorch")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clock", choices=sorted(_CLOCK), default="cpu",
                        help="cpu: the process's CPU time (default); wall: perf_counter")
    args = parser.parse_args()
    global _clock
    _clock = _CLOCK[args.clock]
    print(f"clock: {args.clock}")
    torch.set_num_threads(1)
    rows = [("MLP epoch on digits (Adam, batch 64)", bench_mlp_epoch, 1.1),
            ("Conv2d fwd+bwd (32x8x28x28, 8->16, 3x3)", bench_conv, 3.0),
            ("LSTM fwd+bwd (seq 35, batch 20, hidden 200)", bench_lstm, 1.5)]
    print(f"{'workload':46s} {'minigrad ms':>12s} {'torch ms':>10s} {'ratio':>7s} {'target':>7s}")
    for name, fn, target in rows:
        m, t = fn(args.repeat)
        print(f"{name:46s} {m * 1e3:12.2f} {t * 1e3:10.2f} {m / t:7.2f} {target:7.1f}")


if __name__ == "__main__":
    main()
