"""Reverse-mode transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``.

torch.func wraps every tensor at a "level" so that a transform sees only its own
graph.  minigrad has one graph, so a transform records ``f`` on inputs of its own:

- an input that requires grad (and grad mode is on) is passed as an alias,
  ``x.view_as(x)``: the results stay differentiable with respect to ``x``, as in
  PyTorch, and an outer ``grad`` can differentiate through this one;
- any other input becomes a fresh leaf that requires grad (carrying the input's
  forward-mode tangent, if an outer ``jvp``/``jacfwd`` gave it one).

The backward records a graph (``create_graph``) only when something outside needs
one: an aliased input, a tensor from outside that ``f`` closes over and that
requires grad, or forward-mode tangents flowing through it.  Otherwise results are
returned detached, so ``grad(f)(x).requires_grad`` is False, as in PyTorch.
"""
import functools

from minigrad import _tensor
from minigrad._array import namespace_of
from minigrad.autograd import api as _autograd
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled
from minigrad.autograd.node import AccumulateGrad
from minigrad.autograd import _dual_support as _dual
from minigrad.autograd import functional
from minigrad.func._argnums import replace_argnums, slice_argnums
from minigrad.func._pytree import tree_flatten, tree_map, tree_unflatten, treespec_pprint

__all__ = ["grad", "grad_and_value", "vjp", "jacrev"]


class _Recording:
    """``func`` run once on differentiable copies of the arguments at ``argnums``
    (all positional arguments when ``argnums`` is None)."""

    def __init__(self, func, args, kwargs, argnums):
        self.outer_grad = is_grad_enabled()
        self.own_leaves = set()   # ids of the leaves made here
        self.aliased = False      # some input was passed as an alias of an outside tensor
        with enable_grad():
            chosen = args if argnums is None else slice_argnums(args, argnums, as_tuple=False)
            inputs = tree_map(self._differentiable, chosen)
            if argnums is not None:
                args = replace_argnums(args, argnums, inputs)
            else:
                args = inputs
            self.output = func(*args, **kwargs)
        self.flat_inputs, self.input_spec = tree_flatten(inputs)

    def _differentiable(self, x):
        if not isinstance(x, _tensor.Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if self.outer_grad and x.requires_grad:
            self.aliased = True
            return x.view_as(x)
        tangent = _dual.tangent_of(x)
        leaf = x.detach().requires_grad_()
        self.own_leaves.add(id(leaf))
        return leaf if tangent is None else _dual.with_tangent(leaf, tangent)

    def watch(self, flat_outputs):
        """Decide, once ``f``'s outputs are known, whether anything outside needs a graph."""
        self.flat_outputs = flat_outputs
        self.reverse_outside = self.outer_grad and (
            self.aliased or _reaches_foreign_leaf(flat_outputs, self.own_leaves))
        self.forward_outside = any(_dual.tangent_of(t) is not None
                                   for t in self.flat_inputs + list(flat_outputs))

    def grads(self, flat_cotangents, retain_graph=None, create_graph=None):
        """d(outputs)/d(inputs) against ``flat_cotangents``; zeros where independent."""
        outside = is_grad_enabled() and (self.reverse_outside or any(
            isinstance(c, _tensor.Tensor) and c.requires_grad for c in flat_cotangents))
        forward = self.forward_outside or any(
            isinstance(c, _tensor.Tensor) and _dual.tangent_of(c) is not None
            for c in flat_cotangents)
        if create_graph is None:
            create_graph = outside
        with enable_grad():
            grads = autograd_grad(self.flat_outputs, self.flat_inputs, flat_cotangents,
                                  retain_graph=retain_graph, create_graph=create_graph or forward)
        return grads if outside and create_graph else [_dual.detached(g) for g in grads]

    def result(self, tensor):
        """A tensor of ``f``'s making, as the caller sees it: detached unless a graph
        outside needs its history."""
        return tensor if self.reverse_outside else _dual.detached(tensor)


def _reaches_foreign_leaf(tensors, own_leaves):
    """Does the graph behind ``tensors`` reach a leaf that requires grad and is not ours?"""
    stack, seen = [], set()
    for t in tensors:
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad and id(t) not in own_leaves:
            return True
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            if id(node.variable) not in own_leaves:
                return True
            continue
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return False


def autograd_grad(outputs, inputs, grad_outputs, retain_graph=None, create_graph=False):
    """``autograd.grad`` over the outputs that require grad, with zeros for what is
    independent (PyTorch's functorch ``_autograd_grad``)."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [_zeros_like(x) for x in inputs]
    outs, gos = zip(*pairs)
    grads = _autograd.grad(outs, inputs, gos, retain_graph=retain_graph,
                           create_graph=create_graph, allow_unused=True)
    return [_zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _zeros_like(x):
    return _tensor._wrap(namespace_of(x._data).zeros_like(x._data))


# ---------------------------------------------------------------- grad
def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning ``(gradient, value)`` of the scalar function ``func``.

    ``argnums`` (an int or a tuple of ints) picks the arguments to differentiate;
    with ``has_aux``, ``func`` returns ``(output, aux)`` and the result is
    ``(gradient, (value, aux))``.

    >>> g, value = minigrad.func.grad_and_value(lambda x: (x ** 2).sum())(minigrad.tensor([1., 2.]))
    >>> g, value
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of the scalar function ``func`` as a function, as ``torch.func.grad``.

    >>> minigrad.func.grad(lambda x: x.sin().sum())(minigrad.tensor([0.0]))
    tensor([1.])
    >>> minigrad.func.grad(minigrad.func.grad(lambda x: x ** 3))(minigrad.tensor(2.0))
    tensor(12.)
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    run = _Recording(func, args, kwargs, argnums)
    output, aux = _split_aux(run.output, has_aux, "grad_and_value(f)(*args)")
    if not isinstance(output, _tensor.Tensor):
        raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) "
                           f"to return a Tensor, got {type(output)}")
    if output.dim() != 0:
        raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                           f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted to "
                           "use the vjp or jacrev APIs instead?")
    run.watch([output])
    grads = tree_unflatten(run.grads([None]), run.input_spec)
    value = run.result(output)
    if has_aux:
        return grads, (value, _aux_result(run, aux))
    return grads, value


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return output


def _aux_result(run, aux):
    def unwrap(x):
        if not isinstance(x, _tensor.Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        return run.result(x)
    return tree_map(unwrap, aux)


# ----------------------------------------------------------------- vjp
def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` is the tuple of
    vector-Jacobian products, one per primal, as ``torch.func.vjp``.

    >>> out, vjp_fn = minigrad.func.vjp(lambda x: x ** 2, minigrad.tensor([1.0, 2.0]))
    >>> vjp_fn(minigrad.ones(2))
    (tensor([2., 4.]),)
    """
    return _vjp(func, primals, None, has_aux)


def _vjp(func, primals, argnums, has_aux):
    run = _Recording(func, primals, {}, argnums)
    output, aux = _split_aux(run.output, has_aux, "vjp(f, *primals)")
    flat_outputs, output_spec = tree_flatten(output)
    _check_tensor_outputs(flat_outputs, "vjp(f, *primals)")
    for out in flat_outputs:
        if not out.is_floating_point():
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {out.dtype}")
    run.watch(flat_outputs)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cotangents, cotangent_spec = tree_flatten(cotangents)
        if cotangent_spec != output_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {treespec_pprint(cotangent_spec)}, "
                f"primal output: {treespec_pprint(output_spec)}")
        return tree_unflatten(run.grads(flat_cotangents, retain_graph, create_graph),
                              run.input_spec)

    result = tree_unflatten([run.result(t) for t in flat_outputs], output_spec)
    if has_aux:
        return result, vjp_fn, _aux_result(run, aux)
    return result, vjp_fn


