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

This module imports nothing that needs Tensor back.  The differentiable ops are
generated from derivatives.yaml into ``minigrad/_generated/``; they, the operators,
hooks and ``backward`` are bound to Tensor by ``minigrad/_tensor_methods.py``, and
in-place ops run through ``minigrad/autograd/inplace.py``.
"""
from __future__ import annotations

import warnings

import numpy as np

from minigrad import _array, _conversions, _device, _dtypes, _tensor_str
from minigrad._array import device_checks
from minigrad._size import Size, _new as _new_tuple
from minigrad._grad_assign import check_grad_assignment
from minigrad.autograd import clogs as _clogs
from minigrad.autograd import grad_mode
from minigrad.autograd.grad_mode import flags as _grad_flags, inference_used as _inference_used


_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    >>> import minigrad as mg
    >>> x = mg.tensor([2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([4., 6.])
    """

    __slots__ = ("_data", "_grad", "grad_fn", "_requires_grad", "_output_nr",
                 "_version_counter", "_base", "_extras", "__weakref__")

    __array_priority__ = 1000  # numpy defers `ndarray * Tensor` to Tensor.__rmul__

    def __init__(self, *args, requires_grad=False, dtype=None):
        # torch's legacy constructor: Tensor(2, 3) is a (2, 3) tensor and Tensor([1, 2]) holds
        # floats; numpy arrays keep their dtype. minigrad.tensor(...) is the usual way.
        _init(self, _dtypes.legacy_array(args, dtype))
        if requires_grad:
            self.requires_grad = True

    # ----------------------------------------------------------- basic facts
    @property
    def shape(self):
        # A minigrad.Size for users; minigrad's own code reads self._data.shape (a plain tuple)
        return _new_tuple(Size, self._data.shape)

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def dtype(self):
        """A minigrad dtype (``minigrad.float32`` ...); it also compares equal to numpy's."""
        return _dtypes.of_array(self._data)

    @property
    def device(self):
        """Where the values live: ``device(type='cpu')`` or ``device(type='cuda', index=0)``."""
        return _device.of_array(self._data)

    @property
    def is_cuda(self):
        return type(self._data) is not np.ndarray and _array.device_type_of(self._data) == "cuda"

    @property
    def is_cpu(self):
        return not self.is_cuda

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
        if self._data.ndim == 0:
            return self  # torch: the identity on a 0-d tensor (deprecated there)
        if self._data.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._data.ndim}-D tensor.")
        return self.transpose(-2, -1)

    def size(self, dim=None):
        if dim is None:
            return _new_tuple(Size, self._data.shape)
        ndim = self._data.ndim
        if ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {dim})")
        return self._data.shape[dim]

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel  # torch's older name, still common in parameter counts

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
    def grad(self):
        grad = self._grad
        if grad is None and self.grad_fn is not None and not self.retains_grad:
            # PyTorch's warning: backward never fills a non-leaf's .grad without retain_grad()
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return grad

    @grad.setter
    def grad(self, value):
        if value is not None:  # the engine and optimizers set checked gradients; users may not
            check_grad_assignment(self, value)
        self._grad = value

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if type(flag) is not bool:
            raise RuntimeError("requires_grad must be a bool")
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
        if type(requires_grad) is not bool:
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        if requires_grad and self.grad_fn is not None:
            return self  # a result already requires grad: a no-op, as in PyTorch
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
        """A tensor that shares data and version counter but has no history.

        As in PyTorch it shares storage, never graph: it is not an autograd view of
        ``self``, so its own views never join ``self``'s graph (an in-place op on
        ``self`` leaves them alone, and writes through them are invisible to autograd).
        """
        out = _make_view(self._data, self)
        out._base = None
        return out

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def retains_grad(self):
        return self.grad_fn is not None and bool((self._extras or {}).get("retains_grad"))

    def numpy(self, *, force=False):
        """The values as a numpy array sharing memory (CPU tensors only, as in PyTorch);
        ``force=True`` detaches and copies to the host as needed."""
        if force:
            return _array.to_host(self._data)
        if type(self._data) is not np.ndarray:
            _refuse_host_conversion(self)
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        value = self._data.item()
        if self._data.__class__ is not np.ndarray:  # the GPU has caught up: its checks' results
            device_checks.raise_ready(wait=True)
        return value

    def tolist(self):
        return self._data.tolist()

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

    def cpu(self, memory_format=None):
        """This tensor on the CPU: itself when it is there, else a differentiable copy."""
        return self if type(self._data) is np.ndarray else self.to("cpu")

    def pin_memory(self, device=None):
        """As torch's, for scripts that pin their batches: minigrad does not page-lock host
        memory (CuPy copies from ordinary numpy arrays), so this returns the tensor itself."""
        if self.is_cuda:
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        if not _array.has_backend("cuda"):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self

    def is_pinned(self, device=None):
        return False  # see pin_memory

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """This tensor on a GPU (``device``: an index, "cuda:1" ..., default the current one)."""
        if device is None or isinstance(device, int):
            device = _device.device("cuda", device)
        elif _device.device(device).type != "cuda":
            raise RuntimeError(f"Invalid device, must be cuda device, got {device}")
        return self.to(device)

    def float(self):
        return self.to(_dtypes.float32)

    def double(self):
        return self.to(_dtypes.float64)

    def half(self):
        return self.to(_dtypes.float16)

    def bfloat16(self):
        """Raises: numpy, so minigrad, has no bfloat16 (minigrad.bfloat16 says so)."""
        return self.to(_dtypes.bfloat16)

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
        host = self._data if type(self._data) is np.ndarray else _array.to_host(self._data)
        extras = []
        if type(self._data) is not np.ndarray and self.is_cuda:
            extras.append(f"device='{self.device}'")  # torch shows it before the dtype
        shown = (_dtypes.default_numpy(),) if host.size == 0 else (  # [] shows no dtype
            _dtypes.default_numpy(), np.int64, np.bool_)
        dtype = None if self._data.dtype in shown else f"dtype={self.dtype!r}"
        if self.grad_fn is not None:
            grad = [f"grad_fn=<{self.grad_fn.name()}>"]
        else:
            grad = ["requires_grad=True"] if self._requires_grad else []
        return _tensor_str.tensor_str(host, dtype, extras, grad)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with "
                               f"{'no values' if self._data.size == 0 else 'more than one value'}"
                               " is ambiguous")
        return bool(self._data)

    def is_nonzero(self):
        """``bool(self)`` for a one-element tensor (PyTorch's errors otherwise)."""
        return self.__bool__()

    # Implicit conversions cut the graph: with grad mode on, a tensor that requires
    # grad reports a clog (minigrad.autograd.clogs); .item()/.detach() stay silent.
    def __float__(self):
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "float")
        return float(self._scalar())

    def __int__(self):
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "int")
        return int(self._scalar())

    def _scalar(self):
        """The one element, for ``float(t)``/``int(t)`` (ValueError otherwise, as PyTorch)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()

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
        if type(self._data) is not np.ndarray:
            _refuse_host_conversion(self)
        if self._requires_grad and grad_mode.enabled:
            _clogs.report(self, "array")
        data = self._data if dtype is None else self._data.astype(dtype)
        return data.copy() if copy else data

    def __format__(self, spec):
        # f"{loss:.4f}" is display, not a computation: silent, as .item() is
        if self._data.ndim == 0 and spec:
            return self._data.item().__format__(spec)
        return object.__format__(self, spec)

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
        import copy  # only deepcopy needs it
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

    # Comparisons give boolean tensors, which never require grad.
    def __eq__(self, other): return _compare(np.equal, self, other)
    def __ne__(self, other): return _compare(np.not_equal, self, other)
    def __lt__(self, other): return _compare(np.less, self, other)
    def __le__(self, other): return _compare(np.less_equal, self, other)
    def __gt__(self, other): return _compare(np.greater, self, other)
    def __ge__(self, other): return _compare(np.greater_equal, self, other)
    # &, |, ^ and ~ are bitwise ops: minigrad/bitwise.py

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for a leaf)."""
        return self._output_nr




