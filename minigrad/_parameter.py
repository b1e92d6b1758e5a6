"""Parameter: a Tensor that a Module registers as one of its parameters.

>>> w = nn.Parameter(minigrad.zeros(3))
>>> w.requires_grad
True

Users import it from ``minigrad.nn`` (``minigrad.nn.parameter``, as PyTorch's
``torch.nn.parameter``).  It is defined here, beside Tensor and outside the nn package,
because the generated op functions read a Parameter's fields inline as a Tensor's
(codegen/emit.py, ``_array_of``), and they are imported before the nn package exists.
"""
from minigrad._tensor import Tensor, _init, _new, _wrap
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


_SLOT = Tensor._data   # the slot itself, which the mixin's ``_data`` property hides


class _UninitializedMixin:
    """A placeholder whose shape is unknown until ``materialize(shape)`` (lazy modules):
    it then becomes an ordinary ``cls_to_become`` of that shape, the same object, so an
    optimizer given it beforehand holds the materialized tensor.

    Until then every op refuses it: ops read a tensor's ``_data``, which raises here;
    the few methods torch allows on it (dtype, device, conversions) read the slot."""

    __slots__ = ()   # (a buffer becomes a plain Tensor: the layouts must agree)

    @property
    def _data(self):
        raise ValueError(
            "Attempted to use an uninitialized parameter in a minigrad operation. This error "
            "happens when you are using a `LazyModule` or explicitly manipulating "
            f"`minigrad.nn.parameter.{type(self).__name__}` objects. When using LazyModules "
            "Call `forward` with a dummy batch to initialize the parameters before calling "
            "minigrad functions")

    @_data.setter
    def _data(self, array):
        _SLOT.__set__(self, array)

    def _placeholder(self):
        return _wrap(_SLOT.__get__(self))

    @property
    def data(self):
        return self._placeholder()

    @data.setter
    def data(self, value):
        _SLOT.__set__(self, _SLOT.__get__(value))

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        Tensor.requires_grad.fset(self._placeholder(), flag)   # torch's checks
        self._requires_grad = bool(flag)

    @property
    def dtype(self):
        return self._placeholder().dtype

    @property
    def device(self):
        return self._placeholder().device

    def is_floating_point(self):
        return self._placeholder().is_floating_point()

    def is_complex(self):
        return self._placeholder().is_complex()

    def size(self, dim=None):
        return self._placeholder().size() if dim is None else self._placeholder().size(dim)

    def to(self, *args, **kwargs):
        """An uninitialized tensor of the converted dtype / device (as torch)."""
        converted = self._placeholder().to(*args, **kwargs)
        result = type(self).__new__(type(self))
        _init(result, _SLOT.__get__(converted))
        result._requires_grad = self._requires_grad
        return result

    def double(self):
        return self.to(_dtypes.float64)

    def float(self):
        return self.to(_dtypes.float32)

    def half(self):
        return self.to(_dtypes.float16)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def materialize(self, shape, device=None, dtype=None):
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = _empty(shape, device, dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


def _empty(shape, device, dtype):
    # (imported here: the creation functions need the generated ops, which import this)
    from minigrad.creation import empty
    return empty(shape, device=device, dtype=dtype)


class UninitializedParameter(_UninitializedMixin, Parameter):
    """A Parameter of not yet known shape (``nn.LazyLinear``'s weight)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _new(cls)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(_empty(0, device, dtype), requires_grad)


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer of not yet known shape (a lazy BatchNorm's running mean)."""

    cls_to_become = Tensor
    __slots__ = ()

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        return _new(cls)

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        _init(self, _empty(0, device, dtype)._data)
        self.requires_grad = requires_grad
        # a Tensor has no room for attributes: the flag lives with its rare state
        self._extras = dict(self._extras or {}, persistent=persistent)

    @property
    def persistent(self):
        return self._extras["persistent"]


def is_lazy(param):
    """Whether ``param`` is an uninitialized parameter or buffer."""
    return isinstance(param, _UninitializedMixin)


# Where users import them from: their reprs and pickles name minigrad.nn.parameter
for _public in (Parameter, Buffer, _rebuild_parameter, UninitializedParameter,
                UninitializedBuffer, is_lazy):
    _public.__module__ = "minigrad.nn.parameter"
