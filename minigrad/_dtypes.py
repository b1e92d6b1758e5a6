"""dtype objects (``minigrad.float32``, ``minigrad.long`` ...) and the default float dtype.

A tensor's values live in a numpy array; its ``.dtype`` is one of the objects
below, which behave like PyTorch's (repr ``minigrad.float32``, ``itemsize``,
``is_floating_point``) and can be passed wherever numpy expects a dtype: numpy
reads their ``.dtype`` attribute, so ``np.zeros(3, dtype=x.dtype)`` works.

A deliberate divergence from PyTorch: ``minigrad.float32 == np.float32`` is True
(torch says False), so code written against numpy dtypes keeps working.

>>> import minigrad as mg
>>> mg.tensor([1.0, 2.0]).dtype
minigrad.float32
>>> mg.float == mg.float32, mg.double.itemsize
(True, 8)
"""
import builtins

import numbers

import numpy as np


class dtype:
    """A tensor element type; one object per type, aliases are the same object."""

    __slots__ = ("_name", "_numpy")

    def __init__(self, name, numpy_dtype):
        self._name = name
        self._numpy = np.dtype(numpy_dtype)

    @property
    def dtype(self):
        """The numpy dtype: numpy calls this when given a minigrad dtype."""
        return self._numpy

    @property
    def itemsize(self):
        return self._numpy.itemsize

    @property
    def is_floating_point(self):
        return self._numpy.kind == "f"

    @property
    def is_complex(self):
        return False

    @property
    def is_signed(self):
        return self._numpy.kind in "fi"

    def to_real(self):
        return self

    def __getattr__(self, name):
        # numpy's own attributes (kind, name, char, type ...) read through, so code
        # written for numpy dtypes works on a tensor's .dtype too.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._numpy, name)

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        # numpy's dtypes and scalar types only: None or "float32" would convert too
        numpy_type = isinstance(other, type) and issubclass(other, np.generic)
        if isinstance(other, np.dtype) or numpy_type:
            return self._numpy == other
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self._numpy)

    def __repr__(self):
        return f"minigrad.{self._name}"

    def __reduce__(self):
        # pickles as a reference to the module-level object, so identity survives
        return self._name


float16 = dtype("float16", np.float16)
float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
int8 = dtype("int8", np.int8)
int16 = dtype("int16", np.int16)
int32 = dtype("int32", np.int32)
int64 = dtype("int64", np.int64)
uint8 = dtype("uint8", np.uint8)
uint16 = dtype("uint16", np.uint16)
uint32 = dtype("uint32", np.uint32)
uint64 = dtype("uint64", np.uint64)
bool = dtype("bool", np.bool_)  # noqa: A001 - torch's names shadow the builtins in this module
half, float, double = float16, float32, float64  # noqa: A001


class _Unavailable(dtype):
    """A PyTorch dtype numpy has no type for, so no minigrad tensor can hold it.  It can be
    named (a program's table of dtypes, ``if dtype == minigrad.bfloat16``), and any use for
    values raises a TypeError that says so and names the dtypes there are."""

    __slots__ = ("_itemsize",)

    def __init__(self, name, itemsize):
        self._name, self._itemsize = name, itemsize

    def refuse(self):
        raise TypeError(f"minigrad has no {self._name} tensors (numpy has no {self._name} "
                        f"type); use minigrad.float32, or minigrad.float16 for half precision")

    @property
    def dtype(self):
        self.refuse()

    @property
    def itemsize(self):
        return self._itemsize

    @property
    def is_floating_point(self):
        return True

    @property
    def is_signed(self):
        return True

    def __getattr__(self, name):
        raise AttributeError(name)

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return hash(self._name)


bfloat16 = _Unavailable("bfloat16", 2)
short, int, long = int16, int32, int64  # noqa: A001

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool)
_BY_NUMPY = {d._numpy: d for d in ALL}
_default = float32


