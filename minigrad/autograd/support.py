"""Small functions the generated code calls (kept here so generated code reads plainly)."""
import numpy as np

from minigrad import _array, _device
from minigrad.autograd import grad_mode
from minigrad.autograd.node import Node, edge_of
from minigrad.autograd.views import mark_no_grad_view, register_view
from minigrad._tensor import Tensor, _make_view, _wrap


def data_of(value):
    """The numpy array behind a Tensor; numbers and arrays pass through as constants."""
    if isinstance(value, Tensor):
        return value._data
    if type(value) is list or type(value) is tuple:  # PyTorch refuses these where a Tensor goes
        raise TypeError(f"expected Tensor as argument, but got {type(value).__name__}; "
                        "wrap it with minigrad.tensor(...)")
    return value


def _has_meta(value):
    return isinstance(value, Tensor) or _array.is_array(value)


def cpu_scalars_moved(*values):
    """PyTorch lets 0-d CPU tensors into ops on GPU tensors: ``values`` with those moved to
    the GPU tensors' device, or None when that is not the situation (the error stands)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    devices = {v.device for v in tensors if v.is_cuda}
    cpu = [v for v in tensors if not v.is_cuda]
    if len(devices) != 1 or not cpu or any(v.ndim for v in cpu):
        return None
    device = devices.pop()
    return tuple(v.to(device) if isinstance(v, Tensor) and not v.is_cuda else v for v in values)


def shape_of(value):
    if isinstance(value, Tensor):  # the plain tuple, not the user-facing minigrad.Size
        return value._data.shape
    return value.shape if _array.is_array(value) else np.shape(value)


def ndim_of(value):
    return value.ndim if _has_meta(value) else np.ndim(value)


def dtype_of(value):
    return value.dtype if _has_meta(value) else np.result_type(value)


def device_of(value):
    """The device of a Tensor or array; numbers live nowhere in particular: the CPU."""
    if isinstance(value, Tensor):
        return value.device
    return _device.of_array(value) if _array.is_array(value) else _device.CPU


wrap = _wrap  # an op result: a new Tensor, linked to its node when one is given


def wrap_view(array, source, node=None, output_nr=0):
    """A result that may look into ``source``'s storage shares its version counter."""
    if isinstance(source, Tensor) and _looks_into(array, source._data):
        view = _make_view(array, source, node, output_nr)
        register_view(view, source)  # so in-place ops on its base can refresh its history
        if node is None and not grad_mode.enabled and view._base._requires_grad:
            # PyTorch: a view made under no_grad (or inference_mode) of a tensor that
            # requires grad requires grad too, with no grad_fn; in-place on it with grad
            # mode on is refused (views.creation_error)
            if view._data.dtype.kind in "fc":
                mark_no_grad_view(view)
        return view
    return _wrap(array, node, output_nr)


def _looks_into(array, source):
    """Whether ``array`` is a view of ``source``'s memory.  An empty slice shares no bytes,
    but is still a view for PyTorch: writing into it bumps the base's version."""
    if np.may_share_memory(array, source):
        return True
    if array.size or array.base is None:
        return False
    owner = source if source.base is None else source.base
    return array.base is owner or array.base is source


def record_shapes(*values):
    """The shape of each input with a history, on the node that made it: the engine checks
    the gradients flowing back into that node against it.  Called by the forwards of nodes
    whose formulas' shapes are not certain by construction (codegen/exactness.py); the
    dtype is recorded for every output (``_tensor._init``), other outputs than 0 in full."""
    for value in values:
        if isinstance(value, Tensor) and value._output_nr == 0 and value.grad_fn is not None:
            value.grad_fn._output_shape = value._data.shape


# The two dtypes for which codegen/exactness.py proves a formula's gradient dtype.
FLOAT32, FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def check_every_gradient(node):
    """Have the engine check each gradient ``node`` returns, in full.

    Called by the forwards of nodes whose gradients' dtypes are certain once the output
    and every input with a history share float32 or float64 (codegen/exactness.py),
    where they do not (``x * float64_tensor`` for a float32 ``x``, a float16 ``x``).
    Where they do, that one test in the forward is the whole dtype check, and the
    engine has nothing left to compare.  A node with ``_extras`` takes the engine's
    watched path (as one with hooks does), which checks every gradient."""
    if node._extras is None:
        node._extras = {}


def output_meta(arrays):
    return tuple((a.shape, a.dtype) for a in arrays)


def fill_undefined(grads, metas, F):
    """Several outputs: a gradient that did not arrive is zero, for the formulas that read it.

    ``metas`` has (shape, dtype) per output; only floating outputs get zeros."""
    if all(g is not None for g in grads) and len(grads) == len(metas):
        return grads
    grads = list(grads) + [None] * (len(metas) - len(grads))
    given = next(g for g in grads if g is not None)  # zeros go where the other gradients are
    xp = _array.namespace_of(given._data if isinstance(given, Tensor) else given)
    for i, (shape, dtype) in enumerate(metas):
        if grads[i] is None and dtype.kind == "f":
            zeros = xp.zeros(shape, dtype=dtype)
            grads[i] = _wrap(zeros) if F.as_tensors else zeros
    return grads


def once_differentiable_backward(node, grads, reason):
    """Under create_graph: compute the gradient once, and make differentiating it raise."""
    arrays = [g._data if isinstance(g, Tensor) else g for g in grads]
    results = node.apply(arrays, False)
    # The gradient depends on the incoming gradients and on the saved tensors:
    # differentiating it along any of them must reach the error.
    sources = list(grads) + [v for v in node.saved_values().values() if isinstance(v, Tensor)]
    error_node = DelayedError(node.name(), reason, tuple(edge_of(v) for v in sources))
    return tuple(None if r is None else _wrap(r, error_node) for r in results)


class DelayedError(Node):
    """Stands for a gradient whose own derivative is not available."""

    __slots__ = ("message",)

    def __init__(self, op_name, reason, next_functions):
        super().__init__(next_functions)
        self.message = (f"{op_name} is not differentiable twice ({reason}). Its gradient was "
                        "computed, but it cannot be differentiated again (create_graph=True).")

    def apply(self, grads, create_graph):
        raise RuntimeError(self.message)
