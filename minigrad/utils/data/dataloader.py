"""DataLoader: batches from a dataset, in the main process or in worker processes.

>>> loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, num_workers=2)
>>> for xb, yb in loader:
...     loss = F.cross_entropy(model(xb), yb)
"""
import functools
import itertools
import multiprocessing
import queue
import time

from minigrad.utils.data._collate import default_collate, default_convert
from minigrad.utils.data._random import fresh_seed
from minigrad.utils.data._worker import RESET, _Fetcher, _WorkerDone, _WorkerError, worker_loop
from minigrad.utils.data.dataset import IterableDataset
from minigrad.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]

_LIVENESS_INTERVAL = 5.0  # seconds between checks that the workers are still alive


class DataLoader:
    """Iterate over ``dataset`` in batches, PyTorch's ``torch.utils.data.DataLoader``.

    Map-style datasets are visited in ``sampler`` order (sequential, or random with
    ``shuffle=True`` drawing from ``generator``), grouped by ``batch_size`` (or by a
    ``batch_sampler``) and merged by ``collate_fn`` (``default_collate``).  With
    ``num_workers > 0`` batches are made in that many worker processes and still come
    back in order.  ``pin_memory`` is accepted and copies nothing: batches stay
    ordinary host tensors (``.to("cuda")`` copies them to the GPU; docs/gpu.md).

    >>> loader = DataLoader(dataset, batch_size=4, shuffle=True,
    ...                     generator=minigrad.Generator().manual_seed(0))
    >>> len(loader) == math.ceil(len(dataset) / 4)
    True
    """
    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        prefetch_factor = _check_workers(num_workers, timeout, prefetch_factor,
                                         persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = _context(multiprocessing_context, num_workers)
        self.in_order = in_order
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._is_iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        self.persistent_workers = persistent_workers
        self._pool = None
        self._initialized = True

    def __setattr__(self, attr, value):
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._is_iterable and self.batch_size is not None)

    def _indices(self):
        """What each batch is made from: lists of keys, single keys, or (streams) nothing."""
        if self._is_iterable:
            return itertools.repeat(None)
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def _make_fetcher(self):
        return functools.partial(_Fetcher, auto_collation=self._auto_collation,
                                 collate_fn=self.collate_fn, drop_last=self.drop_last,
                                 batch_size=self.batch_size)

    def __iter__(self):
        if self.num_workers == 0:
            return _single_process_batches(self._make_fetcher()(self.dataset), self._indices())
        if self.persistent_workers:
            if self._pool is None:
                self._pool = _WorkerPool(self)
            else:
                self._pool.new_epoch(self._is_iterable)
            return _MultiProcessIter(self, self._pool, owns_pool=False)
        return _MultiProcessIter(self, _WorkerPool(self), owns_pool=True)

    def __len__(self):
        if self._is_iterable:
            length = len(self.dataset)  # TypeError for a stream of unknown length, as torch
            if self.batch_size is not None:
                rounded_up = -(-length // self.batch_size)
                return length // self.batch_size if self.drop_last else rounded_up
            return length
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __del__(self):
        if getattr(self, "_pool", None) is not None:
            self._pool.shutdown()


def _check_workers(num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; "
                         "use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle, sampler, batch_sampler):
    if shuffle not in {False, None}:
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")


def _context(multiprocessing_context, num_workers):
    if multiprocessing_context is None:
        return None
    if num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")
    if isinstance(multiprocessing_context, str):
        methods = multiprocessing.get_all_start_methods()
        if multiprocessing_context not in methods:
            raise ValueError("multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got "
                             f"multiprocessing_context={multiprocessing_context!r}")
        return multiprocessing.get_context(multiprocessing_context)
    if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a "
                        "string specifying the start method, but got "
                        f"multiprocessing_context={multiprocessing_context}")
    return multiprocessing_context


def _single_process_batches(fetcher, indices):
    for index in indices:
        try:
            yield fetcher.fetch(index)
        except StopIteration:  # an iterable dataset ran dry
            return


class _WorkerPool:
    """``num_workers`` processes, one task queue each and one shared result queue."""

    def __init__(self, loader):
        context = loader.multiprocessing_context or multiprocessing.get_context()
        base_seed = fresh_seed(loader.generator)
        self.timeout = loader.timeout
        self.result_queue = context.Queue()
        self.index_queues, self.workers = [], []
        for worker_id in range(loader.num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            worker = context.Process(
                target=worker_loop, daemon=True,
                args=(loader.dataset, index_queue, self.result_queue, loader._make_fetcher(),
                      loader.worker_init_fn, base_seed + worker_id, worker_id,
                      loader.num_workers))
            worker.start()
            self.index_queues.append(index_queue)
            self.workers.append(worker)
        self.next_task_id = 0
        self.closed = False

    def put(self, worker_id, indices):
        task_id = self.next_task_id
        self.next_task_id += 1
        self.index_queues[worker_id].put((task_id, indices))
        return task_id

    def new_epoch(self, restart_streams):
        if restart_streams:
            for index_queue in self.index_queues:
                index_queue.put(RESET)

    def get(self):
        """The next ``(task_id, result)`` any worker sends; errors if workers died or
        ``timeout`` passed."""
        start = time.monotonic()
        while True:
            wait = _LIVENESS_INTERVAL
            if self.timeout > 0:
                wait = min(wait, self.timeout - (time.monotonic() - start))
            try:
                return self.result_queue.get(timeout=max(wait, 0.0))
            except queue.Empty:
                dead = [str(w.pid) for w in self.workers if not w.is_alive()]
                if dead:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) "
                                       "exited unexpectedly") from None
                if self.timeout > 0 and time.monotonic() - start >= self.timeout:
                    self.shutdown()
                    raise RuntimeError(
                        f"DataLoader timed out after {self.timeout} seconds") from None

    def shutdown(self):
        if self.closed:
            return
        self.closed = True
        for index_queue in self.index_queues:
            index_queue.put(None)
        for worker in self.workers:
            worker.join(timeout=_LIVENESS_INTERVAL)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for q in self.index_queues + [self.result_queue]:
            q.cancel_join_thread()
            q.close()