def _init(t, array, grad_fn=None, output_nr=0, version_counter=None, base=None):
    """Set every field of Tensor ``t``.  The generated forwards of one-output ops do this
    work inline (codegen/templates/functions.py.j2): keep the two in step.  (Every other
    Tensor is made here: minigrad.compile's tracer intercepts it to see them all.)"""
    t._data = array
    t._grad = None
    t.grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._output_nr = output_nr
    t._version_counter = [0] if version_counter is None else version_counter
    t._base = base
    # (the flags object itself: grad_mode.inference is a module property, a Python call)
    t._extras = {"inference": True} if _inference_used.on and _grad_flags.inference else None
    if grad_fn is not None:
        # What this output looks like, for the engine's check of the gradients flowing
        # into it (PyTorch's InputMetadata), never the array.  Output 0: the dtype; its
        # shape only where a consumer's formula needs checking (support.record_shapes).
        if output_nr == 0:
            grad_fn._output_dtype = array.dtype
        else:
            _record_output(grad_fn, output_nr, array)
    return t


def _record_output(node, output_nr, array):
    """Output ``output_nr`` > 0 of a node with several outputs (see ``_init``)."""
    metas = getattr(node, "_more_output_metas", None)  # (unset on a new node)
    if metas is None:
        metas = node._more_output_metas = {}
    metas[output_nr] = (array.shape, array.dtype)


