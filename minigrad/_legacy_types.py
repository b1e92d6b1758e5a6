"""torch's legacy tensor types: ``FloatTensor``, ``LongTensor`` ... as older scripts use them.

``minigrad.LongTensor([1, 2])`` makes an int64 tensor, ``minigrad.FloatTensor(2, 3)`` a
(2, 3) float32 one, ``x.type(minigrad.DoubleTensor)`` converts, and
``isinstance(x, minigrad.FloatTensor)`` asks for the dtype, as in PyTorch.

>>> minigrad.LongTensor([1, 2])
tensor([1, 2])
>>> isinstance(minigrad.zeros(2), minigrad.FloatTensor)
True
"""
from minigrad import _dtypes
from minigrad._tensor import Tensor


class _LegacyType(type):
    """The metaclass: calling a legacy type builds a Tensor of its dtype."""

    def __call__(cls, *args):
        return Tensor(*args, dtype=cls.dtype)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype

    def __repr__(cls):
        return f"<class 'minigrad.{cls.__name__}'>"


def _legacy(name, dtype):
    return _LegacyType(name, (), {"dtype": dtype, "__module__": "minigrad"})


FloatTensor = _legacy("FloatTensor", _dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", _dtypes.float64)
HalfTensor = _legacy("HalfTensor", _dtypes.float16)
LongTensor = _legacy("LongTensor", _dtypes.int64)
IntTensor = _legacy("IntTensor", _dtypes.int32)
ShortTensor = _legacy("ShortTensor", _dtypes.int16)
CharTensor = _legacy("CharTensor", _dtypes.int8)
ByteTensor = _legacy("ByteTensor", _dtypes.uint8)
BoolTensor = _legacy("BoolTensor", _dtypes.bool)
