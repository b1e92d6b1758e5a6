"""``Tensor.to`` and ``Tensor.type``: PyTorch's argument forms for changing dtype and device.

    x.to(minigrad.float64)            x.to("cuda")           x.to("cpu", minigrad.float64)
    x.to(other_tensor)                x.to(dtype=..., device=..., non_blocking=..., copy=...)

The result is ``x`` itself when nothing changes (unless ``copy=True``); a dtype
change is the differentiable ``_to_copy`` op and a device change ``_to_device``, so
gradients flow back in ``x``'s dtype, to ``x``'s device.
"""
from minigrad import _device, _dtypes

# torch's legacy tensor type names, as x.type() returns them
_LEGACY = {"float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor",
           "int8": "CharTensor", "int16": "ShortTensor", "int32": "IntTensor",
           "int64": "LongTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}
_BY_LEGACY = {name: dtype for dtype, name in _LEGACY.items()}


def to(tensor, *args, dtype=None, device=None, non_blocking=False, copy=False,
       memory_format=None):
    """``tensor`` converted as ``Tensor.to`` is asked to (see the module docstring)."""
    from minigrad._tensor import Tensor  # at call time: _tensor imports this module
    args = list(args)
    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
        dtype, device = other.dtype, other.device
    elif args and (_device.is_device_like(args[0]) or isinstance(args[0], str)):  # (a str
        # is a device to PyTorch: x.to("float32") is refused as one)
        device = args.pop(0)
        if args and not isinstance(args[0], bool):
            dtype = args.pop(0)
    elif args and not isinstance(args[0], bool):
        dtype = args.pop(0)
    if len(args) > 2:
        raise TypeError(f"to() received {len(args)} extra positional arguments; it takes "
                        "(dtype | device[, dtype] | tensor)[, non_blocking[, copy]]")
    if len(args) == 2:
        copy = args[1]
    from minigrad._generated import functions as F  # at call time: they import _tensor
    if device is not None:
        device = _device.as_device(device)
        if device != _device.of_array(tensor._data):
            tensor = F._to_device(tensor, device)  # differentiable: grads go back
            copy = False  # already a copy
    target = tensor._data.dtype if dtype is None else _dtypes.numpy_dtype(dtype)
    if target == tensor._data.dtype:
        return tensor.clone() if copy else tensor
    if target.kind in "biu":  # integers and bools have no gradient: no graph, as torch
        tensor = tensor.detach()
    return F._to_copy(tensor, target)


def type_(tensor, dtype=None, non_blocking=False):
    """``x.type()`` names the type ("minigrad.FloatTensor"); ``x.type(d)`` converts to ``d``:
    a dtype, a legacy type (``minigrad.DoubleTensor``) or its name ("torch.DoubleTensor")."""
    if dtype is None:
        return "minigrad." + _LEGACY.get(tensor._data.dtype.name, tensor._data.dtype.name)
    if isinstance(dtype, str) and dtype.rpartition(".")[2] in _BY_LEGACY:
        dtype = _BY_LEGACY[dtype.rpartition(".")[2]]
    elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), _dtypes.dtype):
        dtype = dtype.dtype  # a legacy type such as minigrad.DoubleTensor
    return to(tensor, _dtypes.as_dtype(dtype))
