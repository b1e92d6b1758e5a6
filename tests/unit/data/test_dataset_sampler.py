"""Datasets, random_split and samplers: PyTorch's behaviour (orders, lengths, errors)."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.utils import data

torch = pytest.importorskip("torch")


def test_tensor_dataset_indexes_rows():
    x, y = mg.tensor(np.arange(12.0).reshape(6, 2)), mg.tensor(np.arange(6))
    ds = data.TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[4]
    assert xi.tolist() == [8.0, 9.0] and yi.item() == 4
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(x, mg.tensor(np.arange(5)))


def test_subset_concat_and_chain():
    a, b = list(range(5)), list(range(10, 13))

    class Wrap(data.Dataset):
        def __init__(self, items): self.items = items
        def __len__(self): return len(self.items)
        def __getitem__(self, i): return self.items[i]

    both = Wrap(a) + Wrap(b)
    assert isinstance(both, data.ConcatDataset) and len(both) == 8
    assert [both[i] for i in range(8)] == a + b and both[-1] == 12 and both.cumulative_sizes == [5, 8]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        both[-9]
    sub = data.Subset(both, [7, 0, 3])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [12, 0, 3]
    assert sub.__getitems__([0, 2]) == [12, 3]

    class Stream(data.IterableDataset):
        def __init__(self, n): self.n = n
        def __iter__(self): return iter(range(self.n))
        def __len__(self): return self.n

    chain = Stream(2) + Stream(3)
    assert isinstance(chain, data.ChainDataset) and list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        data.ConcatDataset([Stream(1)])
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__"):
        data.Dataset()[0]


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [0.34, 0.33, 0.33]])
def test_random_split_lengths_match_torch_and_partition(lengths):
    parts = data.random_split(range(10), lengths, generator=mg.Generator().manual_seed(0))
    t_parts = torch.utils.data.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [len(p) for p in t_parts]
    items = sorted(i for p in parts for i in p)
    assert items == list(range(10))
    again = data.random_split(range(10), lengths, generator=mg.Generator().manual_seed(0))
    assert [list(p) for p in parts] == [list(p) for p in again]


def test_random_split_errors_and_warning():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length"):
        data.random_split(range(10), [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        data.random_split(range(2), [1.0, 0.0])
    mg.manual_seed(3)
    first = [list(p) for p in data.random_split(range(10), [5, 5])]
    mg.manual_seed(3)
    assert first == [list(p) for p in data.random_split(range(10), [5, 5])]


def test_sequential_and_batch_sampler_match_torch():
    assert list(data.SequentialSampler(range(4))) == [0, 1, 2, 3]
    for drop_last in (False, True):
        mine = data.BatchSampler(data.SequentialSampler(range(10)), 3, drop_last)
        theirs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(10)), 3, drop_last)
        assert list(mine) == list(theirs) and len(mine) == len(theirs)


def test_random_sampler_is_a_seeded_permutation():
    g = mg.Generator().manual_seed(1)
    sampler = data.RandomSampler(range(20), generator=g)
    first, second = list(sampler), list(sampler)
    assert sorted(first) == list(range(20)) and first != second  # new order each pass
    assert first == list(data.RandomSampler(range(20), generator=mg.Generator().manual_seed(1)))
    many = list(data.RandomSampler(range(4), num_samples=10, generator=g))
    assert len(many) == 10 and sorted(many[:8]) == [0, 0, 1, 1, 2, 2, 3, 3]
    drawn = list(data.RandomSampler(range(4), replacement=True, num_samples=50, generator=g))
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2, 3}


def test_subset_and_weighted_samplers():
    g = mg.Generator().manual_seed(0)
    picked = list(data.SubsetRandomSampler([10, 20, 30], generator=g))
    assert sorted(picked) == [10, 20, 30]
    draws = list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=g))
    counts = np.bincount(draws, minlength=3)
    assert counts[0] == 0 and 2.5 < counts[2] / counts[1] < 3.5
    no_repeat = list(data.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False, generator=g))
    assert sorted(no_repeat) == [0, 1, 2, 3]


@pytest.mark.parametrize("make,error,message", [
    (lambda d: d.RandomSampler(range(3), replacement=1), TypeError,
     "replacement should be a boolean value, but got replacement=1"),
    (lambda d: d.RandomSampler(range(3), num_samples=0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda d: d.WeightedRandomSampler([1.0], 0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda d: d.WeightedRandomSampler([[1.0]], 1), ValueError,
     "weights should be a 1d sequence but given weights have shape"),
    (lambda d: d.BatchSampler(range(3), 0, False), ValueError,
     "batch_size should be a positive integer value, but got batch_size=0"),
    (lambda d: d.BatchSampler(range(3), 2, 1), ValueError,
     "drop_last should be a boolean value, but got drop_last=1"),
])
def test_sampler_errors_match_torch(make, error, message):
    with pytest.raises(error, match=message):
        make(data)
    with pytest.raises(error, match=message):
        make(torch.utils.data)
