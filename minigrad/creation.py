"""Ways to make tensors: ``tensor``, ``zeros``, ``arange`` ... (PyTorch's names and arguments).

As in PyTorch, Python floats and the float factories give the default dtype
(``minigrad.float32`` unless ``set_default_dtype`` changed it), Python ints give
int64, and numpy arrays keep their dtype.  Random factories live in _sampling.py.
"""
import numpy as np

from minigrad._device import as_device
from minigrad._dtypes import array_from, default_numpy, numpy_dtype, supported
from minigrad._tensor import Tensor, _wrap


def _shape(size):
    """``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return _non_negative(tuple(size))


def _non_negative(shape, op=None):
    """``shape``, refused as PyTorch refuses a negative size (numpy's ValueError otherwise)."""
    for n in shape:
        if isinstance(n, int) and n < 0:
            if op == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
    return shape


def _float_dtype(dtype):
    return default_numpy() if dtype is None else numpy_dtype(dtype)


def _made(array, requires_grad, device=None, name="tensor"):
    if type(requires_grad) is not bool:  # torch refuses 1, "yes", numpy's bool
        raise TypeError(f"{name}(): argument 'requires_grad' must be bool, "
                        f"not {type(requires_grad).__name__}")
    as_device(device)
    t = _wrap(array)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data``.

    >>> minigrad.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    >>> minigrad.tensor(3).dtype
    minigrad.int64
    """
    if isinstance(data, Tensor):
        data = data._data
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in data):
        data = np.array([d._data if isinstance(d, Tensor) else d for d in data])
    return _made(array_from(data, dtype), requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing memory with a tensor or numpy array when the dtype
    already matches."""
    if isinstance(data, Tensor):
        as_device(device)
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == numpy_dtype(dtype)):
        return _made(data, False, device)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor sharing memory with ``array`` (writes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return _wrap(supported(array))


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    shape = _non_negative(size[0] if len(size) == 1 and isinstance(size[0], (tuple, list))
                          else size, "zeros")
    return _made(np.zeros(_shape(shape), _float_dtype(dtype)), requires_grad, device)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _made(np.ones(_shape(size), _float_dtype(dtype)), requires_grad, device)


def empty(*size, dtype=None, device=None, requires_grad=False):
    return _made(np.empty(_shape(size), _float_dtype(dtype)), requires_grad, device)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``size`` filled with ``fill_value``; the dtype follows the value (float -> default)."""
    if dtype is None:
        dtype = array_from(fill_value).dtype
    return _made(np.full(_non_negative(tuple(size)), fill_value, numpy_dtype(dtype)),
                 requires_grad, device)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False):
    return _made(np.zeros_like(input._data, numpy_dtype(dtype)), requires_grad, device)


def ones_like(input, *, dtype=None, device=None, requires_grad=False):
    return _made(np.ones_like(input._data, numpy_dtype(dtype)), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _made(np.full_like(input._data, fill_value, numpy_dtype(dtype)), requires_grad, device)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    return _made(np.empty_like(input._data, numpy_dtype(dtype)), requires_grad, device)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """``arange(5)`` is int64; any float argument gives the default float dtype."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if integral else default_numpy()
    return _made(np.arange(start, end, step, dtype=numpy_dtype(dtype)), requires_grad, device)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    return _made(np.linspace(start, end, steps, dtype=_float_dtype(dtype)), requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    return _made(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad, device)


# Tensor.new_*: factories that default to the calling tensor's dtype (and device).
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """``x.new_tensor(data)``: a copy of ``data`` with ``x``'s dtype unless ``dtype`` is given."""
    return tensor(data, dtype=self.dtype if dtype is None else dtype, device=device,
                  requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    """``x.new_zeros(2, 3)``: zeros of ``x``'s dtype."""
    return zeros(*size, dtype=self.dtype if dtype is None else dtype, device=device,
                 requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=self.dtype if dtype is None else dtype, device=device,
                requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, dtype=self.dtype if dtype is None else dtype, device=device,
                 requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=self.dtype if dtype is None else dtype, device=device,
                requires_grad=requires_grad)
