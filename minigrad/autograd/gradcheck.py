"""gradcheck and gradgradcheck: compare autograd with central finite differences.

Both work in float64.  The full check builds every Jacobian block
d(output i)/d(input j) twice -- numerically, perturbing one input element at a
time, and analytically, one backward per output element -- and compares them.
``fast_mode=True`` compares only a random projection ``u^T J v`` per block,
which needs two evaluations per input instead of two per element.
"""
import numpy as np

from minigrad import _array
from minigrad.autograd.api import grad as autograd_grad


class GradcheckError(RuntimeError):
    """The analytical and numerical derivatives disagree."""


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=False,
              raise_exception=True, seed=0):
    """Check the gradients of ``fn`` at ``inputs`` against finite differences.

    >>> x = minigrad.randn(3, dtype=minigrad.float64, requires_grad=True)
    >>> minigrad.autograd.gradcheck(minigrad.tanh, (x,))
    True
    """
    from minigrad._tensor import Tensor
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor with requires_grad=True")
    for i in wrt:
        if inputs[i].dtype != np.float64:
            raise ValueError(f"gradcheck needs float64 inputs for accurate finite differences; "
                             f"input {i} is {inputs[i].dtype}. Use .double().")
    for (i, j), (numerical, analytical) in jacobian_blocks(fn, inputs, eps, fast_mode, seed):
        if not np.allclose(analytical, numerical, rtol=rtol, atol=atol, equal_nan=True):
            if not raise_exception:
                return False
            kind = "projected Jacobian u^T J v" if fast_mode else "Jacobian"
            raise GradcheckError(
                f"{kind} mismatch for output {i} with respect to input {j},\n"
                f"numerical:\n{numerical}\nanalytical:\n{analytical}\n"
                f"(max abs difference {np.max(np.abs(numerical - analytical)):.3g}, "
                f"atol={atol}, rtol={rtol})")
    return True


def jacobian_blocks(fn, inputs, eps=1e-6, fast_mode=False, seed=0):
    """Yield ``((output i, input j), (numerical, analytical))``: the blocks gradcheck compares.

    A block's rows are output elements and its columns input elements (row-major); in
    fast mode each block is the single projection ``u^T J v``.  ``j`` counts all of
    ``inputs``; only those that require grad appear.
    """
    from minigrad._tensor import Tensor
    inputs = tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = _outputs(fn, inputs)
    check = _fast_blocks if fast_mode else _full_blocks
    yield from check(fn, inputs, outputs, wrt, eps, np.random.default_rng(seed))


def gradgradcheck(fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  fast_mode=False, raise_exception=True, seed=0):
    """Check second derivatives: gradcheck of ``(inputs, v) -> vjp(fn, inputs, v)``."""
    from minigrad._tensor import Tensor, _wrap
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    outputs = _outputs(fn, inputs)
    rng = np.random.default_rng(seed + 1)
    if grad_outputs is None:
        grad_outputs = tuple(_wrap(_like(o, rng.standard_normal(o.shape))).requires_grad_()
                             for o in outputs)
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    n = len(inputs)

    def vjp(*args):
        ins, vs = args[:n], args[n:]
        outs = _outputs(fn, ins)
        diff_ins = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        kept = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
        if not kept:
            return ()
        grads = autograd_grad([o for o, _ in kept], diff_ins, [v for _, v in kept],
                              create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     fast_mode=fast_mode, raise_exception=raise_exception, seed=seed)


def _outputs(fn, inputs):
    from minigrad._tensor import Tensor
    out = fn(*inputs)
    outs = (out,) if isinstance(out, Tensor) else tuple(out)
    return tuple(o for o in outs if o.dtype.kind == "f")


def _evaluate(fn, inputs):
    # Not under no_grad: fn may itself differentiate (gradgradcheck's vjp does).
    return [_array.to_host(o._data).astype(np.float64) for o in _outputs(fn, inputs)]


def _like(tensor, host):
    """Host values on ``tensor``'s device (perturbations, cotangents): the Jacobians are
    assembled on the host, the function runs where its inputs are."""
    device = tensor.device
    return _array.to_device(host, device.type, device.index)


