"""Where the data utilities get their randomness: a ``minigrad.Generator`` or the global one."""
import numpy as np

try:
    from minigrad import random as _random
except ImportError:  # a tree without minigrad.random: numpy's global stream stands in
    _random = None


def numpy_rng(generator=None):
    """The numpy Generator to draw from for ``generator`` (``None``: the global stream)."""
    if _random is None:
        return generator if generator is not None else np.random.default_rng()
    return _random.numpy_rng(generator)


def seed_everything(seed):
    """Seed minigrad's global stream (in a worker process)."""
    if _random is not None:
        _random.manual_seed(seed)


def fresh_seed(generator=None):
    """A 63-bit seed drawn from ``generator``, as torch draws ``int64().random_()``."""
    return int(numpy_rng(generator).integers(0, 2 ** 63 - 1, dtype=np.int64))


def seeded_rng(generator=None):
    """A numpy Generator for one pass of a sampler: ``generator``'s own stream when given,
    else a fresh stream seeded from the global one (so ``manual_seed`` reproduces it)."""
    if generator is not None:
        return numpy_rng(generator)
    return np.random.default_rng(fresh_seed())
