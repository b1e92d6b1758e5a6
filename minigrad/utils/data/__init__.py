"""minigrad.utils.data: datasets, samplers and the DataLoader (PyTorch's names and behaviour).

>>> from minigrad.utils.data import DataLoader, TensorDataset
>>> loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
"""
from minigrad.utils.data._collate import default_collate, default_convert  # noqa: F401
from minigrad.utils.data._worker import WorkerInfo, get_worker_info  # noqa: F401
from minigrad.utils.data.dataloader import DataLoader  # noqa: F401
from minigrad.utils.data.dataset import (  # noqa: F401
    ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split)
from minigrad.utils.data.distributed import DistributedSampler  # noqa: F401
from minigrad.utils.data.sampler import (  # noqa: F401
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
