"""``minigrad.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp of a function,
with torch.autograd.functional's signatures, shapes, ``strict`` checks and errors.

Inputs and outputs are a Tensor or a tuple of Tensors.  A Jacobian block for output
``o`` and input ``x`` has shape ``o.shape + x.shape``; with tuples, ``result[i][j]``
is the block of output ``i`` and input ``j``.

Reverse-mode Jacobians take one backward pass per output element; with
``vectorize=True`` (and in ``minigrad.func.jacrev``) one backward pass gives all the
rows, the cotangent basis riding through it as a batch of forward-mode tangents (see
``batched_rows``), where PyTorch uses ``is_grads_batched`` (vmap).  ``jvp`` and
``strategy="forward-mode"`` use ``minigrad.autograd.forward_ad``; forward-mode
Jacobians push all the basis tangents through ``f`` at once, as a batch.

>>> from minigrad.autograd.functional import jacobian, hessian
>>> jacobian(lambda x: x ** 2, minigrad.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
>>> hessian(lambda x: (x ** 3).sum(), minigrad.tensor([1.0, 2.0]))
tensor([[ 6.,  0.],
        [ 0., 12.]])
"""
from minigrad import _tensor
from minigrad._array import namespace_of
from minigrad.autograd import api as _api
from minigrad.autograd._dual_support import (
    forward_ad_for_a_new_level, require_forward_ad, tangent_of)
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from minigrad.autograd.node import AccumulateGrad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ------------------------------------------------------------ helpers (PyTorch's)
def _as_tuple(inp, arg_name=None, fn_name=None):
    if arg_name is None and fn_name is None:
        return inp if isinstance(inp, tuple) else tuple(inp) if isinstance(inp, list) else (inp,)
    is_inp_tuple = isinstance(inp, tuple)
    if not is_inp_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, _tensor.Tensor):
            where = f"the value at index {i}" if is_inp_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where} has type {type(el)}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    # Undo _as_tuple: to_unpack is is_tuple, or (is_outputs_tuple, is_inputs_tuple) for
    # a nested result.
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    # With create_graph, an input that requires grad is aliased so that the result
    # stays differentiable with respect to it; otherwise a fresh leaf.
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad
                 else inp.detach().requires_grad_(need_graph) for inp in inputs)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], _tensor.Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _outputs_and_result(outputs, is_outputs_tuple, result, is_result_tuple, create_graph):
    # The (outputs, result) pair that vjp, jvp, vhp and hvp return: each detached unless
    # create_graph, and unpacked as its tuple was given.
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_result_tuple))


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {_size(el_other)} but "
                               f"got {_size(el_v)}.")


def _size(t):
    return f"minigrad.Size({list(t.shape)})"


_NOT_REQUIRING_GRAD = {
    "outputs": ("Output {i} of the user-provided function does not require gradients."
                " The outputs must be computed in a differentiable manner from the input"
                " when running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of"
                    " the user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided"
                 " function with respect to input {i} is independent of the input. This is not"
                 " allowed in strict mode. You should ensure that your function is twice"
                 " differentiable and that the jacobian depends on the inputs (this would be"
                 " violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i}"
                " is independent of the input. This is not allowed in strict mode."
                " You should ensure that your function is thrice differentiable and that"
                " the hessian depends on the inputs."),
}


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_NOT_REQUIRING_GRAD[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    # autograd.grad over the outputs that require grad; None for independent inputs.
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs)
             if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gos = zip(*pairs)
    return _api.grad(outs, inputs, gos, allow_unused=True, create_graph=create_graph,
                     retain_graph=retain_graph)


_INDEPENDENT = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            grads_i = _zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res += (grads_i,)
    return res


def _zeros_like(t, shape=None):
    xp = namespace_of(t._data)
    return _tensor._wrap(xp.zeros(t.shape if shape is None else shape, t._data.dtype))


# ------------------------------------------------------------ jacobian rows
def jacobian_blocks(output, inputs, create_graph):
    """d(output)/d(inputs[i]) for each input, shaped ``output.shape + inputs[i].shape``
    (zeros where independent), by reverse mode.

    All the rows at once where it can (``batched_rows``), else one backward per element."""
    blocks = batched_rows(output, inputs, create_graph)
    if blocks is None:
        rows = reverse_rows(output, inputs, create_graph)
        return [stack_rows([row[i] for row in rows], output, x) for i, x in enumerate(inputs)]
    # (n,) + x.shape, row k for output element k  ->  output.shape + x.shape
    shapes = [tuple(output.shape) + tuple(x.shape) for x in inputs]
    return [_zeros_like(x, shape) if b is None else b.reshape(shape)
            for b, x, shape in zip(blocks, inputs, shapes)]


