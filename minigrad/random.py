"""Random number generators: ``Generator``, ``manual_seed`` and the global RNG state.

Every random op (``rand``, ``randn``, ``randint``, dropout, ``normal_`` ...) draws
from a :class:`Generator`: the one passed as ``generator=``, or
``minigrad.default_generator``.  A Generator wraps a numpy ``PCG64`` bit
generator, so streams are reproducible within minigrad (they differ from
PyTorch's Mersenne Twister streams: tests that compare with PyTorch copy the
weights, not the seed).

>>> g = minigrad.Generator().manual_seed(0)
>>> a = minigrad.rand(3, generator=g)
>>> b = minigrad.rand(3, generator=g.manual_seed(0))
>>> bool((a == b).all())
True
"""
import contextlib

import numpy as np

from minigrad._device import as_device
from minigrad._tensor import _wrap

_DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() starts from
_STATE_BYTES = 16  # each of PCG64's two 128-bit integers


class Generator:
    """A source of random numbers: pass it as ``generator=`` to a random op.

    >>> g = minigrad.Generator().manual_seed(42)
    >>> g.initial_seed()
    42
    """

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Restart the stream from ``seed`` (an int); returns the generator."""
        if isinstance(seed, float):
            raise RuntimeError("manual_seed expected a long, but got float")
        seed = int(seed)
        if not -(2 ** 63) <= seed < 2 ** 64:
            raise ValueError("Overflow when unpacking long long")
        seed %= 2 ** 64  # negative seeds wrap, as torch's uint64 cast does
        self._seed = seed
        self._numpy = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self):
        """Re-seed from the operating system's entropy; returns the new seed."""
        seed = int(np.random.SeedSequence().entropy % 2 ** 64)
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The stream's position as a uint8 tensor (feed it back to ``set_state``)."""
        state = self._numpy.bit_generator.state
        parts = [state["state"]["state"].to_bytes(_STATE_BYTES, "little"),
                 state["state"]["inc"].to_bytes(_STATE_BYTES, "little"),
                 bytes([state["has_uint32"]]),
                 int(state["uinteger"]).to_bytes(4, "little")]
        return _wrap(np.frombuffer(b"".join(parts), dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Go back to a position saved by ``get_state``; returns the generator."""
        raw = np.asarray(getattr(new_state, "_data", new_state))
        size = 2 * _STATE_BYTES + 5
        if raw.dtype != np.uint8 or raw.size != size:
            raise RuntimeError(f"Expected a minigrad Generator state: a uint8 tensor of size "
                               f"{size}, but found the input RNG state size to be {raw.size}")
        data = raw.tobytes()
        self._numpy.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(data[:_STATE_BYTES], "little"),
                      "inc": int.from_bytes(data[_STATE_BYTES:2 * _STATE_BYTES], "little")},
            "has_uint32": data[2 * _STATE_BYTES],
            "uinteger": int.from_bytes(data[2 * _STATE_BYTES + 1:], "little")}
        return self

    def __repr__(self):
        return f"<minigrad.Generator object (device={self.device}, initial_seed={self._seed})>"


default_generator = Generator()
default_generator.seed()  # like torch: the global stream differs between runs until seeded


def numpy_rng(generator=None):
    """The numpy Generator a random op should draw from."""
    if generator is None:
        return default_generator._numpy
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a minigrad.Generator, not {type(generator).__name__}")
    return generator._numpy


def manual_seed(seed):
    """Seed the global generator (every random op without ``generator=``); returns it.

    >>> minigrad.manual_seed(0)  # doctest: +ELLIPSIS
    <minigrad.Generator object ...>
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seed the global generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, device_type="cpu"):
    """Random ops inside the block leave the global stream where it was afterwards."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
