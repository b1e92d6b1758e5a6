"""DistributedDataParallel over minigrad.distributed (MPI), with PyTorch's behaviour:

- at wrap time, every rank checks it holds the same parameters (names, shapes, dtypes) as
  rank 0, then takes rank 0's parameters and buffers;
- during backward, gradients are averaged over ranks as they become ready: parameters are
  grouped into buckets (in reverse registration order, roughly the order backward reaches
  them), and each bucket's all-reduce starts, non-blocking, from the accumulate-grad hook of
  its last parameter; the reductions are waited for once every bucket has started;
- ``no_sync()`` skips the reduction, so gradients accumulate locally until the next synced
  backward; ``find_unused_parameters=True`` finds the parameters the forward did not use by
  walking the autograd graph from its outputs, and reduces without waiting for them.
"""
import contextlib

import numpy as np

from minigrad import distributed as dist
from minigrad.nn.modules.module import Module


class DistributedDataParallel(Module):
    """Data parallelism: each rank runs ``module`` on its share of the batch; gradients are
    averaged across ranks during ``backward()``.

    >>> dist.init_process_group("mpi")                    # doctest: +SKIP
    >>> model = DistributedDataParallel(nn.Linear(4, 2))   # doctest: +SKIP
    >>> model(x).sum().backward()  # .grad is now the average over ranks  # doctest: +SKIP
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to "
                             "call init_process_group.")
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        _check_same_model_on_every_rank(module)
        _sync_from_rank0(list(module.parameters()) + list(module.buffers()))
        cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._reducer = _Reducer(params, cap)

    def forward(self, *inputs, **kwargs):
        self._reducer.check_previous_pass_finished()
        if self.broadcast_buffers:
            _sync_from_rank0(list(self.module.buffers()))
        outputs = self.module(*inputs, **kwargs)
        from minigrad.autograd.grad_mode import is_grad_enabled  # (import cycle: nn <- autograd)
        if self.require_backward_grad_sync and is_grad_enabled():
            used = _parameters_reached_from(outputs) if self.find_unused_parameters else None
            self._reducer.prepare(used)
        else:
            self._reducer.skip()
        return outputs

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside this block accumulate gradients locally, without reducing:
        the next backward outside it averages the accumulated sum over ranks."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


class _Bucket:
    """Parameters of one dtype whose gradients travel together in one flat buffer."""

    def __init__(self, params):
        self.params = params
        self.flat = np.zeros(sum(p._data.size for p in params), dtype=params[0]._data.dtype)
        self.pending, self.work, self.tensor = set(), None, None

    def start(self, used_mask):
        """Copy the gradients into the flat buffer and start its (non-blocking) all-reduce."""
        from minigrad import Tensor  # (import cycle: minigrad imports nn)
        offset = 0
        for p in self.params:
            n = p._data.size
            self.flat[offset:offset + n] = 0 if p.grad is None else p.grad._data.reshape(-1)
            offset += n
        self.tensor = Tensor(self.flat)
        self.work = dist.all_reduce(self.tensor, op=dist.ReduceOp.AVG, async_op=True)

    def finish(self, globally_used):
        from minigrad import Tensor
        self.work.wait()
        offset = 0
        for p in self.params:
            n = p._data.size
            if globally_used is None or globally_used[id(p)]:
                averaged = self.tensor._data[offset:offset + n].reshape(p._data.shape)
                if p.grad is None:
                    p.grad = Tensor(averaged.copy())
                else:
                    p.grad._data[...] = averaged
                    p.grad._version_counter[0] += 1
            offset += n
        self.work = self.tensor = None


class _Reducer:
    """Counts which parameters' gradients are ready and reduces each bucket when it is full."""

    def __init__(self, params, cap_bytes):
        self.buckets = _make_buckets(list(reversed(params)), cap_bytes)
        self.bucket_of = {id(p): b for b in self.buckets for p in b.params}
        self.params = params
        self.active, self.started, self.used = False, 0, None
        for p in params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def prepare(self, used):
        self.active, self.started, self.used = True, 0, used
        for bucket in self.buckets:
            bucket.pending = {id(p) for p in bucket.params}
        if used is not None:  # unused parameters are ready at once: their share is zero
            for p in self.params:
                if id(p) not in used:
                    self._mark_ready(p)

    def skip(self):
        self.active = False

    def check_previous_pass_finished(self):
        if self.active and self.started < len(self.buckets):
            unready = [i for i, p in enumerate(self.params)
                       if id(p) in self.bucket_of[id(p)].pending]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new "
                "one. This error indicates that your module has parameters that were not used in "
                "producing loss. You can enable unused parameter detection by passing the keyword "
                "argument `find_unused_parameters=True` to "
                "`minigrad.nn.parallel.DistributedDataParallel`, and by making sure all `forward` "
                "function outputs participate in calculating loss. Parameter indices which did not "
                f"receive grad: {' '.join(map(str, unready))}")

    def _grad_ready(self, param):
        if self.active:
            self._mark_ready(param)

    def _mark_ready(self, param):
        bucket = self.bucket_of[id(param)]
        bucket.pending.discard(id(param))
        if bucket.pending or bucket.work is not None:
            return
        bucket.start(self.used)
        self.started += 1
        if self.started == len(self.buckets):
            self._finish()

    def _finish(self):
        globally_used = self._globally_used() if self.used is not None else None
        for bucket in self.buckets:
            bucket.finish(globally_used)
        self.active = False

    def _globally_used(self):
        """A parameter no rank used keeps its gradient untouched, as in PyTorch."""
        from minigrad import Tensor
        mask = Tensor(np.array([id(p) in self.used for p in self.params], dtype=np.int64))
        dist.all_reduce(mask, op=dist.ReduceOp.MAX)
        return {id(p): bool(flag) for p, flag in zip(self.params, mask._data)}