def as_dtype(value):
    """The minigrad dtype for ``value``: a minigrad dtype, a numpy dtype or type, or
    a Python type (``float`` is float64, ``int`` int64, as in both libraries)."""
    if value.__class__ is dtype:
        return value
    if value.__class__ is _Unavailable:
        value.refuse()
    try:
        return _BY_NUMPY[np.dtype(value)]
    except (KeyError, TypeError):
        raise TypeError(f"minigrad has no dtype {value!r}; the dtypes are "
                        f"{', '.join(map(repr, ALL))}") from None


def numpy_dtype(value):
    """The numpy dtype for a user's ``dtype=`` argument (``None`` stays ``None``)."""
    return None if value is None else as_dtype(value)._numpy


def of_array(array):
    """The minigrad dtype of a numpy array's values."""
    return _BY_NUMPY[array.dtype]


def set_default_dtype(d):
    """The dtype of floating tensors made from Python numbers and by factories.

    >>> minigrad.set_default_dtype(minigrad.float64)
    >>> minigrad.tensor(1.0).dtype
    minigrad.float64
    """
    global _default
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def get_default_dtype():
    """The current default float dtype (``minigrad.float32`` unless changed)."""
    return _default


def default_numpy():
    return _default._numpy


def is_floating_point(tensor):
    """True for tensors of a floating dtype."""
    return tensor._data.dtype.kind == "f"


def is_complex(tensor):
    """Always False: minigrad has no complex tensors."""
    return False


class finfo:
    """Limits of a floating dtype, as ``torch.finfo``.

    >>> minigrad.finfo(minigrad.float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, type=None):
        d = _default if type is None else as_dtype(type)
        if not d.is_floating_point:
            raise TypeError("minigrad.finfo() requires a floating point input type. "
                            "Use minigrad.iinfo to handle 'minigrad.finfo'")
        info = np.finfo(d._numpy)
        self.bits = info.bits
        self.eps, self.max = builtins.float(info.eps), builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # torch rounds to a power of ten
        self.dtype = d._name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo``.

    >>> minigrad.iinfo(minigrad.int32).max
    2147483647
    """

    def __init__(self, type):
        d = as_dtype(type)
        if d._numpy.kind not in "iu":
            raise TypeError("minigrad.iinfo() requires an integer input type. "
                            "Use minigrad.finfo to handle 'minigrad.iinfo'")
        info = np.iinfo(d._numpy)
        self.bits, self.min, self.max = info.bits, builtins.int(info.min), builtins.int(info.max)
        self.dtype = d._name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"



def array_from(data, dtype=None):
    """A new numpy array of ``data`` in minigrad's dtype rules, as ``torch.tensor`` infers:
    Python floats become the default dtype, ints int64, bools bool; numpy arrays and
    numpy scalars keep their dtype."""
    kept = isinstance(data, (np.ndarray, np.generic))
    target = numpy_dtype(dtype)
    if target is not None and target.kind in "iu" and not kept:
        return supported(integral_from_python(data, target, str(target)))
    array = np.array(data, dtype=target)
    if array.dtype.kind in "OUS":
        _refuse_non_numbers(data)
    if dtype is None and not kept and array.dtype.kind == "f":
        array = array.astype(_default._numpy, copy=False)
    return supported(array)


def integral_from_python(data, target, type_name):
    """Python numbers as an array of the integer dtype ``target``, checked as PyTorch's
    c10 conversion checks them: every value must fit, except that a negative int may wrap
    into an unsigned dtype (-1 is 255 in uint8, two's complement); anything else raises
    PyTorch's error (naming the type ``type_name``).  numpy raises OverflowError for the
    wrap and casts out-of-range floats silently."""
    try:
        natural = np.array(data)
    except OverflowError:
        natural = np.array(data, dtype=object)
    if natural.dtype.kind in "Ouf" and _holds_big_int(data):   # (numpy's uint64, float, object)
        raise ValueError("Overflow when unpacking long long")   # an int beyond int64
    if natural.dtype.kind not in "biuf":
        if data is None:
            raise TypeError("'NoneType' object cannot be interpreted as an integer")
        _refuse_non_numbers(data)
        return np.array(data, dtype=target)   # (None and the like: numpy's error)
    if natural.dtype.kind != "b" and natural.size:
        info = np.iinfo(target)
        wraps = target.kind == "u" and natural.dtype.kind in "iu"
        if natural.min() < (-info.max if wraps else info.min) or natural.max() > info.max \
                or natural.dtype.kind == "f" and np.isnan(natural).any():
            raise RuntimeError(f"value cannot be converted to type {type_name} without overflow")
    return natural.astype(target)


