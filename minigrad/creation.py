"""Ways to make tensors: ``tensor``, ``zeros``, ``arange`` ... (PyTorch's names and arguments).

As in PyTorch, Python floats and the float factories give the default dtype
(``minigrad.float32`` unless ``set_default_dtype`` changed it), Python ints give
int64, and numpy arrays keep their dtype.  Random factories live in _sampling.py.

``device=`` picks the array library (minigrad/_array): ``zeros(3, device="cuda")``
allocates on the GPU; data given as Python or numpy values is copied there.
"""
import math
import numbers

import numpy as np

from minigrad import _array, _memory_format
from minigrad._device import as_device, of_array, on_device
from minigrad._dtypes import array_from, default_numpy, integral_fill_value, numpy_dtype, supported
from minigrad._tensor import Tensor, _wrap
from minigrad.kernels.strided import strided_view


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
    """A leaf around ``array``, moved to ``device`` (None: the default device)."""
    if type(requires_grad) is not bool:  # torch refuses 1, "yes", numpy's bool
        raise TypeError(f"{name}(): argument 'requires_grad' must be bool, "
                        f"not {type(requires_grad).__name__}")
    t = _wrap(on_device(array, device))
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
        if device is None:
            device = data.device  # torch: tensor(t) stays on t's device
        data = _array.to_host(data._data)
    elif _array.is_array(data) and type(data) is not np.ndarray:
        if device is None:
            device = of_array(data)  # a CuPy array stays on its GPU
        data = _array.to_host(data)
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in data):
        data = np.array([_array.to_host(d._data) if isinstance(d, Tensor) else d for d in data])
    try:
        array = array_from(data, dtype)
    except ValueError:
        _raise_ragged(data)  # nested lists of unequal lengths: torch's message
        raise
    return _made(array, requires_grad, device)


def _raise_ragged(data, dim=0, lengths=None):
    """PyTorch's error for the first nested sequence whose length differs from the
    first one's at its depth (numpy reports only "an inhomogeneous shape")."""
    if not isinstance(data, (list, tuple)):
        return
    if lengths is None:
        lengths, first = [], data
        while isinstance(first, (list, tuple)):
            lengths.append(len(first))
            first = first[0] if first else None
    if dim < len(lengths) and len(data) != lengths[dim]:
        raise ValueError(f"expected sequence of length {lengths[dim]} at dim {dim} "
                         f"(got {len(data)})")
    for item in data:
        _raise_ragged(item, dim + 1, lengths)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing memory with a tensor or numpy array when the dtype
    already matches."""
    if isinstance(data, Tensor):
        return data.to(device=None if device is None else as_device(device), dtype=dtype)
    if _array.is_array(data) and (dtype is None or data.dtype == numpy_dtype(dtype)):
        if device is None:
            device = of_array(data)  # shares memory on its own device (a CuPy array too)
        return _made(data, False, device)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor sharing memory with ``array`` (writes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return _wrap(supported(array))


def _allocate(device, name, *args, **kwargs):
    """``xp.<name>(*args)`` made on ``device`` directly (no host copy for a GPU)."""
    d = as_device(device)
    if d.type == "cpu":
        return getattr(np, name)(*args, **kwargs)
    xp = _array.namespace_for(d.type)
    with xp.cuda.Device(d.index):
        return getattr(xp, name)(*args, **kwargs)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    shape = _non_negative(size[0] if len(size) == 1 and isinstance(size[0], (tuple, list))
                          else size, "zeros")
    return _made(_allocate(device, "zeros", _shape(shape), _float_dtype(dtype)), requires_grad,
                 device)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _made(_allocate(device, "ones", _shape(size), _float_dtype(dtype)), requires_grad,
                 device)


def empty(*size, dtype=None, device=None, requires_grad=False):
    return _made(_allocate(device, "empty", _shape(size), _float_dtype(dtype)), requires_grad,
                 device)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``size`` filled with ``fill_value``; the dtype follows the value (float -> default)."""
    if not isinstance(fill_value, (numbers.Number, np.generic, Tensor)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    if dtype is None:
        dtype = array_from(fill_value).dtype
    dtype = numpy_dtype(dtype)
    if dtype.kind in "iu" and isinstance(fill_value, numbers.Real):
        fill_value = integral_fill_value(fill_value, dtype)   # PyTorch's checked conversion
    return _made(_allocate(device, "full", _non_negative(tuple(size)), fill_value, dtype),
                 requires_grad, device)


# *_like: on input's device unless device= says otherwise (as torch).
def _like(name, input, dtype, device, requires_grad, *args):
    dtype = input._data.dtype if dtype is None else numpy_dtype(dtype)
    device = input.device if device is None else device
    return _made(_allocate(device, name, input.shape, *args, dtype=dtype), requires_grad, device)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _memory_format.check("zeros_like", memory_format)
    return _like("zeros", input, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _memory_format.check("ones_like", memory_format)
    return _like("ones", input, dtype, device, requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    _memory_format.check("full_like", memory_format)
    return _like("full", input, dtype, device, requires_grad, fill_value)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _memory_format.check("empty_like", memory_format)
    return _like("empty", input, dtype, device, requires_grad)


def _check_range(start, end, step):
    """PyTorch's refusals, where numpy divides by zero or gives an empty range."""
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """``arange(5)`` is int64; any float argument gives the default float dtype."""
    if end is None:
        start, end = 0, start
    # 0-d tensors as their numbers: arange(tensor(3)) is int64, as arange(3)
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    _check_range(start, end, step)
    if dtype is None:
        integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if integral else default_numpy()
    return _made(np.arange(start, end, step, dtype=numpy_dtype(dtype)), requires_grad, device)


def _check_steps(steps):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    _check_steps(steps)
    return _made(np.linspace(start, end, steps, dtype=_float_dtype(dtype)), requires_grad, device)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    _check_steps(steps)
    return _made(np.logspace(start, end, steps, base=base, dtype=_float_dtype(dtype)),
                 requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    return _made(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad, device)


# Tensor.new_*: factories that default to the calling tensor's dtype and device.
def _new_kwargs(self, dtype, device, requires_grad):
    return dict(dtype=self.dtype if dtype is None else dtype,
                device=self.device if device is None else device, requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """``x.new_tensor(data)``: a copy of ``data`` with ``x``'s dtype unless ``dtype`` is given."""
    return tensor(data, **_new_kwargs(self, dtype, device, requires_grad))


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    """``x.new_zeros(2, 3)``: zeros of ``x``'s dtype, on ``x``'s device."""
    return zeros(*size, **_new_kwargs(self, dtype, device, requires_grad))


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, **_new_kwargs(self, dtype, device, requires_grad))


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, **_new_kwargs(self, dtype, device, requires_grad))


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, **_new_kwargs(self, dtype, device, requires_grad))


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number ``s``, of the default float dtype unless ``dtype``
    says otherwise (``scalar_tensor(3)`` is ``tensor(3.)``)."""
    value = s.item() if isinstance(s, Tensor) else s
    return full((), value, dtype=_float_dtype(dtype), device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialized tensor of ``size`` laid out with ``stride`` (in elements) over a
    storage just large enough."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    _non_negative(size)
    elements = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = _allocate(device, "empty", (elements,), _float_dtype(dtype))
    return _made(strided_view(storage, size, stride, 0), requires_grad, device)
