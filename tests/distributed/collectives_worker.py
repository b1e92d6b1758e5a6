"""Run under `mpiexec -n 2`: every collective against the values it must give. Prints OK."""
import numpy as np

import minigrad
import minigrad.distributed as dist

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
assert world == 2, world


def check(name, got, want):
    np.testing.assert_array_equal(np.asarray(got._data), np.asarray(want), err_msg=name)


for dtype in (np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8, np.bool_):
    t = minigrad.tensor(np.array([rank + 1, 2 * rank + 1], dtype=dtype))
    dtype = t._data.dtype  # whatever minigrad stores this dtype as; the reduction keeps it
    dist.all_reduce(t)
    check(f"all_reduce sum {dtype}", t, np.array([3, 4]).astype(dtype) if dtype != np.bool_
          else [True, True])
    assert t._data.dtype == dtype

for op, want in ((dist.ReduceOp.SUM, [3.0, 4.0]), (dist.ReduceOp.AVG, [1.5, 2.0]),
                 (dist.ReduceOp.MAX, [2.0, 3.0]), (dist.ReduceOp.MIN, [1.0, 1.0]),
                 (dist.ReduceOp.PRODUCT, [2.0, 3.0])):
    t = minigrad.tensor(np.array([rank + 1.0, 2 * rank + 1.0]))
    dist.all_reduce(t, op=op)
    check(f"all_reduce {op}", t, want)

# In place on a non-contiguous view writes through to its base.
base = minigrad.tensor(np.arange(6.0).reshape(2, 3) * (rank + 1))
dist.all_reduce(base[:, 1])
want = np.arange(6.0).reshape(2, 3) * (rank + 1)
want[:, 1] = np.arange(6.0).reshape(2, 3)[:, 1] * 3  # (1 + 2) times the column
check("all_reduce on a view", base, want)

t = minigrad.tensor(np.full(3, float(rank)))
work = dist.all_reduce(t, async_op=True)
work.wait()
assert work.is_completed()
check("async all_reduce", t, [1.0, 1.0, 1.0])

t = minigrad.tensor(np.full(2, 10.0 * rank + 7))
dist.broadcast(t, src=1)
check("broadcast", t, [17.0, 17.0])

parts = [minigrad.zeros(2, dtype=minigrad.int64) for _ in range(world)]
dist.all_gather(parts, minigrad.tensor(np.array([rank, rank + 10])))
check("all_gather 0", parts[0], [0, 10])
check("all_gather 1", parts[1], [1, 11])

out = minigrad.zeros(2, dtype=minigrad.float64)
dist.reduce_scatter(out, [minigrad.tensor(np.array([1.0, 2.0]) * (r + 1) + rank) for r in range(world)])
check("reduce_scatter", out, (np.array([1.0, 2.0]) * (rank + 1)) * 2 + 1)

gathered = [minigrad.zeros(1, dtype=minigrad.float64) for _ in range(world)] if rank == 0 else None
dist.gather(minigrad.tensor(np.array([rank + 0.5])), gathered, dst=0)
if rank == 0:
    check("gather", minigrad.cat(gathered), [0.5, 1.5])

mine = minigrad.zeros(2, dtype=minigrad.float64)
pieces = [minigrad.tensor(np.array([1.0, 2.0])), minigrad.tensor(np.array([3.0, 4.0]))] if rank == 0 else None
dist.scatter(mine, pieces, src=0)
check("scatter", mine, [1.0, 2.0] if rank == 0 else [3.0, 4.0])

if rank == 0:
    dist.send(minigrad.tensor(np.array([42.0, 43.0])), dst=1)
else:
    box = minigrad.zeros(2, dtype=minigrad.float64)
    assert dist.recv(box) == 0
    check("send/recv", box, [42.0, 43.0])

dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"rank {rank}: OK", flush=True)
