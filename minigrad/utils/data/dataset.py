"""Datasets: map-style (``__getitem__`` + ``__len__``) and iterable-style (``__iter__``),
plus the ways to combine and split them (PyTorch's ``torch.utils.data.dataset``)."""
import bisect
import itertools
import math
import warnings

from minigrad.utils.data._random import numpy_rng

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset",
           "ChainDataset", "random_split"]


class Dataset:
    """A map from keys (usually ``0 .. len-1``) to samples: subclasses write
    ``__getitem__`` and, for the default samplers, ``__len__``.

    >>> class Squares(Dataset):
    ...     def __len__(self): return 10
    ...     def __getitem__(self, i): return i, i * i
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses write ``__iter__``.  With ``num_workers > 0`` every
    worker iterates its own copy; shard with ``get_worker_info()``.

    >>> class Count(IterableDataset):
    ...     def __iter__(self): return iter(range(5))
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of equally long tensors: ``ds[i] == (a[i], b[i], ...)``.

    >>> ds = TensorDataset(minigrad.randn(100, 3), minigrad.randint(0, 2, (100,)))
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> evens = Subset(dataset, range(0, len(dataset), 2))
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Map-style datasets one after another.

    >>> both = ConcatDataset([train_a, train_b]); len(both) == len(train_a) + len(train_b)
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if dataset_idx == 0 else self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another.

    >>> stream = ChainDataset([part1, part2])
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def _lengths_from_fractions(n, fractions):
    """floor(frac * n) each, then the remainder handed out one by one, round robin."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` at random into non-overlapping Subsets of the given lengths,
    or fractions summing to 1.  Pass a seeded ``minigrad.Generator`` to repeat a split.

    >>> g = minigrad.Generator().manual_seed(0)
    >>> train, test = random_split(range(10), [0.8, 0.2], generator=g)
    >>> len(train), len(test)
    (8, 2)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = numpy_rng(generator).permutation(sum(lengths)).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
