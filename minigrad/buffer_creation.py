"""Tensors over existing memory: ``asarray`` (a tensor, numpy array, buffer or nested
sequence; shared when no copy is needed, as ``torch.asarray``) and ``frombuffer`` (a 1-D
tensor over a Python buffer's bytes, writes showing in the buffer)."""
import numpy as np

from minigrad import _array
from minigrad._dtypes import numpy_dtype
from minigrad._device import as_device, of_array
from minigrad._tensor import Tensor
from minigrad.creation import as_tensor, tensor
from minigrad.kernels.core import scalar_type_name

__all__ = ["asarray", "frombuffer"]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``obj`` as a tensor.  ``copy=None`` shares memory where ``obj`` (a tensor or an
    array) already has the dtype and device asked for, ``copy=True`` always copies,
    ``copy=False`` refuses (ValueError) where a copy would be needed."""
    if isinstance(obj, Tensor):
        result = _from_tensor(obj, dtype, device, copy)
    elif _array.is_array(obj) or isinstance(obj, (memoryview, bytes, bytearray)):
        result = _from_array(np.asarray(obj) if not _array.is_array(obj) else obj, dtype,
                             device, copy)
    else:
        if copy is False:
            raise ValueError(f"can't alias a {type(obj).__name__} object: it has no memory "
                             "to share")
        return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)
    if requires_grad and not result.requires_grad:
        result.requires_grad_()
    return result


def _from_tensor(obj, dtype, device, copy):
    needs_copy = ((dtype is not None and dtype != obj.dtype)
                  or (device is not None and as_device(device) != obj.device))
    if copy is False and needs_copy:
        _refuse_alias(obj.dtype, dtype, obj.device, device)
    if copy:
        return obj.to(device=device, dtype=dtype, copy=True)
    return obj.to(device=device, dtype=dtype)


def _from_array(array, dtype, device, copy):
    same_dtype = dtype is None or array.dtype == numpy_dtype(dtype)
    same_device = device is None or as_device(device) == of_array(array)
    if copy is False and not (same_dtype and same_device):
        made = as_tensor(array)
        _refuse_alias(made.dtype, dtype, made.device, device)
    if copy:
        return tensor(array, dtype=dtype, device=device)
    return as_tensor(array, dtype=dtype, device=device)


def _refuse_alias(have_dtype, dtype, have_device, device):
    if dtype is not None and dtype != have_dtype:
        have, want = (scalar_type_name(numpy_dtype(d)) for d in (have_dtype, dtype))
        raise ValueError(f"can't alias tensor with dtype '{have}' into dtype '{want}'.")
    raise ValueError(f"can't alias tensor from device '{have_device}' to "
                     f"'{as_device(device)}'.")


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor of ``count`` elements (all, for -1) of ``dtype`` read from ``buffer``'s
    bytes after ``offset``; it shares the buffer's memory (a writable buffer sees writes)."""
    length = memoryview(buffer).nbytes
    size = np.dtype(numpy_dtype(dtype)).itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count <= 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    array = np.frombuffer(buffer, dtype=numpy_dtype(dtype), count=count, offset=offset)
    result = as_tensor(array)
    if requires_grad:
        result.requires_grad_()
    return result
