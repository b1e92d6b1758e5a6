"""DistributedSampler: each rank reads its own share of a dataset (PyTorch's rule).

The indices (shuffled from ``seed + epoch`` when ``shuffle``) are padded by repeating the
first ones until they divide evenly, or trimmed with ``drop_last``; rank r takes every
``num_replicas``-th index starting at r. Call ``set_epoch(epoch)`` before each epoch so the
shuffle changes between epochs and stays the same on every rank.
"""
import math

from minigrad.utils.data.sampler import Sampler


class DistributedSampler(Sampler):
    """>>> sampler = DistributedSampler(dataset)            # doctest: +SKIP
    >>> loader = DataLoader(dataset, batch_size=32, sampler=sampler)   # doctest: +SKIP
    >>> for epoch in range(10):
    ...     sampler.set_epoch(epoch)                        # doctest: +SKIP
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        from minigrad import distributed as dist  # (import cycle: distributed imports nn)
        if num_replicas is None or rank is None:
            if not dist.is_initialized():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        if drop_last and len(dataset) % num_replicas:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        import minigrad  # (import cycle: minigrad imports utils.data)
        if self.shuffle:
            generator = minigrad.Generator().manual_seed(self.seed + self.epoch)
            indices = minigrad.randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding] if padding else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use this epoch's shuffle (the same on every rank)."""
        self.epoch = epoch
