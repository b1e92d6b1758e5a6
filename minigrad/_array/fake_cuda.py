"""A CuPy-like test backend: "cuda" arrays that are numpy arrays in disguise.

CPU-only CI cannot run CuPy, yet it must prove that minigrad's code takes its
array library from its inputs and never pulls a device array to the host by
accident.  ``FakeCudaArray`` wraps a numpy array and behaves like
``cupy.ndarray`` where that matters:

* implicit conversion to numpy is refused: ``np.asarray(x)`` raises CuPy's
  TypeError ("Implicit conversion to a NumPy array is not allowed ..."), so a
  stray ``np.`` call on device data fails loudly instead of silently copying;
* numpy functions called on it dispatch to this backend the way CuPy's
  ``__array_ufunc__`` / ``__array_function__`` do (``np.exp(x)`` works and stays
  on the device); a numpy function the backend lacks raises numpy's TypeError;
* a host ``numpy.ndarray`` operand in a device operation raises CuPy's
  ``TypeError: Unsupported type <class 'numpy.ndarray'>`` (Python and numpy
  scalars are fine, as in CuPy);
* every array carries a device id; operands on two devices raise ValueError;
* reductions return 0-d device arrays, never numpy scalars, as CuPy does;
* ``.get()`` / ``xp.asnumpy`` copy to the host, ``xp.asarray(host)`` copies
  from it.

Where this backend is looser than CuPy: an operation on arrays of device 1
runs while device 0 is current (CuPy needs peer access for that), and the
special-functions module offers the subset of ``scipy.special`` that
``cupyx.scipy.special`` has.

Use ``install()`` to register it as the "cuda" device (``uninstall()`` undoes
it); ``xp`` is the namespace (``xp.linalg``, ``xp.random``, ``xp.fft``,
``xp.cuda``) and ``special`` the special functions::

    from minigrad._array import fake_cuda
    fake_cuda.install()
    x = fake_cuda.xp.asarray(np.ones(3))
    fake_cuda.xp.exp(x).get()
"""
import functools
import operator
import types

import numpy as np
import scipy.special

from minigrad import _array

