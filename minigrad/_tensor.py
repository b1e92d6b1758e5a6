"""Tensor: a numpy array plus the autograd bookkeeping PyTorch users expect.

A Tensor holds
- ``_data``: the numpy array (never a numpy scalar); its dtype gives ``.dtype``
  (a minigrad dtype, minigrad/_dtypes.py) and ``.data`` is a detached Tensor over it;
- ``grad_fn`` / ``_output_nr``: the graph node that produced it, and which of
  that node's outputs it is (``None`` for leaves);
- ``_requires_grad``: for leaves, the user's flag; for results, "has a grad_fn";
- ``_version_counter``: a one-element list shared by every view of one storage,
  bumped by in-place ops so saved tensors can tell they were overwritten;
- ``_base``: for views, the tensor whose storage they look into;
- ``_extras``: rarely used state (hooks, retain_grad, the leaf's accumulator),
  kept in one dict so the common Tensor stays small and quick to build.

The differentiable ops themselves are generated from derivatives.yaml into
``minigrad/_generated/functions.py`` and attached as methods at the bottom of
this module.
"""
from __future__ import annotations

import numpy as np

from minigrad import _conversions, _device, _dtypes
from minigrad.autograd import clogs as _clogs
from minigrad.autograd import grad_mode
from minigrad.autograd.errors import LEAF_INPLACE_ERROR


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    >>> import minigrad as mg
    >>> x = mg.tensor([2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([4., 6.])
    """

    __slots__ = ("_data", "grad", "grad_fn", "_requires_grad", "_output_nr",
                 "_version_counter", "_base", "_extras", "__weakref__")

    __array_priority__ = 1000  # numpy defers `ndarray * Tensor` to Tensor.__rmul__

    def __init__(self, data, requires_grad=False, dtype=None):
        # Python floats take the default dtype (float32); numpy arrays keep theirs
        _init(self, _dtypes.array_from(data, dtype))
        if requires_grad:
            self.requires_grad = True

    # ----------------------------------------------------------- basic facts
    @property
    def shape(self):
        return self._data.shape

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def dtype(self):
        """A minigrad dtype (``minigrad.float32`` ...); it also compares equal to numpy's."""
        return _dtypes.of_array(self._data)

    @property
    def device(self):
        return _device.CPU

    @property
    def is_cuda(self):
        return False

    @property
    def itemsize(self):
        return self._data.itemsize

    def element_size(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    @property
    def T(self):
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dims swapped (a view): a batch of matrices, each transposed."""
        if self._data.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._data.ndim}-D tensor.")
        return self.transpose(-2, -1)

    def size(self, dim=None):
        return self._data.shape if dim is None else self._data.shape[dim]

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return False  # minigrad has no complex tensors

    # ------------------------------------------------------- autograd state
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach().")
        if flag and self._extras is not None and self._extras.get("inference") \
                and not grad_mode.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if flag and self._data.dtype.kind != "f":
            raise RuntimeError(
                f"Only Tensors of floating point dtype can require gradients (got {self._data.dtype}); "
                "convert first, e.g. x.double().requires_grad_()")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def is_inference(self):
        """True for tensors made under ``inference_mode`` (they cannot join a graph later)."""
        return self._extras is not None and bool(self._extras.get("inference"))

    @property
    def _version(self):
        if self._extras is not None and self._extras.get("inference"):
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter[0]

    @property
    def data(self):
        """A tensor that shares this one's storage, with no history and its own version
        counter, as in PyTorch: writes through ``p.data`` are invisible to autograd."""
        return _wrap(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    def detach(self):
        """A tensor that shares data and version counter but has no history."""
        return _make_view(self._data, self)

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    # ------------------------------------------------------------ hooks
    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a
        replacement.  Returns a handle with ``.remove()``.

        >>> h = x.register_hook(lambda g: g * 2)
        """
        from minigrad.autograd.hooks import register_tensor_hook
        return register_tensor_hook(self, hook)

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        from minigrad.autograd.hooks import retain_grad
        retain_grad(self)

    @property
    def retains_grad(self):
        return self.grad_fn is not None and bool((self._extras or {}).get("retains_grad"))

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a leaf's ``.grad`` was updated (optimizer-in-backward)."""
        from minigrad.autograd.hooks import register_post_accumulate_grad_hook
        return register_post_accumulate_grad_hook(self, hook)

    def numpy(self):
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into the ``.grad`` of every leaf that requires grad.

        >>> x = mg.tensor(3.0, requires_grad=True); (x * x).backward(); x.grad
        tensor(6.)
        """
        _functional.backward(self, gradient, retain_graph, create_graph, inputs)

    # ----------------------------------------------------------- conversions
    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or ``to(other)``; returns
        ``self`` when nothing changes (see minigrad/_conversions.py).

        >>> mg.tensor([1, 2]).to(mg.float64)
        tensor([1., 2.], dtype=minigrad.float64)
        """
        return _conversions.to(self, *args, **kwargs)

    def type(self, dtype=None, non_blocking=False):
        return _conversions.type_(self, dtype, non_blocking)

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        raise AssertionError(_device.CUDA_UNAVAILABLE)  # torch raises AssertionError too

    def float(self):
        return self.to(_dtypes.float32)

    def double(self):
        return self.to(_dtypes.float64)

    def half(self):
        return self.to(_dtypes.float16)

    def long(self):
        return self.to(_dtypes.int64)

    def int(self):
        return self.to(_dtypes.int32)

    def short(self):
        return self.to(_dtypes.int16)

    def char(self):
        return self.to(_dtypes.int8)

    def byte(self):
        return self.to(_dtypes.uint8)

    def bool(self):
        return self.to(_dtypes.bool)

    def __repr__(self):
        body = np.array2string(self._data, separator=", ", prefix="tensor(")
        extras = []
        if self._data.dtype not in (_dtypes.default_numpy(), np.int64, np.bool_):
            extras.append(f"dtype={self.dtype!r}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + ", ".join([body] + extras) + ")"

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self._data.size} values is ambiguous")
        return bool(self._data)

    # Implicit conversions cut the graph: with grad mode on, a tensor that requires
    # grad reports a clog (minigrad.autograd.clogs); .item()/.detach() stay silent.
    def __float__(self):
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "float")
        return float(self.item())

    def __int__(self):
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "int")
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "index")
        return int(self.item())

    def __complex__(self):
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "complex")
        return complex(self.item())

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "array")
        data = self._data if dtype is None else self._data.astype(dtype)
        return data.copy() if copy else data

    def __format__(self, spec):
        # f"{loss:.4f}" is display, not a computation: silent, as .item() is
        if self._data.ndim == 0 and spec:
            return self._data.item().__format__(spec)
        return object.__format__(self, spec)

    # numpy functions and ufuncs on Tensors run minigrad's differentiable ops.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _numpy_interop.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _numpy_interop.array_function(func, types, args, kwargs)

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, protocol):
        # As torch: the values, dtype, class and requires_grad flag travel; .grad,
        # history and hooks do not (a pickled result comes back as a leaf).
        return (_rebuild_tensor, (type(self), self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        # As torch: leaves only; the copy has its own storage and a copy of .grad.
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        import copy
        new = memo[id(self)] = _rebuild_tensor(type(self), self._data.copy(), self._requires_grad)
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        if hasattr(self, "__dict__"):  # subclasses (Parameter) may carry attributes
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    # ------------------------------------------------------------- operators
    # Every operator calls a generated, differentiable function.
    def __add__(self, other): return _F.add(self, other)
    def __radd__(self, other): return _F.add(other, self)
    def __sub__(self, other): return _F.sub(self, other)
    def __rsub__(self, other): return _F.sub(other, self)
    def __mul__(self, other): return _F.mul(self, other)
    def __rmul__(self, other): return _F.mul(other, self)
    def __truediv__(self, other): return _F.div(self, other)
    def __rtruediv__(self, other): return _F.div(other, self)
    def __pow__(self, other): return _F.pow(self, other)
    def __rpow__(self, other): return _F.pow(other, self)
    def __matmul__(self, other): return _F.matmul(self, other)
    def __rmatmul__(self, other): return _F.matmul(other, self)
    def __neg__(self): return _F.neg(self)
    def __pos__(self): return self
    def __abs__(self): return _F.abs(self)
    def __mod__(self, other): return _F.remainder(self, other)
    def __rmod__(self, other): return _F.remainder(other, self)
    def __floordiv__(self, other): return _F.floor_divide(self, other)
    def __rfloordiv__(self, other): return _F.floor_divide(other, self)
    def __getitem__(self, index): return _F.getitem(self, index)

    def __setitem__(self, index, value):
        from minigrad.autograd.views import setitem
        setitem(self, index, value)

    # Comparisons give boolean tensors, which never require grad.
    def __eq__(self, other): return _compare(np.equal, self, other)
    def __ne__(self, other): return _compare(np.not_equal, self, other)
    def __lt__(self, other): return _compare(np.less, self, other)
    def __le__(self, other): return _compare(np.less_equal, self, other)
    def __gt__(self, other): return _compare(np.greater, self, other)
    def __ge__(self, other): return _compare(np.greater_equal, self, other)
    def __and__(self, other): return _compare(np.logical_and, self, other)
    def __or__(self, other): return _compare(np.logical_or, self, other)
    def __invert__(self): return _wrap(np.logical_not(self._data))

    # ------------------------------------------------------ in-place updates
    def __iadd__(self, other): return self.add_(other)
    def __isub__(self, other): return self.sub_(other)
    def __imul__(self, other): return self.mul_(other)
    def __itruediv__(self, other): return self.div_(other)

    # add_, exp_, clamp_ ...: generated for every elementwise-shaped op (methods.py).

    def zero_(self):
        return self.fill_(0)

    def fill_(self, value):
        return apply_inplace(self, _F._fill, value)

    def copy_(self, src):
        return apply_inplace(self, _F._copy_from, src)

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for a leaf)."""
        return self._output_nr

    from minigrad._new_tensors import (  # noqa: E402  (methods: self is the first argument)
        new_empty, new_full, new_ones, new_tensor, new_zeros, split_with_sizes)

    def polygamma(self, n):
        """``x.polygamma(n)`` is ``minigrad.polygamma(n, x)`` (torch's argument order)."""
        return _F.polygamma(n, self)



def _init(t, array, grad_fn=None, output_nr=0, version_counter=None, base=None):
    """Set every field of Tensor ``t`` (the one place that lists them)."""
    t._data = array
    t.grad = None
    t.grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._output_nr = output_nr
    t._version_counter = [0] if version_counter is None else version_counter
    t._base = base
    t._extras = {"inference": True} if grad_mode.inference else None
    return t


def _rebuild_tensor(cls, array, requires_grad):
    """Unpickle a Tensor (see ``Tensor.__reduce_ex__``)."""
    t = _init(_new(cls), array)
    t._requires_grad = bool(requires_grad)
    return t


def _wrap(array, grad_fn=None, output_nr=0):
    """A Tensor around a fresh array (the hot path for op results: no copying)."""
    return _init(_new(Tensor), array if type(array) is np.ndarray else np.asarray(array),
                 grad_fn, output_nr)


_new = object.__new__


def _make_view(array, source, grad_fn=None, output_nr=0):
    """A Tensor that looks into ``source``'s storage: it shares the version counter."""
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    base = source._base if source._base is not None else source
    view = _init(_new(Tensor), array, grad_fn, output_nr, source._version_counter, base)
    if grad_mode.inference or base._extras is not None:
        # PyTorch: a view is an inference tensor exactly when its base is one
        view._extras = {"inference": True} if base.is_inference() else None
    return view


def _compare(ufunc, a, b):
    return _wrap(ufunc(a._data if isinstance(a, Tensor) else a,
                       b._data if isinstance(b, Tensor) else b))


INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


def apply_inplace(self, op, *args, **kwargs):
    """Run ``op`` out of place, write the result into ``self``, and rebase history.

    The derivative is the out-of-place op's, declared once in derivatives.yaml; the
    tensor's ``grad_fn`` becomes that op's node.  Views of ``self`` see the new data
    and the shared version counter moves, so saved copies know they are stale.
    An in-place op on a view also rewrites its base's history (autograd/views.py).
    """
    if self._extras is not None and self._extras.get("inference") and not grad_mode.inference:
        raise RuntimeError(INFERENCE_INPLACE_ERROR)
    recording = grad_mode.enabled and (
        self._requires_grad or _any_requires_grad(args) or _any_requires_grad(kwargs.values())
        or (self._base is not None and self._base._requires_grad))
    if recording and self.grad_fn is None and self._requires_grad:
        raise RuntimeError(LEAF_INPLACE_ERROR)
    if recording and self._base is not None:
        from minigrad.autograd.views import inplace_on_view
        return inplace_on_view(self, op, args, kwargs)
    if not recording:
        if _numpy_inplace(self, op, args, kwargs):
            return self
        with grad_mode.no_grad():
            out = op(self, *args, **kwargs)
        _write(self, out._data)
        return self
    _rebase(self, op, args, kwargs)
    if self._extras is not None and self._extras.get("views"):
        from minigrad.autograd.views import refresh_views
        refresh_views(self)
    return self


def _numpy_inplace(self, op, args, kwargs):
    """``p -= lr * p.grad`` under no_grad: numpy's in-place ufunc, no temporary copy.

    Only for the four arithmetic ops; anything unusual (broadcasting into ``self``,
    a dtype change, extra arguments) returns False and takes the general path."""
    ufunc = _NUMPY_INPLACE.get(op)
    if ufunc is None or len(args) != 1 or (kwargs and kwargs != {"alpha": 1}):
        return False
    other = args[0]._data if isinstance(args[0], Tensor) else args[0]
    if not self._data.flags.writeable or np.result_type(self._data, other) != self._data.dtype:
        return False
    try:
        ufunc(self._data, other, out=self._data)
    except ValueError:  # other does not broadcast to self's shape
        return False
    self._version_counter[0] += 1
    return True


def _rebase(self, op, args, kwargs):
    """Record ``op(self, ...)``, write its value into ``self``, make its node ``self``'s grad_fn."""
    # The op saves its inputs by reference; give it a snapshot of ``self`` that
    # keeps the old value and the old history, since ``self`` is about to change.
    snapshot = _wrap(self._data.copy(), self.grad_fn, self._output_nr)
    snapshot._requires_grad = self._requires_grad
    out = op(snapshot, *args, **kwargs)
    _write(self, out._data)
    self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
    self._requires_grad = out._requires_grad
    out.grad_fn.rebind_output(out._output_nr, self)
    if self._extras is not None and self._extras.get("retains_grad"):
        from minigrad.autograd.hooks import move_retain_grad
        move_retain_grad(self, snapshot.grad_fn, snapshot._output_nr)
    return out.grad_fn


def _write(self, values):
    if not self._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location (an expanded tensor). Please clone() the tensor "
            "before performing the operation.")
    if values.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast "
            f"shape {list(values.shape)}")
    np.copyto(self._data, values, casting="unsafe")
    self._version_counter[0] += 1


def _any_requires_grad(values):
    for v in values:
        if isinstance(v, Tensor) and v._requires_grad:
            return True
    return False


# Bound at the bottom to break the import cycle: generated functions need Tensor.
from minigrad._generated import functions as _F  # noqa: E402

_NUMPY_INPLACE = {_F.add: np.add, _F.sub: np.subtract, _F.mul: np.multiply, _F.div: np.true_divide}
from minigrad.autograd import functional as _functional  # noqa: E402
from minigrad._generated.methods import METHODS  # noqa: E402
from minigrad import numpy_interop as _numpy_interop  # noqa: E402

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
del _name, _fn

# Random fills and draws (minigrad/_sampling.py): x.normal_(), x.uniform_(-k, k), x.bernoulli() ...
from minigrad import _sampling  # noqa: E402

for _name in ("normal_", "uniform_", "bernoulli_", "exponential_", "random_", "bernoulli",
              "multinomial"):
    setattr(Tensor, _name, getattr(_sampling, _name))

# x.new_zeros(...) and friends: factories in x's dtype (minigrad/creation.py)
from minigrad import creation as _creation  # noqa: E402

for _name in ("new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"):
    setattr(Tensor, _name, getattr(_creation, _name))
del _name