def _make_buckets(params, cap_bytes):
    buckets, current = [], []
    for p in params:
        fits = current and (current[0]._data.dtype == p._data.dtype
                            and sum(q._data.nbytes for q in current) + p._data.nbytes <= cap_bytes)
        if current and not fits:
            buckets.append(_Bucket(current))
            current = []
        current.append(p)
    if current:
        buckets.append(_Bucket(current))
    return buckets


def _check_same_model_on_every_rank(module):
    mine = [(name, tuple(p.shape), str(p._data.dtype)) for name, p in module.named_parameters()]
    everyone = dist.process_group._comm().allgather(mine)
    reference = everyone[0]
    for rank, theirs in enumerate(everyone):
        if len(theirs) != len(reference):
            raise RuntimeError(f"DDP expects same model across all ranks, but Rank {rank} has "
                               f"{len(theirs)} params, while rank 0 has inconsistent "
                               f"{len(reference)} params.")
        for (name, shape, dtype), (name0, shape0, dtype0) in zip(theirs, reference):
            if (shape, dtype) != (shape0, dtype0):
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but parameter {name!r} has shape "
                    f"{shape} ({dtype}) on rank {rank} and {shape0} ({dtype0}) on rank 0.")


def _sync_from_rank0(tensors):
    works = [dist.broadcast(t, src=0, async_op=True) for t in tensors]
    for work in works:
        work.wait()


def _parameters_reached_from(outputs):
    """ids of the leaves whose AccumulateGrad the outputs' graph reaches."""
    stack, seen, leaves = list(_grad_fns(outputs)), set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.add(id(variable))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return leaves


def _grad_fns(outputs):
    if isinstance(outputs, (list, tuple)):
        for item in outputs:
            yield from _grad_fns(item)
    elif isinstance(outputs, dict):
        for item in outputs.values():
            yield from _grad_fns(item)
    elif getattr(outputs, "grad_fn", None) is not None:
        yield outputs.grad_fn