DEVICE_COUNT = 2  # two devices, so that tests can mix them and see the error

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` "
                       "to construct a NumPy array explicitly.")


class _State:
    current = 0  # the current device id, as cupy.cuda.Device(i).use() sets it


def _unsupported(value):
    return TypeError(f"Unsupported type {type(value)}")


class FakeCudaArray:
    """A numpy array on a pretend GPU (see the module docstring)."""

    __slots__ = ("_a", "_device")
    __array_priority__ = 100  # numpy defers binary operators to us, as it does to CuPy
    __hash__ = None

    def __init__(self, host, device_id=None):
        # Internal constructor: `host` is a numpy array this object now owns.
        self._a = host
        self._device = _State.current if device_id is None else device_id

    # --- the parts that make it CuPy-like -------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_CONVERSION)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__":
            fn = getattr(xp, ufunc.__name__, None)
            if fn is None:
                return NotImplemented
            return fn(*inputs, **kwargs)
        if method in ("reduce", "accumulate", "reduceat", "outer", "at"):
            return _call(getattr(ufunc, method), inputs, kwargs)
        return NotImplemented

    def __array_function__(self, func, types_, args, kwargs):
        module = xp
        for part in func.__module__.split(".")[1:]:
            module = getattr(module, part, None)
            if module is None:
                return NotImplemented
        ours = getattr(module, func.__name__, None)
        if ours is None or ours is func:
            return NotImplemented  # numpy then raises "no implementation found for ..."
        return ours(*args, **kwargs)

    def get(self, stream=None, order="C", out=None, blocking=True):
        """A numpy copy of the values (the only way to the host, as in CuPy); with
        ``blocking=False`` CuPy copies asynchronously (here the copy is done at once)."""
        if out is not None:
            out[...] = self._a
            return out
        return np.array(self._a, order=order, copy=True)

    def set(self, arr, stream=None):
        """Copy the host array ``arr`` into this array."""
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"Only numpy.ndarray can be set to cupy.ndarray: {type(arr)}")
        if arr.shape != self._a.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._a.shape}, new shape: {arr.shape}")
        self._a[...] = arr

    @property
    def device(self):
        return Device(self._device)

    @property
    def __cuda_array_interface__(self):
        host = self._a.__array_interface__
        return {"shape": host["shape"], "typestr": host["typestr"], "data": host["data"],
                "strides": self._a.strides, "version": 3}

    # --- metadata ---------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    # CuPy's flags: no `writeable` (device arrays are always writeable)
    flags = property(lambda self: types.SimpleNamespace(
        c_contiguous=self._a.flags.c_contiguous, f_contiguous=self._a.flags.f_contiguous,
        owndata=self._a.flags.owndata))
    T = property(lambda self: _wrap(self._a.T, self._device))
    mT = property(lambda self: _wrap(np.swapaxes(self._a, -1, -2), self._device))
    real = property(lambda self: _wrap(self._a.real, self._device))
    imag = property(lambda self: _wrap(self._a.imag, self._device))

    @property
    def base(self):
        base = self._a.base
        return None if base is None else _wrap(base, self._device)

    def __getattr__(self, name):
        # ndarray methods (sum, reshape, astype ...), run on the device with the same checks
        # as the namespace's functions.  Buffer and interface attributes are not forwarded:
        # CuPy has none that numpy could read.
        if name.startswith("_") or name in _HOST_ONLY_METHODS:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        method = getattr(self._a, name)  # AttributeError as numpy's
        return functools.partial(_call_method, self, name)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def __getitem__(self, key):
        return _wrap(self._a[_index(key, self._device)], self._device)

    def __setitem__(self, key, value):
        self._a[_index(key, self._device)] = _unwrap(value, [self._device])

    # Scalars: CuPy synchronizes and converts a size-1 array; so do we.
    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __index__(self):
        if self._a.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return operator.index(self._a.item())

    def item(self, *args):
        return self._a.item(*args)

    def tolist(self):
        return self._a.tolist()

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a.item() if self._a.ndim == 0 else self._a, spec)

    def __reduce__(self):
        return (_rebuild, (self.get(), self._device))

    def __copy__(self):
        return _wrap(self._a.copy(), self._device)

    def __deepcopy__(self, memo):
        return _wrap(self._a.copy(), self._device)


_HOST_ONLY_METHODS = frozenset({"ctypes", "tofile", "tobytes", "dump", "dumps", "data", "getfield",
                                "setfield",
                                "__array_interface__", "__array_struct__"})


def _rebuild(host, device_id):
    return FakeCudaArray(host, device_id if device_id < DEVICE_COUNT else 0)


# --- argument checking: the heart of the backend ---------------------------------------------
def _unwrap(value, devices):
    """``value`` with device arrays replaced by their numpy arrays; host arrays refused.

    ``devices`` collects the device ids seen, so mixing two devices can be refused.
    """
    if isinstance(value, FakeCudaArray):
        devices.append(value._device)
        return value._a
    if isinstance(value, np.ndarray):
        raise _unsupported(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v, devices) for v in value)
    if isinstance(value, _FusionValue):   # a function that is not elementwise, under fuse
        raise TypeError("cupy.fuse: only elementwise operations (ufuncs, where, astype) can "
                        "be fused")
    return value  # Python/numpy scalars, dtypes, shapes, None, slices


def _check_devices(devices):
    if devices and any(d != devices[0] for d in devices):
        first, other = devices[0], next(d for d in devices if d != devices[0])
        raise ValueError(f"The device where the array resides ({other}) is different from the "
                         f"current device ({first}). Peer access is unavailable between these "
                         f"devices.")
    return devices[0] if devices else _State.current


def _wrap(value, device_id):
    """Results back on the device: arrays and numpy scalars become device arrays."""
    if isinstance(value, np.ndarray):
        if not value.flags.writeable and all(value.strides):
            _make_writeable(value)  # CuPy's views (diagonal ...) are writeable; numpy's are not
        return FakeCudaArray(value, device_id)
    if isinstance(value, np.generic):
        return FakeCudaArray(np.asarray(value), device_id)
    if isinstance(value, tuple):
        return tuple(_wrap(v, device_id) for v in value)
    if isinstance(value, list):
        return [_wrap(v, device_id) for v in value]
    return value


def _make_writeable(array):
    try:
        array.flags.writeable = True
    except ValueError:  # a view of read-only memory stays read-only
        pass


def _call(fn, args, kwargs):
    devices = []
    args = _unwrap(args, devices)
    kwargs = {k: _unwrap(v, devices) for k, v in kwargs.items()}
    device_id = _check_devices(devices)
    return _wrap(fn(*args, **kwargs), device_id)


def _call_method(array, name, *args, **kwargs):
    devices = [array._device]
    args = _unwrap(args, devices)
    kwargs = {k: _unwrap(v, devices) for k, v in kwargs.items()}
    _check_devices(devices)
    out = getattr(array._a, name)(*args, **kwargs)
    return _wrap(out, array._device)


def _index(key, device_id):
    # CuPy accepts host index arrays and lists (it copies them to the device), and device
    # index arrays on the array's own device.
    if isinstance(key, FakeCudaArray):
        _check_devices([device_id, key._device])
        return key._a
    if isinstance(key, tuple):
        return tuple(_index(k, device_id) for k in key)
    return key


# --- operators, all through the namespace so they get the same checks ------------------------
def _binary(name):
    def op(self, other):
        if not isinstance(other, (FakeCudaArray, np.ndarray, np.generic, int, float, complex,
                                  bool)):
            return NotImplemented
        return getattr(xp, name)(self, other)
    return op


def _reflected(name):
    def op(self, other):
        if not isinstance(other, (np.generic, int, float, complex, bool)):
            return NotImplemented  # a host ndarray goes through __array_ufunc__ and is refused
        return getattr(xp, name)(other, self)
    return op


def _inplace(name):
    def op(self, other):
        devices = [self._device]
        other = _unwrap(other, devices)
        _check_devices(devices)
        getattr(np, name)(self._a, other, out=self._a)
        return self
    return op


for _dunder, _ufunc in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                        ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                        ("mod", "remainder"), ("pow", "power"), ("matmul", "matmul"),
                        ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                        ("lshift", "left_shift"), ("rshift", "right_shift")]:
    setattr(FakeCudaArray, f"__{_dunder}__", _binary(_ufunc))
    setattr(FakeCudaArray, f"__r{_dunder}__", _reflected(_ufunc))
    setattr(FakeCudaArray, f"__i{_dunder}__", _inplace(_ufunc))
for _dunder, _ufunc in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                        ("ge", "greater_equal"), ("eq", "equal"), ("ne", "not_equal")]:
    setattr(FakeCudaArray, f"__{_dunder}__", _binary(_ufunc))
for _dunder, _ufunc in [("neg", "negative"), ("pos", "positive"), ("abs", "absolute"),
                        ("invert", "invert")]:
    setattr(FakeCudaArray, f"__{_dunder}__", lambda self, _u=_ufunc: getattr(xp, _u)(self))
FakeCudaArray.__divmod__ = lambda self, other: (self // other, self % other)


# --- cupy.fuse -------------------------------------------------------------------------------
class _FusionValue:
    """What a function traced by ``fuse`` sees for a device array, as cupy.fuse's variables:
    ufuncs, operators, ``where`` and ``astype`` work on it; anything else (a reduction,
    indexing, a reshape, another function) raises TypeError or AttributeError."""

    __slots__ = ("_array",)
    __array_ufunc__ = None   # numpy's own functions refuse it
    __hash__ = None

    def __init__(self, array):
        self._array = array

    dtype = property(lambda self: self._array.dtype)
    ndim = property(lambda self: self._array.ndim)

    def astype(self, dtype, order=None, casting=None, subok=None, copy=True):
        return _FusionValue(self._array.astype(dtype))


def _fused_call(fn, args, kwargs):
    if kwargs:
        raise TypeError(f"Wrong arguments {kwargs}")
    result = _call(fn, [a._array if type(a) is _FusionValue else a for a in args], {})
    return tuple(map(_FusionValue, result)) if isinstance(result, tuple) else _FusionValue(result)


def _where(condition, x=None, y=None):
    if any(type(a) is _FusionValue for a in (condition, x, y)):
        return _fused_call(np.where, (condition, x, y), {})
    return _call(np.where, (condition, x, y) if x is not None or y is not None else (condition,),
                 {})


for _dunder, _ufunc in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                        ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                        ("mod", "remainder"), ("pow", "power")]:
    setattr(_FusionValue, f"__{_dunder}__", lambda self, other, _u=_ufunc: getattr(xp, _u)(
        self, other))
    setattr(_FusionValue, f"__r{_dunder}__", lambda self, other, _u=_ufunc: getattr(xp, _u)(
        other, self))
for _dunder, _ufunc in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                        ("ge", "greater_equal"), ("eq", "equal"), ("ne", "not_equal")]:
    setattr(_FusionValue, f"__{_dunder}__", lambda self, other, _u=_ufunc: getattr(xp, _u)(
        self, other))
_FusionValue.__neg__ = lambda self: xp.negative(self)
_FusionValue.__abs__ = lambda self: xp.absolute(self)


class _Fusion:
    """``cupy.fuse(f)``: calls ``f`` with every device array argument as a ``_FusionValue``
    and returns its results as new arrays of the arguments' broadcast shape, as the one
    elementwise kernel CuPy compiles from ``f`` writes them."""

    _ACCEPTED = (FakeCudaArray, np.generic, int, float, complex, bool, type(None))

    def __init__(self, func, name):
        self.func, self.name = func, name
        self.calls = 0   # fused calls made (tests)

    def __call__(self, *args):
        arrays = [a for a in args if isinstance(a, FakeCudaArray)]
        if not arrays:   # no device array: a plain call, as CuPy's
            return self.func(*args)
        if not all(isinstance(a, self._ACCEPTED) for a in args):
            raise TypeError(f"Invalid argument type for '{self.name}': "
                            f"({', '.join(repr(type(a)) for a in args)})")
        self.calls += 1
        result = self.func(*[_FusionValue(a) if isinstance(a, FakeCudaArray) else a
                             for a in args])
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        if isinstance(result, tuple):
            return tuple(self._output(r, shape) for r in result)
        return self._output(result, shape)

    def _output(self, value, shape):
        if type(value) is not _FusionValue:
            raise TypeError(f"Fusion function can't return {type(value)}")
        array = value._array
        return FakeCudaArray(np.array(np.broadcast_to(array._a, shape)), array._device)


def fuse(*args, **kwargs):
    """``cupy.fuse``: ``fuse(f)``, or ``fuse(kernel_name=...)(f)``."""
    def wrap(func, kernel_name=None):
        return functools.update_wrapper(_Fusion(func, kernel_name or func.__name__), func)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return wrap(args[0])
    return lambda func: wrap(func, *args, **kwargs)


# --- the namespace modules -------------------------------------------------------------------
class Device:
    """``cupy.cuda.Device``: a device id, usable as a context that makes it current."""

    def __init__(self, device=None):
        if device is None:
            device = _State.current
        device = int(device)
        if not 0 <= device < DEVICE_COUNT:
            raise RuntimeError("cudaErrorInvalidDevice: invalid device ordinal")
        self.id = device
        self._previous = []

    def use(self):
        _State.current = self.id

    def synchronize(self):
        """Nothing to wait for: the fake's work is done when it is queued."""

    def __enter__(self):
        self._previous.append(_State.current)
        _State.current = self.id
        return self

    def __exit__(self, *exc):
        _State.current = self._previous.pop()

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


def _get_device_count():
    return DEVICE_COUNT


class _MemoryPool:
    def free_all_blocks(self):
        pass

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0


_memory_pool = _MemoryPool()


class _Event:
    """``cupy.cuda.Event``: the fake computes at once, so a recorded event has passed."""

    def __init__(self, *args, **kwargs):
        self.done = False

    def record(self, stream=None):
        self.done = True

    def synchronize(self):
        """Nothing to wait for: the fake's work is done when it is queued."""

cuda = types.SimpleNamespace(
    Device=Device,
    runtime=types.SimpleNamespace(
        getDeviceCount=_get_device_count,
        getDeviceProperties=lambda i: {"name": b"Fake CUDA device (numpy)", "major": 0,
                                       "minor": 0, "totalGlobalMem": 0},
        deviceSynchronize=lambda: None),
    Event=_Event,
    get_device_id=lambda: _State.current,
    get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None),
)


def _to_device(obj, dtype=None, copy=None, order=None, **kwargs):
    """``cupy.asarray``/``cupy.array``: host data (numpy or Python) is copied to the device."""
    if isinstance(obj, FakeCudaArray):
        out = obj._a
        if dtype is not None:
            out = out.astype(dtype, copy=bool(copy))
        elif copy:
            out = out.copy()
        device_id = obj._device
        if device_id != _State.current:
            out, device_id = out.copy(), _State.current  # a cross-device copy, as CuPy's
        return FakeCudaArray(out, device_id)
    devices = []
    host = _unwrap_for_creation(obj, devices)
    device_id = _check_devices(devices)
    return FakeCudaArray(np.array(host, dtype=dtype, copy=True, order=order or "K"), device_id)


def _unwrap_for_creation(obj, devices):
    # Creating from host data is allowed; nested lists may hold device scalars.
    if isinstance(obj, FakeCudaArray):
        devices.append(obj._device)
        return obj._a
    if isinstance(obj, (list, tuple)):
        return [_unwrap_for_creation(v, devices) for v in obj]
    return obj


def asnumpy(a, stream=None, order="C", out=None):
    """``cupy.asnumpy``: a numpy copy of a device array; host data is returned as numpy."""
    if isinstance(a, FakeCudaArray):
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def _like_creation(np_fn):
    # zeros_like(x) and friends take a device array and make one on its device.
    @functools.wraps(np_fn)
    def fn(a, *args, **kwargs):
        if not isinstance(a, FakeCudaArray):
            raise _unsupported(a)
        kwargs.pop("subok", None)
        return FakeCudaArray(np_fn(a._a, *args, **kwargs), a._device)
    return fn


def _creation(np_fn):
    @functools.wraps(np_fn)
    def fn(*args, **kwargs):
        return _call(np_fn, args, kwargs)
    return fn


# The ufunc.at minigrad may use on CuPy: it has no multiply.at ("`cupy_multiply.at` is not
# supported yet", CuPy 14), and its maximum.at / minimum.at round float64 values through
# float32 (an H200, CuPy 14.2: maximum.at of 1/3 stored 0.3333333432674408).
_UFUNCS_WITH_AT = {"add", "subtract"}


class _Ufunc:
    """A numpy ufunc run through the device checks, with its methods (``add.at`` ...)."""

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__
        self.nin, self.nout, self.nargs = ufunc.nin, ufunc.nout, ufunc.nargs
        self.identity = ufunc.identity

    def __call__(self, *args, **kwargs):
        if any(type(a) is _FusionValue for a in args):
            return _fused_call(self._ufunc, args, kwargs)
        return _call(self._ufunc, args, kwargs)

    def reduce(self, array, axis=0, *args, **kwargs):
        if getattr(array, "ndim", None) == 0 and axis not in (None, ()):  # numpy allows 0, -1
            raise np.exceptions.AxisError(axis, 0)  # as CuPy's reductions do
        return _call(self._ufunc.reduce, (array, axis) + args, kwargs)

    def accumulate(self, *args, **kwargs):
        return _call(self._ufunc.accumulate, args, kwargs)

    def reduceat(self, *args, **kwargs):
        return _call(self._ufunc.reduceat, args, kwargs)

    def outer(self, *args, **kwargs):
        return _call(self._ufunc.outer, args, kwargs)

    def at(self, a, indices, b=None):
        if self.__name__ not in _UFUNCS_WITH_AT:
            raise NotImplementedError(f"`cupy_{self.__name__}.at` is not supported yet")
        if not isinstance(a, FakeCudaArray):
            raise _unsupported(a)
        indices = _index(indices, a._device)  # host indices are copied over, as in indexing
        devices = [a._device]
        b = _unwrap(b, devices)
        _check_devices(devices)
        if b is None:
            self._ufunc.at(a._a, indices)
        else:
            self._ufunc.at(a._a, indices, b)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"


class _Namespace(types.ModuleType):
    """A module whose functions are numpy's (or scipy's) run through the device checks.

    Attributes are looked up in ``_source`` on first use and cached; names in ``_missing``
    do not exist, as they do not in CuPy.
    """

    def __init__(self, name, source, missing=(), only=None):
        super().__init__(name)
        self._source = source
        self._missing = frozenset(missing)
        self._only = None if only is None else frozenset(only)

    def __getattr__(self, name):
        if name.startswith("__") or name in self._missing or (
                self._only is not None and name not in self._only):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        value = getattr(self._source, name)  # AttributeError as the source's
        if isinstance(value, np.ufunc):
            value = _Ufunc(value)
        elif isinstance(value, types.ModuleType):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        elif callable(value) and not isinstance(value, type):
            value = _creation(value)
        setattr(self, name, value)
        return value


# numpy names CuPy does not have (or that would reach host memory): not offered.
_NOT_IN_CUPY = {"asmatrix", "matrix", "memmap", "frombuffer", "fromfile", "load", "save",
                "savez", "loadtxt", "savetxt", "genfromtxt", "asarray_chkfinite"}

xp = _Namespace("fake_cuda.xp", np, missing=_NOT_IN_CUPY)
xp.ndarray = FakeCudaArray
xp.asarray = xp.array = xp.ascontiguousarray = xp.asanyarray = _to_device
xp.asnumpy = asnumpy
xp.fuse = fuse
xp.where = _where
xp.cuda = cuda
xp.get_array_module = lambda *arrays: (
    xp if any(isinstance(a, FakeCudaArray) for a in arrays) else np)
for _name in ("zeros_like", "ones_like", "empty_like", "full_like"):
    setattr(xp, _name, _like_creation(getattr(np, _name)))
xp.linalg = _Namespace("fake_cuda.xp.linalg", np.linalg)
xp.fft = _Namespace("fake_cuda.xp.fft", np.fft)
# cupy.random: the legacy functions; its Generator API differs from numpy's, so not offered.
xp.random = _Namespace("fake_cuda.xp.random", np.random,
                       missing={"default_rng", "Generator", "PCG64", "RandomState"})
xp.get_default_memory_pool = lambda: _memory_pool
xp.get_default_pinned_memory_pool = lambda: _memory_pool

# The functions cupyx.scipy.special offers (CuPy 13); anything else is missing on the GPU.
_CUPYX_SPECIAL = {
    "j0", "j1", "y0", "y1", "yn", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e",
    "spherical_yn", "cbrt", "exp2", "exp10", "expm1", "radian", "cosdg", "sindg", "tandg",
    "cotdg", "log1p", "round", "gamma", "gammaln", "loggamma", "multigammaln", "rgamma",
    "digamma", "psi", "polygamma", "beta", "betaln", "betainc", "betaincinv", "gammainc",
    "gammaincc", "gammaincinv", "gammainccinv", "erf", "erfc", "erfcx", "erfinv", "erfcinv",
    "log_ndtr", "ndtr", "ndtri", "expit", "logit", "log_expit", "log_softmax", "softmax",
    "logsumexp", "zeta", "zetac", "lpmv", "sph_harm", "entr", "rel_entr", "kl_div", "huber",
    "pseudo_huber", "xlogy", "xlog1py", "boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p",
    "ellipk", "ellipkm1", "ellipj", "sici", "shichi", "exp1", "expi", "expn", "spence",
    "sinc", "bdtr", "bdtrc", "bdtri", "chdtr", "chdtrc", "chdtri", "fdtr", "fdtrc", "fdtri",
    "gdtr", "gdtrc", "nbdtr", "nbdtrc", "nbdtri", "pdtr", "pdtrc", "pdtri", "stdtr", "stdtrit",
    "wright_bessel", "log_wright_bessel", "struve", "modstruve", "dawsn",
}
special = _Namespace("fake_cuda.special", scipy.special, only=_CUPYX_SPECIAL)


def _broadcast_to(array, shape, subok=False):
    if not isinstance(array, FakeCudaArray):  # CuPy broadcasts only its own arrays
        raise TypeError(f"Unsupported type {type(array)}")
    return _call(np.broadcast_to, (array, shape), {"subok": subok})


def _polygamma(n, x):
    if not isinstance(n, FakeCudaArray):  # cupyx's polygamma fails on a Python n
        raise AttributeError("'bool' object has no attribute 'astype'")
    return _call(scipy.special.polygamma, (n, x), {})


def _solve(a, b):
    if b.ndim > 1 and a.shape[:-2] != b.shape[:-2]:  # CuPy's solve broadcasts no batch dims
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for "
                         "multidimensional b")
    return _call(np.linalg.solve, (a, b), {})


def _as_strided(x, shape=None, strides=None):
    if not isinstance(x, FakeCudaArray):  # cupy.lib.stride_tricks.as_strided: device arrays only
        raise TypeError(f"Unsupported type {type(x)}")
    return FakeCudaArray(np.lib.stride_tricks.as_strided(x._a, shape, strides), x._device)


xp.broadcast_to = _broadcast_to
xp.lib = types.ModuleType("fake_cuda.xp.lib")
xp.lib.stride_tricks = types.ModuleType("fake_cuda.xp.lib.stride_tricks")
xp.lib.stride_tricks.as_strided = _as_strided
xp.linalg.solve = _solve
special.polygamma = _polygamma


# --- registration ----------------------------------------------------------------------------
def install():
    """Register this backend as the "cuda" device (tests; replaces real CuPy if registered)."""
    _State.current = 0
    _array.register(FakeCudaArray, xp, special, "cuda")


def uninstall():
    """Forget the fake "cuda" device."""
    _array.unregister("cuda")


def is_installed():
    return _array._BY_DEVICE.get("cuda", (None,))[0] is xp
