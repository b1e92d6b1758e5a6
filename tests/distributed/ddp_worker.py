"""Run under `mpiexec -n 2`: DDP against single-process training on the whole batch.

Each rank builds its model from its own seed (rank 1 starts from other weights, which DDP
must overwrite), trains on its half of the batch, and compares with one process training a
copy of rank 0's initial model on the concatenated batch. Prints "rank R: OK <check>"."""
import sys

import numpy as np

import minigrad
import minigrad.distributed as dist
from minigrad import nn
from minigrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
check = sys.argv[1]


def make_model(seed, hidden=8):
    minigrad.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, hidden), nn.Tanh(), nn.Linear(hidden, 1)).double()


def copy_of(model):
    twin = make_model(99)
    twin.load_state_dict(model.state_dict())
    return twin


data = np.random.default_rng(0).standard_normal((8, 5))  # the same on every rank
inputs, targets = minigrad.tensor(data[:, :4]), minigrad.tensor(data[:, 4:])
mine = slice(4 * rank, 4 * rank + 4)


def close(a, b, what):
    np.testing.assert_allclose(np.asarray(a._data), np.asarray(b._data), rtol=1e-6, atol=1e-10,
                               err_msg=f"rank {rank}: {what}")


if check == "train":
    model = make_model(rank)
    ddp = DDP(model)
    reference = copy_of(model)
    opt = minigrad.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = minigrad.optim.SGD(reference.parameters(), lr=0.1)
    for step in range(5):
        opt.zero_grad()
        nn.functional.mse_loss(ddp(inputs[mine]), targets[mine]).backward()
        opt.step()
        ref_opt.zero_grad()
        nn.functional.mse_loss(reference(inputs), targets).backward()
        ref_opt.step()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        close(p, q, name)
    assert list(ddp.state_dict())[0].startswith("module."), list(ddp.state_dict())

elif check == "no_sync":
    model = make_model(rank)
    ddp = DDP(model)
    reference = copy_of(model)
    halves = (slice(0, 2), slice(2, 4))
    with ddp.no_sync():  # first micro-batch: local only
        mse = nn.functional.mse_loss(ddp(inputs[mine][halves[0]]), targets[mine][halves[0]])
        mse.backward()
    nn.functional.mse_loss(ddp(inputs[mine][halves[1]]), targets[mine][halves[1]]).backward()
    for half in halves:  # the reference sees both micro-batches of both ranks
        for r in range(world):
            rows = slice(4 * r + half.start, 4 * r + half.stop)
            (nn.functional.mse_loss(reference(inputs[rows]), targets[rows]) / world).backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        close(p.grad, q.grad, "accumulated gradient")

elif check == "unused":
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.body, self.left, self.right = nn.Linear(4, 3), nn.Linear(3, 1), nn.Linear(3, 1)

        def forward(self, x, use_right):
            h = self.body(x).tanh()
            return self.right(h) if use_right else self.left(h)

    minigrad.manual_seed(rank)
    model = TwoHeads().double()
    ddp = DDP(model, find_unused_parameters=True)
    reference = TwoHeads().double()
    reference.load_state_dict(model.state_dict())
    # rank 0 uses the left head, rank 1 the right one: both heads get averaged gradients.
    nn.functional.mse_loss(ddp(inputs[mine], use_right=rank == 1), targets[mine]).backward()
    for r in range(world):
        rows = slice(4 * r, 4 * r + 4)
        (nn.functional.mse_loss(reference(inputs[rows], r == 1), targets[rows]) / world).backward()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        close(p.grad, q.grad, name)

elif check == "unused_without_flag":
    minigrad.manual_seed(rank)
    model = nn.ModuleDict({"used": nn.Linear(4, 1), "unused": nn.Linear(4, 1)}).double()

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = model

        def forward(self, x):
            return self.inner["used"](x)

    ddp = DDP(Wrapper())
    ddp(inputs[mine]).sum().backward()
    try:
        ddp(inputs[mine])
    except RuntimeError as error:
        assert "Expected to have finished reduction in the prior iteration" in str(error), error
    else:
        raise AssertionError("a parameter without gradient went unnoticed")

elif check == "mismatch":
    try:
        DDP(make_model(rank, hidden=8 + rank))
    except RuntimeError as error:
        assert "DDP expects same model across all ranks" in str(error), error
    else:
        raise AssertionError("mismatched parameter shapes went unnoticed")

dist.destroy_process_group()
print(f"rank {rank}: OK {check}", flush=True)