def _check_tensor_outputs(flat_outputs, api):
    if len(flat_outputs) < 1 or (len(flat_outputs) == 1 and flat_outputs[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat_outputs})")
    for out in flat_outputs:
        if not isinstance(out, _tensor.Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(out)}")


# -------------------------------------------------------------- jacrev
def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode, as ``torch.func.jacrev``.

    The result for output ``o`` and input ``x`` has shape ``o.shape + x.shape``.  All
    rows come from one backward pass where forward_ad can batch the cotangents through
    it (``autograd.functional.batched_rows``), else one backward per row; ``chunk_size``
    is accepted and checked, and does not change the result.

    >>> minigrad.func.jacrev(lambda x: x ** 2)(minigrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        run = _Recording(func, args, {}, argnums)
        output, aux = _split_aux(run.output, has_aux, "vjp(f, *primals)")
        flat_outputs, output_spec = tree_flatten(output)
        _check_tensor_outputs(flat_outputs, "vjp(f, *primals)")
        run.watch(flat_outputs)
        primals_spec = tree_flatten(slice_argnums(args, argnums))[1]
        per_output = []
        for out in flat_outputs:
            jac = [run.result(j) for j in jacobian_blocks(run, out)]
            per_input = tree_unflatten(jac, primals_spec)
            per_output.append(per_input[0] if isinstance(argnums, int) else per_input)
        result = tree_unflatten(per_output, output_spec)
        return (result, _aux_result(run, aux)) if has_aux else result
    return wrapper


def jacobian_blocks(run, output):
    """For each of ``run``'s inputs, d(output)/d(input) shaped output.shape + input.shape."""
    outside = run.reverse_outside and is_grad_enabled()
    with enable_grad():
        return functional.jacobian_blocks(output, run.flat_inputs,
                                          create_graph=outside or run.forward_outside)