class _MultiProcessIter:
    """One pass over the loader's batches, made by a worker pool, yielded in order."""

    def __init__(self, loader, pool, owns_pool):
        self.pool = pool
        self.owns_pool = owns_pool
        self.indices = loader._indices()
        self.first_task = pool.next_task_id  # results of older passes are dropped
        self.active = [True] * len(pool.workers)
        self.worker_cycle = itertools.cycle(range(len(pool.workers)))
        self.pending = {}  # task_id -> worker, in the order the batches must come out
        self.arrived = {}
        for _ in range(loader.prefetch_factor * len(pool.workers)):
            self._send_one()

    def _send_one(self):
        for _ in range(len(self.active)):
            worker_id = next(self.worker_cycle)
            if self.active[worker_id]:
                break
        else:
            return
        try:
            indices = next(self.indices)
        except StopIteration:
            return
        self.pending[self.pool.put(worker_id, indices)] = worker_id

    def _receive(self, task_id):
        while task_id not in self.arrived:
            got_id, result = self.pool.get()
            if got_id >= self.first_task:
                self.arrived[got_id] = result
        return self.arrived.pop(task_id)

    def __iter__(self):
        return self

    def __next__(self):
        while self.pending:
            task_id = next(iter(self.pending))
            result = self._receive(task_id)
            worker_id = self.pending.pop(task_id)
            if isinstance(result, _WorkerDone):
                self.active[worker_id] = False
                continue
            self._send_one()
            if isinstance(result, _WorkerError):
                self._close()
                result.reraise()
            return result
        self._close()
        raise StopIteration

    def _close(self):
        if self.owns_pool:
            self.pool.shutdown()

    def __del__(self):
        self._close()
