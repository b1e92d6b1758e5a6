"""PyTorch's TypeError for an argument of the wrong type, as its argument parser words it:
``softshrink(): argument 'input' (position 1) must be Tensor, not list``."""
from minigrad._tensor import Tensor

_HEAP_TYPE = 1 << 9   # (Py_TPFLAGS_HEAPTYPE: a class defined in Python)


def require_tensors(function, **arguments):
    """Raise PyTorch's TypeError for the first of ``arguments`` (in their positions from 1)
    that is not a Tensor."""
    for position, (name, value) in enumerate(arguments.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type_name(value)}")


def type_name(value):
    """The type's C name, as PyTorch's argument errors print it: a Python class's bare name,
    a C type's with its module (numpy.ndarray)."""
    kind = type(value)
    if kind.__flags__ & _HEAP_TYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"
