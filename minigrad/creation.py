"""Ways to make tensors: ``tensor``, ``zeros``, ``randn`` ... (PyTorch's names and arguments).

Python floats give float64 (numpy's convention, unlike torch's float32);
float32 input stays float32.
"""
import numpy as np

from minigrad._tensor import Tensor, _wrap

float32, float64, int32, int64, bool_ = np.float32, np.float64, np.int32, np.int64, np.bool_
_rng = np.random.default_rng()


def manual_seed(seed):
    """Seed ``rand``/``randn`` (and every other random op)."""
    global _rng
    _rng = np.random.default_rng(seed)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _made(array, dtype, requires_grad):
    t = _wrap(np.asarray(array, dtype=dtype) if dtype is not None else array)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, dtype=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data``.

    >>> minigrad.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        data = data._data
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in data):
        data = [d._data if isinstance(d, Tensor) else d for d in data]
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def from_numpy(array):
    """A tensor sharing memory with ``array``."""
    return _wrap(array)


def zeros(*size, dtype=float64, requires_grad=False):
    return _made(np.zeros(_shape(size), dtype=dtype), None, requires_grad)


def ones(*size, dtype=float64, requires_grad=False):
    return _made(np.ones(_shape(size), dtype=dtype), None, requires_grad)


def empty(*size, dtype=float64, requires_grad=False):
    return _made(np.empty(_shape(size), dtype=dtype), None, requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    return _made(np.full(tuple(size), fill_value, dtype=dtype), None, requires_grad)


def zeros_like(input, dtype=None, requires_grad=False):
    return _made(np.zeros_like(input._data, dtype=dtype), None, requires_grad)


def ones_like(input, dtype=None, requires_grad=False):
    return _made(np.ones_like(input._data, dtype=dtype), None, requires_grad)


def full_like(input, fill_value, dtype=None, requires_grad=False):
    return _made(np.full_like(input._data, fill_value, dtype=dtype), None, requires_grad)


def empty_like(input, dtype=None, requires_grad=False):
    return _made(np.empty_like(input._data, dtype=dtype), None, requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    """``arange(5)`` is int64 like torch; any float argument gives float64."""
    if end is None:
        start, end = 0, start
    if dtype is None and all(isinstance(v, int) for v in (start, end, step)):
        dtype = int64
    return _made(np.arange(start, end, step, dtype=dtype), None, requires_grad)


def linspace(start, end, steps, dtype=float64, requires_grad=False):
    return _made(np.linspace(start, end, steps, dtype=dtype), None, requires_grad)


def eye(n, m=None, dtype=float64, requires_grad=False):
    return _made(np.eye(n, m, dtype=dtype), None, requires_grad)


def rand(*size, dtype=float64, requires_grad=False):
    return _made(_rng.random(_shape(size)).astype(dtype), None, requires_grad)


def randn(*size, dtype=float64, requires_grad=False):
    return _made(_rng.standard_normal(_shape(size)).astype(dtype), None, requires_grad)


def randint(low, high=None, size=(), dtype=int64):
    if high is None:
        low, high = 0, low
    return _wrap(_rng.integers(low, high, tuple(size)).astype(dtype))