def batched_rows(output, inputs, create_graph):
    """Every row of the Jacobian in one backward pass, or None where that cannot be done.

    The backward is linear in its cotangent, so its forward-mode derivative along a basis
    vector e_k is row k of the Jacobian: the cotangent is a zero tensor carrying the whole
    basis as one batch of tangents (forward_ad._make_dual_batched), and the tangents of the
    gradients are the rows, as PyTorch gets them with ``is_grads_batched`` (vmap).  This
    needs forward_ad with no level open, and a graph of generated nodes only (their
    formulas propagate tangents; a custom Function's backward may not), without hooks.
    Returns, per input, a tensor of shape ``(output.numel(),) + input.shape`` or None."""
    forward_ad = forward_ad_for_a_new_level()
    if forward_ad is None or output.numel() < 2 or not output.requires_grad \
            or not _formulas_only(output):
        return None
    xp, dtype, n = namespace_of(output._data), output._data.dtype, output.numel()
    basis = _tensor._wrap(xp.eye(n, dtype=dtype).reshape((n,) + tuple(output.shape)))
    with forward_ad.dual_level():
        cotangent = forward_ad._make_dual_batched(
            _tensor._wrap(xp.zeros(output.shape, dtype)), basis)
        grads = _api.grad(output, inputs, cotangent, retain_graph=True,
                          create_graph=create_graph, allow_unused=True)
        return [None if g is None else forward_ad.unpack_dual(g).tangent for g in grads]


def _formulas_only(output):
    """Is every node behind ``output`` a generated one (or a leaf), with no hooks?"""
    stack, seen = [output.grad_fn] if output.grad_fn is not None else [], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node._extras is not None:
            return False
        if type(node) is AccumulateGrad:
            extras = node.variable._extras
            if extras is not None and extras.get("hooks"):
                return False
            continue
        if node._formulas is None:
            return False
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return True


def reverse_rows(output, inputs, create_graph):
    """``rows[k][i]``: the gradient of element ``k`` of ``output`` (flattened) with respect
    to ``inputs[i]``, or None where independent.  One backward pass per element."""
    if not output.requires_grad:
        return [(None,) * len(inputs)] * output.numel()
    xp = namespace_of(output._data)
    n, rows = output.numel(), []
    for k in range(n):
        basis = xp.zeros(n, output._data.dtype)
        basis[k] = 1
        rows.append(_api.grad(output, inputs, _tensor._wrap(basis.reshape(output.shape)),
                              retain_graph=True, create_graph=create_graph, allow_unused=True))
    return rows


def stack_rows(rows, output, x):
    """Rows of ``reverse_rows`` for input ``x`` as one tensor, shaped
    ``output.shape + x.shape`` (zeros where independent)."""
    shape = tuple(output.shape) + tuple(x.shape)
    if all(r is None for r in rows):
        return _zeros_like(x, shape)
    rows = [_zeros_like(x) if r is None else r for r in rows]
    if len(rows) == 1:  # a scalar output (a gradient): nothing to stack
        return rows[0].reshape(shape)
    if any(r.requires_grad or tangent_of(r) is not None for r in rows):
        # at call time: the generated ops import the Tensor, which imports autograd
        from minigrad._generated.functions import stack
        return stack(rows).reshape(shape)
    xp = namespace_of(rows[0]._data)
    return _tensor._wrap(xp.stack([r._data for r in rows]).reshape(shape))


# ---------------------------------------------------------------- vjp, jvp
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``, as ``torch.autograd.functional.vjp``.

    >>> vjp(lambda x: x ** 2, minigrad.tensor([1.0, 2.0]), minigrad.ones(2))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_inputs_tuple,
                               create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``, as ``torch.autograd.functional.jvp``, by forward mode
    (PyTorch uses the double-backward trick; the values are the same).

    >>> jvp(lambda x: x ** 2, minigrad.tensor([1.0, 2.0]), minigrad.ones(2))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element.")
        else:
            v = (_tensor._wrap(namespace_of(inputs[0]._data).ones_like(inputs[0]._data)),)
        forward_ad = require_forward_ad("minigrad.autograd.functional.jvp")
        with forward_ad.dual_level():
            duals = tuple(forward_ad.make_dual(inp, t) for inp, t in zip(inputs, v))
            is_outputs_tuple, outputs = _as_tuple(
                func(*duals), "outputs of the user-provided function", "jvp")
            primals, tangents = [], []
            for i, out in enumerate(outputs):
                primal, tangent = forward_ad.unpack_dual(out)
                if tangent is None:
                    if strict:
                        raise RuntimeError(_NOT_REQUIRING_GRAD["outputs"].format(i=i))
                    tangent = _zeros_like(primal)
                primals.append(primal)
                tangents.append(tangent)
    return _outputs_and_result(tuple(primals), is_outputs_tuple, tuple(tangents),
                               is_outputs_tuple, create_graph)