# The C++ type names PyTorch's full and fill_ give the integer dtypes in their errors
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t"}


def integral_fill_value(value, target):
    """A Python number written into the integer dtype ``target`` by ``full`` or ``fill_``:
    checked and wrapped as ``integral_from_python`` does, with PyTorch's errors for them
    (an int beyond 64 bits cannot even be read), as a Python int."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (builtins.bool, np.bool_)):
        if value < -2**63:
            raise OverflowError("can't convert negative int to unsigned")
        if value >= 2**64:
            raise OverflowError("int too big to convert")
        if value >= 2**63:   # (read as an unsigned 64-bit value, too big for any dtype here)
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[target.name]} "
                               "without overflow")
    return integral_from_python(value, target, _C_NAMES[target.name]).item()


def _holds_big_int(data):
    """Whether ``data`` (a number or nested sequences) holds an int beyond int64's range."""
    if isinstance(data, (list, tuple)):
        return any(_holds_big_int(d) for d in data)
    return (isinstance(data, numbers.Integral) and not isinstance(data, np.integer)
            and not -2**63 <= data < 2**63)


def _refuse_non_numbers(data):
    """PyTorch's errors for None and strings in ``torch.tensor``'s data."""
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    if not isinstance(data, (str, list, tuple)) or not _holds_str([data]):
        return  # (other objects: supported() names the dtype)
    if isinstance(data, str) or _first_leaf_is_not_str(data):
        raise TypeError("new(): invalid data type 'str'")
    raise ValueError("too many dimensions 'str'")   # (PyTorch reads a str as a sequence)


def _holds_str(data):
    return any(_holds_str(d) if isinstance(d, (list, tuple)) else isinstance(d, str)
               for d in data)


def _first_leaf_is_not_str(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return not isinstance(data, str)


def supported(array):
    """``array`` itself, after checking minigrad has a dtype for its values."""
    if array.dtype not in _BY_NUMPY:
        raise TypeError(f"minigrad tensors hold numbers of the dtypes "
                        f"{', '.join(d._name for d in ALL)}; got an array of dtype {array.dtype}")
    return array


def legacy_array(args, dtype=None):
    """The array for ``Tensor(*args)``, torch's legacy constructor: no arguments is an empty
    tensor, ints are a shape (zero-filled here; torch leaves it uninitialized), Python data
    is converted to the default float dtype, and numpy arrays keep their dtype."""
    if not args:
        return np.empty((0,), numpy_dtype(dtype) or _default._numpy)
    if all(isinstance(a, (builtins.int, np.integer)) and not isinstance(a, builtins.bool)
           for a in args):
        return np.zeros(tuple(args), numpy_dtype(dtype) or _default._numpy)
    if len(args) > 1:
        raise TypeError(f"Tensor() takes a shape (ints) or one piece of data, not "
                        f"{', '.join(type(a).__name__ for a in args)}; use minigrad.tensor(data)")
    data = args[0]
    if dtype is None and not isinstance(data, (np.ndarray, np.generic)) \
            and not hasattr(data, "__array__"):
        dtype = _default  # Tensor([1, 2]) is float, as in torch
    return array_from(data, dtype)


def wrapped_int(value, dtype):
    """A Python int as PyTorch casts it to a narrow integer dtype: wrapped around (uint8:
    -1 is 255, 300 is 44), where numpy refuses an int out of the dtype's range."""
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return value
    span = info.max - info.min + 1
    return (value - info.min) % span + info.min
