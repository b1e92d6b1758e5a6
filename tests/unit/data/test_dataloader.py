"""DataLoader: batching, shuffling, collation, samplers, worker processes, errors."""
import collections
import os

import numpy as np
import pytest

import minigrad as mg
from minigrad.utils import data

torch = pytest.importorskip("torch")


class Pairs(data.Dataset):
    """Sample i is (float vector, int label): a map-style dataset for both libraries."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == 7 and getattr(self, "fail", False):
            raise KeyError("sample 7 is broken")
        return np.array([i, i + 0.5]), i


def _stream_class(lib):
    class Stream(lib.IterableDataset):
        """0..n-1, each worker taking every num_workers-th item."""

        def __init__(self, n):
            self.n = n

        def __iter__(self):
            info = lib.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, self.n, step))

        def __len__(self):
            return self.n
    return Stream


Stream = _stream_class(data)
TorchStream = _stream_class(torch.utils.data)


def _values(batches):
    return [[np.asarray(part._data).tolist() if isinstance(part, mg.Tensor) else part
             for part in batch] for batch in batches]


def _torch_values(batches):
    return [[part.numpy().tolist() for part in batch] for batch in batches]


@pytest.mark.parametrize("options", [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                     dict(batch_size=4, num_workers=2)])
def test_batches_match_torch(options):
    mine = list(data.DataLoader(Pairs(), **options))
    theirs = list(torch.utils.data.DataLoader(Pairs(), **options))
    assert _values(mine) == _torch_values(theirs)
    assert len(data.DataLoader(Pairs(), **options)) == len(torch.utils.data.DataLoader(Pairs(), **options))
    xb, yb = mine[0]
    assert xb.dtype == np.float64 and yb.dtype == np.int64


def test_default_collate_matches_torch_structure():
    Point = collections.namedtuple("Point", "x y")
    batch = [{"a": 1.0, "b": (np.float32(2.0), "s", True), "c": [mg.tensor([1, 2])], "p": Point(1, 2.0)},
             {"a": 3.0, "b": (np.float32(4.0), "t", False), "c": [mg.tensor([3, 4])], "p": Point(3, 4.0)}]
    t_batch = [{**d, "c": [torch.tensor(d["c"][0].tolist())]} for d in batch]
    mine, theirs = data.default_collate(batch), torch.utils.data.default_collate(t_batch)
    assert mine.keys() == theirs.keys()
    assert mine["a"].tolist() == theirs["a"].tolist() and mine["a"]._data.dtype == np.float64
    assert isinstance(mine["b"], list) and mine["b"][1] == theirs["b"][1] == ("s", "t")
    assert mine["b"][0]._data.dtype == np.float32 and mine["b"][2].tolist() == [True, False]
    assert mine["c"][0].tolist() == theirs["c"][0].tolist()
    assert isinstance(mine["p"], Point) and mine["p"].x.tolist() == [1, 3]
    assert data.default_collate([collections.OrderedDict(k=1)]).__class__ is collections.OrderedDict
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        data.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays"):
        data.default_collate([object()])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        data.default_collate([mg.tensor([1.0]), mg.tensor([1.0, 2.0])])


def test_shuffle_with_generator_is_reproducible_and_reshuffles():
    def order(loader):
        return [v for _, y in loader for v in y.tolist()]
    loader = data.DataLoader(Pairs(20), batch_size=6, shuffle=True,
                             generator=mg.Generator().manual_seed(0))
    first, second = order(loader), order(loader)
    assert sorted(first) == list(range(20)) and first != second
    again = data.DataLoader(Pairs(20), batch_size=6, shuffle=True, generator=mg.Generator().manual_seed(0))
    assert order(again) == first
    mg.manual_seed(5)
    a = order(data.DataLoader(Pairs(20), batch_size=6, shuffle=True))
    mg.manual_seed(5)
    assert order(data.DataLoader(Pairs(20), batch_size=6, shuffle=True)) == a


def test_sampler_batch_sampler_collate_fn_and_no_batching():
    loader = data.DataLoader(Pairs(), sampler=[9, 1, 4], batch_size=2)
    assert [y.tolist() for _, y in loader] == [[9, 1], [4]]
    loader = data.DataLoader(Pairs(), batch_sampler=[[0, 5], [2]])
    assert [y.tolist() for _, y in loader] == [[0, 5], [2]] and len(loader) == 2
    loader = data.DataLoader(Pairs(), batch_size=5, collate_fn=lambda samples: len(samples))
    assert list(loader) == [5, 5]
    unbatched = list(data.DataLoader(Pairs(3), batch_size=None))
    assert isinstance(unbatched[1][0], mg.Tensor) and unbatched[1][1] == 1 and len(unbatched) == 3
    assert list(data.DataLoader(Pairs(2), pin_memory=True))[1][1].tolist() == [1]


def test_tensor_dataset_through_loader_gives_stacked_tensors():
    x = mg.tensor(np.arange(20, dtype=np.float32).reshape(10, 2), requires_grad=True)
    y = mg.tensor(np.arange(10))
    batches = list(data.DataLoader(data.TensorDataset(x, y), batch_size=4))
    assert batches[0][0].shape == (4, 2) and batches[0][0].dtype == np.float32
    assert batches[-1][1].tolist() == [8, 9]

    class Rows(data.TensorDataset):  # a subclass takes the per-sample path
        pass

    g1, g2 = mg.Generator().manual_seed(2), mg.Generator().manual_seed(2)
    fast = list(data.DataLoader(data.TensorDataset(x, y), batch_size=3, shuffle=True, generator=g1))
    slow = list(data.DataLoader(Rows(x, y), batch_size=3, shuffle=True, generator=g2))
    for (fx, fy), (sx, sy) in zip(fast, slow):
        assert type(fx) is type(sx) and fx.tolist() == sx.tolist() and fy.tolist() == sy.tolist()
        assert fx.dtype == sx.dtype and fy.dtype == sy.dtype
        assert fx.requires_grad == sx.requires_grad == (fx.grad_fn is not None)
    x.requires_grad_(False)
    fast = list(data.DataLoader(data.TensorDataset(x, y), batch_size=3))
    slow = list(data.DataLoader(Rows(x, y), batch_size=3))
    for (fx, fy), (sx, sy) in zip(fast, slow):
        assert fx.tolist() == sx.tolist() and fy.tolist() == sy.tolist() and fx.dtype == sx.dtype
        assert fx.is_leaf and sx.is_leaf and not fx.requires_grad and not sx.requires_grad


def test_collating_tensors_that_require_grad_records_the_stack_as_torch():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    batch = data.default_collate([w, w * 2])
    assert batch.requires_grad and batch.grad_fn is not None
    batch.sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    with mg.no_grad():
        assert not data.default_collate([w, w]).requires_grad


def _record_worker(worker_id):
    info = data.get_worker_info()
    info.dataset.started_in = (worker_id, os.getpid(), info.seed)


class Where(data.Dataset):
    started_in = None

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.started_in[0], self.started_in[1], self.started_in[2], mg.rand(1).item()


def test_workers_are_processes_with_init_fn_and_seeds():
    loader = data.DataLoader(Where(), batch_size=2, num_workers=2, worker_init_fn=_record_worker)
    batches = list(loader)
    worker_ids = [b[0].tolist() for b in batches]
    pids = {p for b in batches for p in b[1].tolist()}
    assert worker_ids == [[0, 0], [1, 1], [0, 0], [1, 1]]
    assert len(pids) == 2 and os.getpid() not in pids
    seeds = {s for b in batches for s in b[2].tolist()}
    assert len(seeds) == 2 and max(seeds) - min(seeds) == 1  # base_seed + worker_id
    assert data.get_worker_info() is None


def test_iterable_dataset_with_workers_and_batching():
    assert [b.tolist() for b in data.DataLoader(Stream(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    mine = [b.tolist() for b in data.DataLoader(Stream(10), batch_size=2, num_workers=2)]
    theirs = [b.tolist() for b in torch.utils.data.DataLoader(TorchStream(10), batch_size=2, num_workers=2)]
    assert mine == theirs
    assert len(data.DataLoader(Stream(7), batch_size=3, drop_last=True)) == 2
    assert [b.tolist() for b in data.DataLoader(Stream(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]


def test_persistent_workers_serve_several_epochs():
    loader = data.DataLoader(Pairs(9), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [[y.tolist() for _, y in loader] for _ in range(3)]
    assert epochs[0] == epochs[1] == epochs[2] == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]
    pool = loader._pool
    for _ in zip(range(2), loader):  # an abandoned pass leaves no stale batches behind
        pass
    assert [y.tolist() for _, y in loader][0] == [0, 1] and loader._pool is pool
    stream = data.DataLoader(Stream(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in stream] == [b.tolist() for b in stream]


def test_worker_error_is_raised_in_the_main_process_with_its_traceback():
    ds = Pairs()
    ds.fail = True
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process"):
        list(data.DataLoader(ds, batch_size=2, num_workers=2))
    with pytest.raises(KeyError, match="sample 7 is broken"):
        list(data.DataLoader(ds, batch_size=2))


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(num_workers=-1), ValueError, "num_workers option should be non-negative"),
    (dict(timeout=-1), ValueError, "timeout option should be non-negative"),
    (dict(prefetch_factor=2), ValueError, "prefetch_factor option could only be specified"),
    (dict(persistent_workers=True), ValueError, "persistent_workers option needs num_workers > 0"),
    (dict(sampler=[0, 1], shuffle=True), ValueError, "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), ValueError,
     "batch_sampler option is mutually exclusive with batch_size"),
    (dict(batch_size=None, drop_last=True), ValueError,
     "batch_size=None option disables auto-batching"),
    (dict(multiprocessing_context="fork"), ValueError,
     "multiprocessing_context can only be used with multi-process loading"),
])
def test_constructor_errors_match_torch(kwargs, error, message):
    with pytest.raises(error, match=message):
        data.DataLoader(Pairs(), **kwargs)
    with pytest.raises(error, match=message):
        torch.utils.data.DataLoader(Pairs(), **kwargs)


def test_iterable_dataset_option_errors_and_frozen_attributes():
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        data.DataLoader(Stream(3), shuffle=True)
    loader = data.DataLoader(Pairs())
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 4
    loader.num_workers = 0  # other attributes may change


class Dies(data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(1)


class Slow(data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        import time
        time.sleep(1.0)
        return i


def test_dead_worker_and_timeout_raise_clear_errors(monkeypatch):
    from minigrad.utils.data import dataloader
    monkeypatch.setattr(dataloader, "_LIVENESS_INTERVAL", 0.2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+.*\) exited unexpectedly"):
        list(data.DataLoader(Dies(), num_workers=2))
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        list(data.DataLoader(Slow(), num_workers=1, timeout=0.3))
