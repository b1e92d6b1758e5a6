"""Gradient all-reduce of a 10M-parameter model between 2 processes, against mpi4py's own
Allreduce on a buffer of the same size, in the same run.

    python -m minigrad.distributed.run -n 2 tools/bench_distributed.py [--params 10000000]

Prints, on rank 0, the median time of: mpi4py's Allreduce on one flat float32 buffer; minigrad's
``dist.all_reduce`` on a tensor of that size; and DDP's whole gradient reduction (bucketing,
copies in and out, the averaging) for a model of that many parameters. Target: DDP within 2x of
mpi4py.
"""
import argparse
import statistics
import time

import numpy as np

import minigrad
import minigrad.distributed as dist
from minigrad import nn
from minigrad.nn.parallel import DistributedDataParallel


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        dist.barrier()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--params", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    dist.init_process_group("mpi")
    comm = dist.process_group._comm()

    side = int(args.params ** 0.5)
    model = nn.Sequential(nn.Linear(side, side, bias=False), nn.Linear(side, 1))
    ddp = DistributedDataParallel(model)
    params = list(model.parameters())
    count = sum(p.numel() for p in params)
    for p in params:
        p.grad = minigrad.ones_like(p)

    flat = np.ones(count, np.float32)
    out = np.empty_like(flat)
    tensor = minigrad.tensor(flat.copy())

    def ddp_reduction():  # what DDP does after backward made every gradient ready
        ddp._reducer.prepare(None)
        for p in reversed(params):
            ddp._reducer._grad_ready(p)

    rows = [("mpi4py Allreduce", lambda: comm.Allreduce(flat, out)),
            ("dist.all_reduce", lambda: dist.all_reduce(tensor)),
            ("DDP gradient reduction", ddp_reduction)]
    results = [(name, median_seconds(fn, args.repeats)) for name, fn in rows]
    if dist.get_rank() == 0:
        base = results[0][1]
        print(f"{count:,} float32 parameters, {dist.get_world_size()} processes, "
              f"median of {args.repeats}")
        for name, seconds in results:
            print(f"  {name:<24} {seconds * 1e3:8.2f} ms   {seconds / base:5.2f}x mpi4py")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
