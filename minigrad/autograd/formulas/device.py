"""Formula helper for moving a gradient between devices (rules in __init__)."""
from minigrad import _array, _device

__all__ = ["to_device_like"]


def to_device_like(grad, like):
    """``grad`` on the device of ``like`` (the backward of ``Tensor.to(device)``)."""
    from minigrad._tensor import Tensor  # at call time: formulas load before Tensor
    if isinstance(grad, Tensor):  # create_graph: the differentiable op, recorded
        from minigrad._generated import functions as F  # (they import the formulas)
        return F._to_device(grad, like.device)
    target = _device.of_array(like._data if isinstance(like, Tensor) else like)
    return _array.to_device(grad, target.type, target.index)