# ---------------------------------------------------------------- jacobian
def _construct_standard_basis_for(tensors, tensor_numels):
    # For inputs of numels n_1..n_k: k blocks of shape (N, n_i), N = sum(n_i), that
    # together form the N x N identity.
    total = sum(tensor_numels)
    chunks, start = [], 0
    for tensor, numel in zip(tensors, tensor_numels):
        xp = namespace_of(tensor._data)
        chunk = xp.zeros((total, numel), tensor._data.dtype)
        chunk[xp.arange(start, start + numel), xp.arange(numel)] = 1
        chunks.append(_tensor._wrap(chunk))
        start += numel
    return tuple(chunks)


def _jacfwd(func, inputs, strict=False, vectorize=False):
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). '
                           "Please either set `strict=False` or "
                           '`strategy="reverse-mode"`.')
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # (PyTorch's message, missing space included)
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    forward_ad = require_forward_ad('jacobian(strategy="forward-mode")')
    numels = tuple(inp.numel() for inp in inputs)
    basis = _construct_standard_basis_for(inputs, numels)
    with forward_ad.dual_level():
        duals = tuple(forward_ad._make_dual_batched(inp, b.reshape((b.shape[0],) + inp.shape))
                      for inp, b in zip(inputs, basis))
        is_outputs_tuple, outputs = _as_tuple(func(*duals), "outputs")
        jac = []
        for out in outputs:
            primal, tangent = forward_ad.unpack_dual(out)
            if tangent is None:
                tangent = _zeros_like(primal, (sum(numels),) + tuple(primal.shape))
            jac.append(_split_batched_tangent(tangent, primal, inputs, numels))
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _split_batched_tangent(tangent, output, inputs, numels):
    """A tangent of shape ``(N,) + output.shape`` (one row per basis tangent) as the
    Jacobian blocks ``output.shape + input.shape`` for each input."""
    blocks, start = [], 0
    for inp, numel in zip(inputs, numels):
        block = tangent[start:start + numel]
        block = block.permute(*range(1, block.ndim), 0) if block.ndim > 1 else block
        blocks.append(block.reshape(tuple(output.shape) + tuple(inp.shape)))
        start += numel
    return blocks


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``, as ``torch.autograd.functional.jacobian``.

    >>> jacobian(lambda x, y: x * y, (minigrad.tensor([1.0, 2.0]), minigrad.tensor([3.0, 4.0])))
    (tensor([[3., 0.],
            [0., 4.]]), tensor([[1., 0.],
            [0., 2.]]))
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        if vectorize:  # all rows in one backward where possible, as PyTorch's vmap
            result = tuple(tuple(jacobian_blocks(out, inputs, create_graph)) for out in outputs)
        else:
            result = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict)
                           for i, out in enumerate(outputs))
        result = _grad_postprocess(result, create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_of_output(i, out, inputs, create_graph, strict):
    rows = reverse_rows(out, inputs, create_graph)
    if strict:
        for row in rows:
            for j, g in enumerate(row):
                if g is None:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                if create_graph and not g.requires_grad:
                    raise RuntimeError("The jacobian of the user-provided function is "
                                       f"independent of input {i}. This is not allowed in "
                                       "strict mode when create_graph=True.")
    return tuple(stack_rows([row[j] for row in rows], out, x) for j, x in enumerate(inputs))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func``, as ``torch.autograd.functional.hessian``
    (the Jacobian of its gradient; the outer Jacobian by ``outer_jacobian_strategy``)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, _tensor.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# ---------------------------------------------------------------- vhp, hvp
def _scalar_function_outputs(func, inputs, v, create_graph, strict, name):
    # The shared start of vhp and hvp: inputs, v and the single-element output checked.
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], _tensor.Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` of a scalar function, as ``torch.autograd.functional.vhp``."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _scalar_function_outputs(
            func, inputs, v, create_graph, strict, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_inputs_tuple,
                               create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` of a scalar function, as ``torch.autograd.functional.hvp``
    (by the double-backward trick, as PyTorch)."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _scalar_function_outputs(
            func, inputs, v, create_graph, strict, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(_zeros_like(inp).requires_grad_() for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_inputs_tuple,
                               create_graph)
