"""``x.grad = g``: the checks PyTorch makes before it lets a gradient be assigned.

A wrong ``.grad`` would otherwise surface later, far from its cause: an optimizer
step that broadcasts a (3,) gradient into a (2,) parameter, or a float64 gradient
that silently upcasts a float32 model.

>>> x = minigrad.zeros(2, requires_grad=True)
>>> x.grad = minigrad.zeros(3)
Traceback (most recent call last):
RuntimeError: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. ...
"""
from minigrad import _array

# PyTorch names the dtypes in these messages two ways: the C++ type of the gradient,
# the ScalarType of the tensor.
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool"}
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def check_grad_assignment(tensor, grad):
    """Raise as PyTorch does when ``grad`` cannot be ``tensor``'s ``.grad``."""
    if grad is None:
        return
    data = getattr(grad, "_data", None)
    if not _array.is_array(data) or not hasattr(grad, "grad_fn"):
        raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(grad).__name__}")
    if grad is tensor:
        raise RuntimeError("can't assign Variable as its own grad")
    if _array.device_type_of(data) != _array.device_type_of(tensor._data):
        raise RuntimeError(
            f"attempting to assign a gradient with device type "
            f"'{_array.device_type_of(data)}' to a tensor with device type "
            f"'{_array.device_type_of(tensor._data)}'. Please ensure that the gradient and the "
            "tensor are on the same device")
    if data.dtype != tensor._data.dtype:
        got, want = data.dtype.name, tensor._data.dtype.name
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{_CPP_NAMES.get(got, got)}' to a tensor "
            f"with grad_dtype '{_SCALAR_NAMES.get(want, want)}'. The gradient must match the "
            "tensor's grad_dtype (defaults to the tensor's dtype).")
    if data.shape != tensor._data.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(data.shape)}' to a tensor of size "
            f"'{list(tensor._data.shape)}'. Please ensure that the gradient and the tensor are "
            "the same size")
