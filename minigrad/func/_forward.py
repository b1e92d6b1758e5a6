"""Forward-mode transforms: ``jvp``, ``jacfwd``, ``hessian``, ``linearize``.

They run ``f`` on dual tensors (``minigrad.autograd.forward_ad``).  ``jacfwd`` pushes
the whole standard basis through ``f`` in one pass, as a batch of tangents
(``forward_ad._make_dual_batched``), instead of one ``jvp`` per input element;
``hessian`` is forward-over-reverse, ``jacfwd(jacrev(f))``.
"""
import functools

from minigrad import _tensor
from minigrad.autograd import _dual_support
from minigrad.autograd.functional import (
    _construct_standard_basis_for, _size, _split_batched_tangent, _zeros_like)
from minigrad.func._argnums import replace_argnums, slice_argnums
from minigrad.func._pytree import tree_flatten, tree_map, tree_unflatten
from minigrad.func._reverse import _check_tensor_outputs, _split_aux, jacrev

__all__ = ["jvp", "jacfwd", "hessian", "linearize"]

_JVP = "jvp(f, primals, tangents)"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``, as ``torch.func.jvp``: one forward pass.

    >>> minigrad.func.jvp(minigrad.sin, (minigrad.tensor([0.0]),), (minigrad.tensor([2.0]),))
    (tensor([0.]), tensor([2.]))
    """
    return _jvp(func, primals, tangents, None, strict, has_aux)


def _jvp(func, primals, tangents, argnums, strict, has_aux, batched=False):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. "
                           "E.g. it should be valid to call f(*primals).")
    chosen = primals if argnums is None else slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(chosen)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_spec} and tangents with structure {tangents_spec}")
    _check_tensors(flat_primals, "primals")
    _check_tensors(flat_tangents, "tangents")
    forward_ad = _dual_support.require_forward_ad("minigrad.func.jvp")
    make_dual = forward_ad._make_dual_batched if batched else forward_ad.make_dual
    with forward_ad.dual_level():
        duals = tree_unflatten([make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)],
                               primals_spec)
        if argnums is not None:
            duals = replace_argnums(primals, argnums,
                                    duals[0] if isinstance(argnums, int) else duals)
        output, aux = _split_aux(func(*duals), has_aux, _JVP)
        flat_outputs, output_spec = tree_flatten(output)
        _check_tensor_outputs(flat_outputs, _JVP)
        primals_out, tangents_out = [], []
        for out in flat_outputs:
            primal, tangent = forward_ad.unpack_dual(out)
            if tangent is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f "
                                       "is independent of the inputs. This is not allowed with "
                                       "strict=True.")
                tangent = _zeros(primal, batch=flat_tangents[0].shape[0] if batched else None)
            primals_out.append(primal)
            tangents_out.append(tangent)
        if has_aux:
            aux = tree_map(lambda x: _primal(forward_ad, x), aux)
    result = (tree_unflatten(primals_out, output_spec), tree_unflatten(tangents_out, output_spec))
    return result + (aux,) if has_aux else result


def _check_tensors(flat, argname):
    if len(flat) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, _tensor.Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, "
                               f"got {type(x)}")


def _primal(forward_ad, x):
    if not isinstance(x, _tensor.Tensor):
        raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return forward_ad.unpack_dual(x).primal


def _zeros(primal, batch=None):
    return _zeros_like(primal, None if batch is None else (batch,) + tuple(primal.shape))


# --------------------------------------------------------------- jacfwd
def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode, as ``torch.func.jacfwd``: all the basis
    tangents go through ``func`` in one batched pass.

    ``randomness`` is checked as PyTorch does; ``func`` runs once, so random ops in it
    draw one sample for the whole batch (PyTorch's ``"same"``).

    >>> minigrad.func.jacfwd(lambda x: x ** 2)(minigrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    @functools.wraps(func)
    def wrapper(*args):
        if randomness not in ("error", "different", "same"):
            raise RuntimeError("Only allowed values for randomness are 'error', 'different', "
                               f"or 'same'. Got {randomness}")
        primals = args if argnums is None else slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        numels = tuple(p.numel() for p in flat_primals)
        basis = [b.reshape((b.shape[0],) + tuple(p.shape))
                 for b, p in zip(_construct_standard_basis_for(flat_primals, numels), flat_primals)]
        result = _jvp(func, args, tree_unflatten(basis, primals_spec), argnums, False, has_aux,
                      batched=True)
        flat_tangents, output_spec = tree_flatten(result[1])
        flat_outputs = tree_flatten(result[0])[0]
        per_output = []
        for out, tangent in zip(flat_outputs, flat_tangents):
            blocks = tree_unflatten(_split_batched_tangent(tangent, out, flat_primals, numels),
                                    primals_spec)
            per_output.append(blocks[0] if isinstance(argnums, int) else blocks)
        jac = tree_unflatten(per_output, output_spec)
        return (jac, result[2]) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of the scalar function ``func``, forward-over-reverse:
    ``jacfwd(jacrev(func, argnums), argnums)``, as ``torch.func.hessian``.

    >>> minigrad.func.hessian(lambda x: (x ** 3).sum())(minigrad.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------ linearize
def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``, as ``torch.func.linearize``: ``jvp_fn(*tangents)`` is
    the Jacobian-vector product at ``primals``.

    PyTorch traces the linear map once; minigrad runs ``func`` again in forward mode on
    each call of ``jvp_fn`` (same values, the cost of one ``jvp`` per call).

    >>> out, jvp_fn = minigrad.func.linearize(minigrad.sin, minigrad.tensor([0.0]))
    >>> jvp_fn(minigrad.tensor([3.0]))
    tensor([3.])
    """
    forward_ad = _dual_support.require_forward_ad("minigrad.func.linearize")
    output = func(*primals)
    output_spec = tree_flatten(output)[1]
    flat_primals, primals_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        _check_like_primals(flat_tangents, flat_primals)
        with forward_ad.dual_level():
            duals = tree_unflatten([forward_ad.make_dual(p, t)
                                    for p, t in zip(flat_primals, flat_tangents)], primals_spec)
            out = func(*duals)
            flat_out = [_tangent_or_zeros(forward_ad, o) if isinstance(o, _tensor.Tensor) else o
                        for o in tree_flatten(out)[0]]
        return tree_unflatten(flat_out, output_spec)
    return output, jvp_fn


def _tangent_or_zeros(forward_ad, dual):
    primal, tangent = forward_ad.unpack_dual(dual)
    return _zeros(primal) if tangent is None else tangent


def _check_like_primals(flat_tangents, flat_primals):
    for idx, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
        for what, mine, theirs in (("shape", _size(t), _size(p)), ("device", t.device, p.device),
                                   ("dtype", t.dtype, p.dtype)):
            if mine != theirs:
                raise RuntimeError(f"tangent:{idx} with {what} {mine} in flattened pytree "
                                   f"doesn't match the {what} {theirs} of the corresponding "
                                   "primal.")
