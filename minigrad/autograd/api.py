"""The user entry points into the engine: ``autograd.backward`` and ``autograd.grad``.

(PyTorch defines them in torch/autograd/__init__.py; ``autograd.functional`` is
PyTorch's namespace for jacobian, hessian, vjp and friends, so this is not it.)

>>> import minigrad as mg
>>> x = mg.tensor([1.0, 2.0], requires_grad=True)
>>> mg.autograd.grad((x * x).sum(), x)
(tensor([2., 4.]),)
"""
import numpy as np

from minigrad.autograd.reentrant import MAX_REENTRANT_DEPTH, run_backward  # noqa: F401
from minigrad.autograd.errors import NO_GRAD_FN_ERROR, SCALAR_OUTPUT_ERROR, UNUSED_INPUT_ERROR
from minigrad.autograd.node import AccumulateGrad, edge_of
from minigrad._array import namespace_of
from minigrad import _tensor  # a module: Tensor is looked up at call time (import cycle)
from minigrad.autograd.forward_ad import state as forward_ad


#: node type -> a shortcut for ``backward`` on one tensor made by that node type: it
#: returns False where the engine must run.  (minigrad.compile registers its region node.)
FAST_BACKWARD = {}
#: node type -> a shortcut for ``grad`` from one root of that type: it returns the
#: captured gradients, or None where the engine must run.
FAST_CAPTURE = {}


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves.

    >>> x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    >>> minigrad.autograd.backward((x * x).sum()); x.grad
    tensor([2., 4.])
    """
    fast = FAST_BACKWARD.get(type(getattr(tensors, "grad_fn", None)))
    if fast is not None and fast(tensors, grad_tensors, retain_graph, create_graph, inputs):
        return
    tensors = _as_tuple(tensors)
    retain_graph = create_graph if retain_graph is None else retain_graph
    roots, root_grads = _roots(tensors, grad_tensors, create_graph)
    if inputs is None:
        run_backward(roots, root_grads, retain_graph, create_graph)
        return
    inputs = _as_tuple(inputs)
    edges = [_input_edge(t) for t in inputs]
    captured = run_backward(roots, root_grads, retain_graph, create_graph, capture=edges)
    for tensor, edge in zip(inputs, edges):
        grad = captured.get(edge)
        if grad is not None and not _retains_grad(tensor):
            AccumulateGrad(tensor).apply([grad], create_graph)


def _retains_grad(tensor):
    """A non-leaf whose ``retain_grad()`` hook has already written its ``.grad`` in this
    backward: accumulating the captured gradient again would count it twice (PyTorch's
    ``backward(inputs=[y])`` accumulates once)."""
    return tensor.grad_fn is not None and bool(tensor._extras and tensor._extras.get("retains_grad"))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching any ``.grad``.  ``only_inputs`` is
    ignored (deprecated in PyTorch); with ``is_grads_batched`` the first dim of each
    grad_output is a batch of vectors, one gradient each (stacked).

    >>> x = minigrad.tensor(3.0, requires_grad=True)
    >>> dx, = minigrad.autograd.grad(x ** 2, x, create_graph=True)   # 6
    >>> ddx, = minigrad.autograd.grad(dx, x)                          # 2
    """
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if is_grads_batched:
        return _batched_grad(outputs, inputs, _as_tuple(grad_outputs), create_graph,
                             allow_unused, materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    retain_graph = create_graph if retain_graph is None else retain_graph
    roots, root_grads = _roots(outputs, grad_outputs, create_graph)
    edges = [_input_edge(t) for t in inputs]
    fast = FAST_CAPTURE.get(type(roots[0][0])) if len(roots) == 1 else None
    captured = fast(roots[0], root_grads[0], retain_graph, create_graph, edges) if fast else None
    if captured is None:
        captured = run_backward(roots, root_grads, retain_graph, create_graph, capture=edges)
    results = []
    for index, (tensor, edge) in enumerate(zip(inputs, edges)):
        g = captured.get(edge)
        if g is None:
            if not allow_unused:
                from minigrad.autograd.clogs import explain_unused
                raise RuntimeError(UNUSED_INPUT_ERROR.format(index=index)
                                   + explain_unused(tensor, edge[0]))
            if materialize_grads:
                g = namespace_of(tensor._data).zeros_like(tensor._data)
        elif g.dtype != tensor.dtype:
            g = g.astype(tensor.dtype) if not isinstance(g, Tensor) else g.to(tensor.dtype)
        results.append(g if g is None or isinstance(g, Tensor) else _wrap(g))
    return tuple(results)


def _input_edge(tensor):
    node, nr = edge_of(tensor)
    if node is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return node, nr


def _roots(outputs, grad_outputs, create_graph):
    Tensor = _tensor.Tensor
    if (grad_outputs is None and len(outputs) == 1 and isinstance(outputs[0], Tensor)
            and outputs[0].grad_fn is not None):
        out = outputs[0]  # loss.backward(): the common case, without the general loops
        return [(out.grad_fn, out._output_nr)], [_root_grad(out, None, create_graph
                                                            or forward_ad.active)]
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,) * len(outputs) if grad_outputs is None else (grad_outputs,)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} gradients for {len(outputs)} outputs")
    roots = [edge_of(out) for out in outputs]
    for i, (node, _) in enumerate(roots):
        if node is None:
            from minigrad.autograd.clogs import explain_no_grad_fn
            raise RuntimeError(NO_GRAD_FN_ERROR.format(i=i) + explain_no_grad_fn())
    as_tensors = create_graph or forward_ad.active  # engine.py: formulas over Tensors then
    return roots, [_root_grad(out, g, as_tensors, i)
                   for i, (out, g) in enumerate(zip(outputs, grad_outputs))]


