"""The loop a DataLoader worker process runs, and what it sends back.

A worker receives ``(task_id, indices)`` on its own queue and puts ``(task_id,
batch)`` on the shared result queue; ``None`` tells it to exit.  Errors travel as
``_WorkerError`` (type and formatted traceback) and are raised again in the main
process.  For an iterable dataset ``indices`` is ignored: the worker hands out the
next batch of its own copy of the stream, or ``_WorkerDone`` when it ran dry.
"""
import random
import traceback
from dataclasses import dataclass

import numpy as np

from minigrad._tensor import _wrap
from minigrad.utils.data._collate import default_collate
from minigrad.utils.data._random import seed_everything
from minigrad.utils.data.dataset import IterableDataset, TensorDataset


@dataclass
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: ``id``, ``num_workers``,
    ``seed`` and this worker's copy of ``dataset``."""
    id: int
    num_workers: int
    seed: int
    dataset: object


_worker_info = None


def get_worker_info():
    """Inside a DataLoader worker process: its :class:`WorkerInfo`; in the main process: ``None``.

    >>> class Shards(IterableDataset):
    ...     def __iter__(self):
    ...         info = get_worker_info()
    ...         return iter(range(info.id, 100, info.num_workers) if info else range(100))
    """
    return _worker_info


RESET = "reset"


@dataclass
class _WorkerDone:
    worker_id: int


class _WorkerError:
    """An exception from a worker, carried to the main process and raised there."""

    def __init__(self, exc, where):
        self.exc_type = type(exc)
        self.message = (f"Caught {type(exc).__name__} {where}.\nOriginal "
                        + "".join(traceback.format_exception(exc)))

    def reraise(self):
        try:
            error = self.exc_type(self.message)
        except Exception:  # the type needs other arguments: the text still says what happened
            error = RuntimeError(self.message)
        raise error


class _Fetcher:
    """Turns a task's indices into a batch for one worker (or for the main process)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last, batch_size):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.batch_size = batch_size
        self.iterator = iter(dataset) if isinstance(dataset, IterableDataset) else None
        # default_collate of TensorDataset rows is each tensor's rows at the indices:
        # one numpy take per tensor instead of a Tensor per sample and a stack.
        self.whole_rows = (auto_collation and collate_fn is default_collate
                           and type(dataset) is TensorDataset
                           and not any(t.requires_grad for t in dataset.tensors))

    def fetch(self, indices):
        """The batch for ``indices``; raises StopIteration when an iterable dataset ran dry."""
        if self.iterator is not None:
            return self._fetch_iterable()
        if self.whole_rows:
            rows = np.asarray(indices, dtype=np.intp)
            return [_wrap(t._data[rows]) for t in self.dataset.tensors]
        if not self.auto_collation:
            return self.collate_fn(self.dataset[indices])
        getitems = getattr(self.dataset, "__getitems__", None)
        samples = getitems(indices) if callable(getitems) else [self.dataset[i] for i in indices]
        return self.collate_fn(samples)

    def _fetch_iterable(self):
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        samples = []
        for sample in self.iterator:
            samples.append(sample)
            if len(samples) == self.batch_size:
                break
        if not samples or (self.drop_last and len(samples) < self.batch_size):
            raise StopIteration
        return self.collate_fn(samples)


def worker_loop(dataset, index_queue, result_queue, make_fetcher, worker_init_fn, seed,
                worker_id, num_workers):
    """The body of worker process ``worker_id`` (see the module docstring)."""
    global _worker_info
    seed_everything(seed)
    random.seed(seed)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    init_error = None
    try:
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
        fetcher = make_fetcher(dataset)
    except Exception as exc:
        init_error = _WorkerError(exc, f"in DataLoader worker process {worker_id}")
    done = False
    while True:
        task = index_queue.get()
        if task is None:
            result_queue.cancel_join_thread()  # exit now, even if nobody reads what is left
            break
        if task == RESET:  # a persistent worker starts a new epoch of its stream
            fetcher, done = make_fetcher(dataset), False
            continue
        task_id, indices = task
        if init_error is not None:
            result_queue.put((task_id, init_error))
            init_error = None
            done = True  # a worker that failed to start serves nothing more
            continue
        if done:
            result_queue.put((task_id, _WorkerDone(worker_id)))
            continue
        try:
            result = fetcher.fetch(indices)
        except StopIteration:
            result, done = _WorkerDone(worker_id), True
        except Exception as exc:
            result = _WorkerError(exc, f"in DataLoader worker process {worker_id}")
        result_queue.put((task_id, result))
