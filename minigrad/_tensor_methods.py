"""Binds to Tensor the methods that need modules which themselves need Tensor.

``minigrad/_tensor.py`` defines the class and imports nothing that imports it
back; this module adds the operators, the generated ops (``x.exp()``, ``x.exp_()``),
hooks, ``backward``, sampling and factory methods.  ``minigrad/__init__.py``
imports it right after ``_tensor``, so every Tensor a user sees has them.

>>> import minigrad as mg
>>> (mg.tensor([1.0, 2.0]) * 2).exp_()
tensor([ 7.3890557, 54.59815  ])
"""
from __future__ import annotations

import numbers

import numpy as np

from minigrad import _dtypes, _new_tensors, _sampling, creation, numpy_interop
from minigrad._array import namespace_of
from minigrad._dispatch import varargs_int_list
from minigrad import functional as functional_ops
from minigrad._generated import functions as F
from minigrad._generated.methods import METHODS
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import api, hooks
from minigrad.autograd.inplace import apply_inplace, setitem
from minigrad.kernels.core import (
    on_device_of, scalar_type_name, split_selects, torch_key, with_torch_ellipses)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into the ``.grad`` of every leaf that requires grad.

    >>> x = mg.tensor(3.0, requires_grad=True); (x * x).backward(); x.grad
    tensor(6.)
    """
    api.backward(self, gradient, retain_graph, create_graph, inputs)


def register_hook(self, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; it may return a
    replacement.  Returns a handle with ``.remove()``.

    >>> h = x.register_hook(lambda g: g * 2)
    """
    return hooks.register_tensor_hook(self, hook)


def retain_grad(self):
    """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
    hooks.retain_grad(self)


def register_post_accumulate_grad_hook(self, hook):
    """``hook(tensor)`` runs after a leaf's ``.grad`` was updated (optimizer-in-backward)."""
    return hooks.register_post_accumulate_grad_hook(self, hook)


def zero_(self):
    return self.fill_(0)


def fill_(self, value):
    if self._data.dtype.kind in "iu" and isinstance(value, numbers.Real):
        value = _dtypes.integral_fill_value(value, self._data.dtype)   # PyTorch's checked conversion
    return apply_inplace(self, F._fill, value)


def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal (of a 2-D or an all-equal-dims tensor);
    ``wrap``: a tall matrix's diagonal starts again after N columns, as numpy's."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(self.shape, dtype=bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return self.masked_fill_(_wrap(on_device_of(self._data, mask)), fill_value)


def copy_(self, src, non_blocking=False):
    """Copy ``src``'s values into ``self`` (broadcasting; from another device too, as torch)."""
    if isinstance(src, Tensor):
        if type(src._data) is not type(self._data) or src.device != self.device:
            src = src.to(self.device)  # differentiable: gradients flow back to src's device
    elif type(self._data) is not np.ndarray and isinstance(src, (np.ndarray, list, tuple)):
        src = namespace_of(self._data).asarray(src)  # host values copied to self's device
    return apply_inplace(self, F._copy_from, src)  # refuses a partly overlapping src


def polygamma(self, n):
    """``x.polygamma(n)`` is ``minigrad.polygamma(n, x)`` (torch's argument order)."""
    return F.polygamma(n, self)


def contiguous(self, memory_format=None):
    """``self`` when its elements are in C order already, else a copy that is (as torch)."""
    if self._data.flags.c_contiguous:
        return self
    out = F.clone(self)  # records CloneBackward; the fresh array only needs C order
    out._data = namespace_of(out._data).ascontiguousarray(out._data)
    return out


def is_contiguous(self, memory_format=None):
    return bool(self._data.flags.c_contiguous)


def take(self, index):
    return functional_ops.take(self, index)


def clone(self, *, memory_format=None):
    return functional_ops.clone(self, memory_format=memory_format)


def index_put(self, indices, values, accumulate=False):
    if isinstance(indices, (tuple, list)):
        functional_ops.check_index_tensors(indices, argument=0)
    return functional_ops.index_put(self, indices, values, accumulate)


def index_put_(self, indices, values, accumulate=False):
    """``index_put`` written into ``self`` (its history rebased, as every in-place op)."""
    if isinstance(indices, (tuple, list)):
        functional_ops.check_index_tensors(indices, argument=0)
    return apply_inplace(self, functional_ops.index_put, indices, values, accumulate)


