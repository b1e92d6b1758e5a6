"""In-place view ops: ``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``, ``swapaxes_``,
``swapdims_`` and ``as_strided_`` change a tensor's shape and strides, not its values.

As in PyTorch, the tensor becomes the view the out-of-place op would return (the same
memory, so its views and base are untouched); while autograd records, that op's node
becomes its ``grad_fn``, and the version counter moves; in a dual level its tangent
becomes the same view of the tangent.  A leaf that requires grad, or a
view of one, is refused, as for every in-place op.

>>> x = minigrad.zeros(2, 1, 3)
>>> x.squeeze_(1).shape
minigrad.Size([2, 3])
"""
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad.autograd import grad_mode
from minigrad.autograd.errors import LEAF_INPLACE_ERROR
from minigrad.autograd.forward_ad import set_tangent, state as forward_ad, stored_tangent
from minigrad.autograd.hooks import move_retain_grad
from minigrad.autograd.views import VIEW_OF_LEAF_ERROR
from minigrad.strided import as_strided


def _become(self, view_op, *args):
    """``self`` takes the shape and strides of ``view_op(self, *args)``, in place."""
    base = self._base
    recording = grad_mode.enabled and (
        self._requires_grad or (base is not None and base._requires_grad))
    if recording and self.grad_fn is None and self._requires_grad:
        raise RuntimeError(LEAF_INPLACE_ERROR if base is None else VIEW_OF_LEAF_ERROR)
    if recording and base is not None and base._requires_grad and base.grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_ERROR)
    out = view_op(self, *args)  # in a dual level, with the same view of the tangent
    old_fn, old_nr = self.grad_fn, self._output_nr
    self._data = out._data
    tangent = stored_tangent(out) if forward_ad.active else None
    if tangent is not None:
        set_tangent(self, tangent)
    if recording:
        self.grad_fn, self._output_nr, self._requires_grad = out.grad_fn, out._output_nr, True
        if self._extras is not None and self._extras.get("retains_grad"):
            move_retain_grad(self, old_fn, old_nr)
    self._version_counter[0] += 1
    return self


def squeeze_(self, dim=None):
    """``self`` without its size-1 dims (or ``dim``'s, when of size 1), in place."""
    return _become(self, _F.squeeze, dim)


def unsqueeze_(self, dim):
    """``self`` with a dim of size 1 inserted at ``dim``, in place."""
    return _become(self, _F.unsqueeze, dim)


def transpose_(self, dim0, dim1):
    """``self`` with dims ``dim0`` and ``dim1`` swapped, in place."""
    return _become(self, _F.transpose, dim0, dim1)


def swapaxes_(self, axis0, axis1):
    return _become(self, _F.transpose, axis0, axis1)


def swapdims_(self, dim0, dim1):
    return _become(self, _F.transpose, dim0, dim1)


def t_(self):
    """``self`` transposed (a matrix; 0-d and 1-d tensors stay as they are), in place."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _become(self, _F.t)


def as_strided_(self, size, stride, storage_offset=None):
    """``self`` becomes its ``as_strided(size, stride, storage_offset)`` view, in place."""
    return _become(self, as_strided, size, stride, storage_offset)


for _fn in (squeeze_, unsqueeze_, transpose_, swapaxes_, swapdims_, t_, as_strided_):
    setattr(Tensor, _fn.__name__, _fn)