def _perturbed(fn, inputs, j, direction, eps, outputs):
    """(f(x + eps d) - f(x - eps d)) / 2 eps for input ``j`` along ``direction``."""
    data = inputs[j]._data
    original = data.copy()
    direction = _like(inputs[j], direction)
    try:
        data += eps * direction
        plus = _evaluate(fn, inputs)
        data[...] = original - eps * direction
        minus = _evaluate(fn, inputs)
    finally:
        data[...] = original
    nonzero = np.flatnonzero(_array.to_host(direction))  # one element perturbed: name it
    index = (tuple(int(k) for k in np.unravel_index(nonzero[0], direction.shape))
             if len(nonzero) == 1 else None)
    _check_same_shapes([o.shape for o in outputs], [p.shape for p in plus], eps, index)
    _check_same_shapes([p.shape for p in plus], [m.shape for m in minus], eps, index)
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _check_same_shapes(shapes, other_shapes, eps, index):
    """A function whose outputs change shape from call to call has no Jacobian to check.

    (PyTorch raises AssertionError here, with this message.)"""
    on_index = f"on index {index} " if index is not None else ""
    if len(shapes) != len(other_shapes):
        raise AssertionError(
            f"Expected `func` to return the same number of outputs when inputs are perturbed "
            f"{on_index}by {eps}, but got: {len(shapes)} and {len(other_shapes)}.")
    for shape, other in zip(shapes, other_shapes):
        if tuple(shape) != tuple(other):
            raise AssertionError(
                f"Expected `func` to return outputs with the same shape when inputs are "
                f"perturbed {on_index}by {eps}, but got: shapes {_size(shape)} and "
                f"{_size(other)}.")


def _size(shape):
    return f"minigrad.Size({list(shape)})"


def _vjp(outputs, inputs, wrt, i, cotangent):
    from minigrad._tensor import _wrap
    if not outputs[i].requires_grad:
        return [np.zeros(inputs[j].shape) for j in wrt]
    grads = autograd_grad(outputs[i], [inputs[j] for j in wrt],
                          _wrap(_like(outputs[i], cotangent)), retain_graph=True,
                          allow_unused=True)
    return [np.zeros(inputs[j].shape) if g is None else _array.to_host(g._data)
            for j, g in zip(wrt, grads)]


def _full_blocks(fn, inputs, outputs, wrt, eps, rng):
    """Yield ((i, j), (numerical J_ij, analytical J_ij)) for every block."""
    numerical = {}
    for j in wrt:
        x = inputs[j]._data
        columns = [[] for _ in outputs]
        for k in range(x.size):
            direction = np.zeros(x.shape)
            direction[np.unravel_index(k, x.shape)] = 1.0
            for i, d in enumerate(_perturbed(fn, inputs, j, direction, eps, outputs)):
                columns[i].append(d.reshape(-1))
        for i, o in enumerate(outputs):
            numerical[i, j] = (np.stack(columns[i], axis=1) if columns[i]
                               else np.zeros((o._data.size, 0)))
    for i, o in enumerate(outputs):
        rows = {j: [] for j in wrt}
        for m in range(o._data.size):
            cotangent = np.zeros(o.shape)
            cotangent[np.unravel_index(m, o.shape)] = 1.0
            for j, g in zip(wrt, _vjp(outputs, inputs, wrt, i, cotangent)):
                rows[j].append(np.asarray(g, dtype=np.float64).reshape(-1))
        for j in wrt:
            analytical = (np.stack(rows[j]) if rows[j]
                          else np.zeros((0, inputs[j]._data.size)))
            yield (i, j), (numerical[i, j], analytical)


def _fast_blocks(fn, inputs, outputs, wrt, eps, rng):
    """Yield ((i, j), (numerical u^T J v, analytical u^T J v)) for every block."""
    vs = {j: rng.standard_normal(inputs[j].shape) for j in wrt}
    us = [rng.standard_normal(o.shape) for o in outputs]
    for j in wrt:
        directional = _perturbed(fn, inputs, j, vs[j], eps, outputs)
        for i in range(len(outputs)):
            numerical = np.sum(us[i] * directional[i])
            g = _vjp(outputs, inputs, wrt, i, us[i])[wrt.index(j)]
            yield (i, j), (np.array([numerical]), np.array([np.sum(g * vs[j])]))