def _rebuild_tensor(cls, array, requires_grad):
    """Unpickle a Tensor (see ``Tensor.__reduce_ex__``)."""
    t = _init(_new(cls), array)
    t._requires_grad = bool(requires_grad)
    return t


def _wrap(array, grad_fn=None, output_nr=0):
    """A Tensor around a fresh array (the hot path for op results: no copying)."""
    return _init(_new(Tensor), array if type(array) is np.ndarray else _as_array(array),
                 grad_fn, output_nr)


def _as_array(value):
    """An array of any registered library as it is; numbers and numpy scalars as numpy."""
    return value if _array.is_array(value) else np.asarray(value)


def _refuse_host_conversion(tensor):
    if tensor.is_cuda:  # PyTorch's TypeError for .numpy() / np.asarray on a GPU tensor
        raise TypeError(f"can't convert {tensor.device} device type tensor to numpy. Use "
                        "Tensor.cpu() to copy the tensor to host memory first.")


_new = object.__new__


def _make_view(array, source, grad_fn=None, output_nr=0):
    """A Tensor that looks into ``source``'s storage: it shares the version counter."""
    if type(array) is not np.ndarray:
        array = _as_array(array)
    base = source._base if source._base is not None else source
    view = _init(_new(Tensor), array, grad_fn, output_nr, source._version_counter, base)
    if grad_mode.inference or base._extras is not None:
        # PyTorch: a view is an inference tensor exactly when its base is one
        view._extras = {"inference": True} if base.is_inference() else None
    return view


_COMPARABLE = (Tensor, int, float, complex, np.generic, np.ndarray)


def _compare(ufunc, a, b):
    if not isinstance(b, _COMPARABLE):
        # a string, None, a list ...: Python's fallback, as PyTorch (== is False, < raises)
        return NotImplemented
    x = a._data if isinstance(a, Tensor) else a
    y = b._data if isinstance(b, Tensor) else b
    if type(y) is int and x.dtype.kind in "iu" and x.dtype.itemsize < 8:
        y = _dtypes.wrapped_int(y, x.dtype)   # PyTorch casts it: uint8 < -1 compares with 255
    try:
        return _wrap(ufunc(x, y))
    except ValueError as exc:  # shapes that do not broadcast: PyTorch's RuntimeError
        from minigrad.autograd.numpy_errors import translate  # rare path: keep _tensor light
        raise translate(exc, ufunc.__name__, x, y) from None
    except TypeError as exc:  # a GPU array and a host one: PyTorch's mixed-device error,
        from minigrad.autograd.numpy_errors import translate  # (autograd imports Tensor)
        from minigrad.autograd.support import cpu_scalars_moved  # (as above)
        moved = cpu_scalars_moved(a, b)  # unless the host one is a 0-d tensor (allowed)
        if moved is not None:
            return _compare(ufunc, *moved)
        raise translate(exc, ufunc.__name__, x, y) from None
