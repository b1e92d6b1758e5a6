"""Parameter: a Tensor that a Module registers as one of its parameters.

>>> w = nn.Parameter(minigrad.zeros(3))
>>> w.requires_grad
True

Users import it from ``minigrad.nn`` (``minigrad.nn.parameter``, as PyTorch's
``torch.nn.parameter``).  It is defined here, beside Tensor and outside the nn package,
because the generated op functions read a Parameter's fields inline as a Tensor's
(codegen/emit.py, ``_array_of``), and they are imported before the nn package exists.
"""
from minigrad._tensor import Tensor, _init, _new
from minigrad import _dtypes


class Parameter(Tensor):
    """A leaf tensor that shares ``data``'s storage and requires grad by default.

    Assigning one as a Module attribute registers it (``module.parameters()``).
    """

    def __new__(cls, data=None, requires_grad=True):
        return _new(cls)

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = Tensor(_dtypes.array_from([], None))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter data must be a Tensor, not {type(data).__name__}")
        # shares storage and version counter with `data`, as torch's _make_subclass
        _init(self, data._data, version_counter=data._version_counter)
        self.requires_grad = requires_grad

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(array, requires_grad):
    return Parameter(Tensor(array), requires_grad)


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a Module
    (as ``torch.nn.Buffer``); the module stores the plain tensor."""

    def __new__(cls, data=None, *, persistent=True):
        return _new(cls)

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = Tensor(_dtypes.array_from([], None))
        _init(self, data._data, version_counter=data._version_counter)
        self._requires_grad = data._requires_grad
        self.persistent = persistent


# Where users import them from: their reprs and pickles name minigrad.nn.parameter
for _public in (Parameter, Buffer, _rebuild_parameter):
    _public.__module__ = "minigrad.nn.parameter"
