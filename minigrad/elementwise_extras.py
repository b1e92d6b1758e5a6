"""Elementwise functions with no derivative entry of their own: ``positive`` (the input
itself, as PyTorch returns it) and ``isin`` (membership, not differentiable)."""
import numbers

import numpy as np

from minigrad._array import namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad._value_reads import reads_values
from minigrad.autograd.promotion import result_dtype

__all__ = ["positive", "isin"]

_ISIN_SIGNATURES = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = "
    "False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = "
    "False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = "
    "False, Tensor out = None)\n")


def positive(input):
    """``+input``: the tensor itself (PyTorch returns the same object); refused for bool."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor of ``elements``' shape: whether each element is among
    ``test_elements`` (either may be a number; ``invert`` negates)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        got = ", ".join(type(v).__name__ for v in (elements, test_elements))
        raise TypeError(f"isin() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n" + _ISIN_SIGNATURES)
    like = elements if isinstance(elements, Tensor) else test_elements
    arrays = [v._data if isinstance(v, Tensor) else _number(v, like) for v in
              (elements, test_elements)]
    common = result_dtype((elements, test_elements))
    if common == np.bool_ or any(a.dtype == np.bool_ for a in arrays):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    xp = namespace_of(like._data)
    reads_values("isin compares values")
    found = xp.isin(arrays[0].astype(common), arrays[1].astype(common).reshape(-1),
                    assume_unique=assume_unique, invert=invert)
    return _wrap(xp.asarray(found, dtype=bool).reshape(arrays[0].shape))


def _number(value, like):
    if not isinstance(value, numbers.Number):
        raise TypeError(f"isin(): argument 'test_elements' must be Tensor or Number, not "
                        f"{type(value).__name__}")
    return namespace_of(like._data).asarray(value)


Tensor.positive = positive