def stride(self, dim=None):
    """Elements (not bytes) to step in each dim, from the numpy array's strides."""
    strides = tuple(s // self._data.itemsize for s in self._data.strides)
    return strides if dim is None else strides[dim]


def masked_select(self, mask):
    """``minigrad.masked_select(self, mask)``: the elements where ``mask`` is true, 1-D."""
    return functional_ops.masked_select(self, mask)


# numpy functions and ufuncs on Tensors run minigrad's differentiable ops.
def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    return numpy_interop.array_ufunc(ufunc, method, inputs, kwargs)


def __array_function__(self, func, types, args, kwargs):
    return numpy_interop.array_function(func, types, args, kwargs)


# Every operator calls a generated, differentiable function.
def getitem(self, index):
    """``self[index]`` as PyTorch reads the key (torch_key, split_selects)."""
    if type(index) is tuple and _is_basic(index):   # x[:, 1], x[..., None]: the common keys
        index = with_torch_ellipses(index, self._data.ndim)
    elif type(index) is not int and type(index) is not slice:
        index = torch_key(index, self._data.ndim)
        split = split_selects(index)
        if split is not None:
            return getitem(F.getitem(self, split[0]), split[1])
    _check_steps(index)
    return F.getitem(self, index)


def _is_basic(key):
    for part in key:
        kind = type(part)
        if not (kind is int or kind is slice or part is None or part is Ellipsis):
            return False
    return True


def _setitem(self, index, value):
    _check_steps(index)
    return setitem(self, index, value)


def _check_steps(index):
    """PyTorch's refusal of a slice step below 1 (numpy reverses for a negative one:
    PyTorch has flip for that)."""
    for part in (index if type(index) is tuple else (index,)):
        if type(part) is slice and part.step is not None and part.step < 1:
            raise ValueError("slice step cannot be zero" if part.step == 0
                             else "step must be greater than zero")


_OPERATORS = {
    # a + b, a - b, a * b: the generated functions themselves (their first two parameters
    # are the operands), a Python frame less on the commonest ops.  2 + x and 2 * x too:
    # the Tensor first, as PyTorch computes them (its grad_fn's edges are in that order),
    # which also takes the generated functions' fast path for a Tensor and a number.
    "__add__": F.add,
    "__radd__": F.add,
    "__sub__": F.sub,
    "__rsub__": lambda self, other: F.sub(other, self),
    "__mul__": F.mul,
    "__rmul__": F.mul,
    "__truediv__": lambda self, other: F.div(self, other),
    "__rtruediv__": lambda self, other: F.div(other, self),
    "__pow__": lambda self, other: F.pow(self, other),
    "__rpow__": lambda self, other: F.pow(other, self),
    "__matmul__": lambda self, other: F.matmul(self, other),
    "__rmatmul__": lambda self, other: F.matmul(other, self),
    "__mod__": lambda self, other: F.remainder(self, other),
    "__rmod__": lambda self, other: F.remainder(other, self),
    "__floordiv__": lambda self, other: F.floor_divide(self, other),
    "__rfloordiv__": lambda self, other: F.floor_divide(other, self),
    "__neg__": lambda self: F.neg(self),
    "__pos__": lambda self: self,
    "__abs__": lambda self: F.abs(self),
    "__getitem__": getitem,
    "__setitem__": _setitem,
    # x += y, x -= y (an optimizer's update), x *= y, x /= y: the in-place methods
    # themselves, as PyTorch's operators call its in-place ops (a frame less)
    "__iadd__": METHODS["add_"],
    "__isub__": METHODS["sub_"],
    "__imul__": METHODS["mul_"],
    "__itruediv__": METHODS["div_"],
}


def view(self, *shape, **kwargs):
    """``x.view(2, 3)``, or ``x.view(dtype)``: the same bytes read as another dtype (the last
    dim rescaled where the sizes differ), never differentiable, as in PyTorch."""
    if len(shape) == 1 and not kwargs and isinstance(shape[0], _dtypes.dtype):
        return _view_as_dtype(self, shape[0])
    return F.view(self, *varargs_int_list(shape), **kwargs)


def _view_as_dtype(self, dtype):
    data, target = self._data, dtype._numpy
    ratio = target.itemsize / data.dtype.itemsize
    if ratio != 1:
        words = (f"to view {scalar_type_name(data.dtype)} as {scalar_type_name(target)} "
                 "(different element sizes)")
        if data.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {words}")
        if data.strides[-1] != data.itemsize and data.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {words}, but got "
                               f"{data.strides[-1] // data.itemsize}")
        if ratio > 1 and data.shape[-1] % int(ratio):
            raise RuntimeError(f"self.size(-1) must be divisible by {int(ratio)} {words}, but "
                               f"got {data.shape[-1]}")
    return _wrap(data.view(target))


def _bind():
    for name, fn in _OPERATORS.items():
        if fn.__name__ == "<lambda>":
            fn.__name__ = fn.__qualname__ = name
        setattr(Tensor, name, fn)
    for fn in (backward, register_hook, retain_grad, register_post_accumulate_grad_hook,
               zero_, fill_, copy_, polygamma, __array_ufunc__, __array_function__,
               contiguous, is_contiguous, masked_select, fill_diagonal_, take,
               stride, index_put, index_put_, view, clone):
        setattr(Tensor, fn.__name__, fn)
    for name, fn in METHODS.items():  # generated: x.exp(), x.exp_(), x.sum_to_size(...)
        setattr(Tensor, name, fn)
    # x.normal_(), x.uniform_(-k, k), x.bernoulli() ... (minigrad/_sampling.py)
    for name in ("normal_", "uniform_", "bernoulli_", "exponential_", "random_", "bernoulli",
                 "multinomial"):
        setattr(Tensor, name, getattr(_sampling, name))
    setattr(Tensor, "split_with_sizes", _new_tensors.split_with_sizes)
    # x.new_zeros(...) and friends: factories in x's dtype (minigrad/creation.py)
    for name in ("new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"):
        setattr(Tensor, name, getattr(creation, name))


_bind()