def _batched_grad(outputs, inputs, grad_outputs, create_graph, allow_unused,
                  materialize_grads):
    """``grad`` for each vector along the first dim of the grad_outputs, stacked (PyTorch
    vmaps the backward; this runs it once per vector)."""
    from minigrad.functional import stack   # (functional imports the autograd package)
    count = grad_outputs[0].shape[0]
    rows = [grad(outputs, inputs, tuple(g[i] for g in grad_outputs), retain_graph=True,
                 create_graph=create_graph, allow_unused=allow_unused,
                 materialize_grads=materialize_grads) for i in range(count)]
    return tuple(None if column[0] is None else stack(list(column)) for column in zip(*rows))


def _root_grad(out, g, create_graph, i=0):
    Tensor, _wrap = _tensor.Tensor, _tensor._wrap
    if g is None:
        if out._data.size != 1:
            raise RuntimeError(SCALAR_OUTPUT_ERROR)
        g = _one_like(out._data)
    elif isinstance(g, Tensor):
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {out.shape}.")
        if type(g._data) is not type(out._data) and g.device != out.device:
            raise RuntimeError(f"invalid gradient at index {i} - expected device {out.device} "
                               f"but got {g.device}")
        if g._data.dtype != out._data.dtype:
            # PyTorch takes it as it is and casts each input's gradient to the input's
            # dtype at the end; the formulas here expect the output's dtype
            g = g.to(out.dtype)
        return g if create_graph else g._data
    else:
        xp = namespace_of(out._data)  # a number or a host array goes to out's device
        g = xp.broadcast_to(xp.asarray(g, dtype=out._data.dtype), out.shape)
    return _wrap(g) if create_graph else g


_ONES = {}  # (shape, dtype) -> a read-only numpy 1 of that shape: copied for each root


def _one_like(data):
    """A fresh array of ones shaped like the one-element ``data`` (a root's gradient)."""
    if type(data) is not np.ndarray:
        return namespace_of(data).ones(data.shape, data.dtype)
    key = (data.shape, data.dtype)
    one = _ONES.get(key)
    if one is None:
        one = _ONES[key] = np.ones(data.shape, data.dtype)
        one.flags.writeable = False
    return one.copy()  # (a copy is writeable and owns its memory: a leaf may keep it)


def _as_tuple(x):
    Tensor = _tensor.Tensor
    return (x,) if isinstance(x, Tensor) else tuple(x)
