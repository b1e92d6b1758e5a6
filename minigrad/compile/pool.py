"""Leaf gradients written into the arrays the same backward returned on its last call.

A training step's ``p.grad = None`` (or ``zero_grad(set_to_none=True)``) frees each
gradient, and the next step's backward allocates it again.  For gradients of a few
hundred KB and more, a fresh allocation comes from the operating system page by page:
the MLP of tools/bench_compile.py spent more time in those page faults than in its SGD
update.  So the big programs' backward (generate.is_big) keeps each matmul gradient it
returns in a ``Pool`` slot, and on the next call writes the new gradient into that array
(``out=``) when nothing but the pool refers to it any more (by reference count, as
runtime.into).  A leaf, a user's variable or a view still holding the old gradient keeps
it from being reused: the backward then allocates as before.  The cost is memory: a
compiled function keeps its last gradients' arrays after the caller dropped them.
"""
import ast
import math
import sys

from minigrad.autograd.namespace import ARRAYS
from minigrad.compile.namespace import namespace_of

#: gradients from this many elements on are pooled (128 KB in float64: glibc's default
#: size from which malloc maps fresh pages)
POOL_MIN = 1 << 14

_HELPERS = {"matmul_grad_self": ("matmul_grad_self_into", 1),
            "matmul_grad_other": ("matmul_grad_other_into", 2)}


class Pool:
    """One array slot per gradient the backward returns (its position)."""

    def __init__(self, size):
        self.arrays = [None] * size

    def take(self, slot, shape, dtype):
        """The slot's array when it can be written into: its shape and dtype, and no
        reference but the slot's (the list, ``array`` and getrefcount's argument); else None."""
        array = self.arrays[slot]
        if (array is not None and sys.getrefcount(array) <= 3 and array.shape == shape
                and array.dtype == dtype):
            return array
        return None


def matmul_grad_self_into(pool, slot, grad, self_shape, other):
    """``matmul_grad_self(grad, self_shape, other)``, for 2-D operands into the pool."""
    if grad.ndim == 2 and other.ndim == 2 and len(self_shape) == 2 and other.dtype == grad.dtype:
        return _matmul_into(pool, slot, grad, other.T, self_shape)
    return ARRAYS.matmul_grad_self(grad, self_shape, other)


def matmul_grad_other_into(pool, slot, grad, self, other_shape):
    """``matmul_grad_other(grad, self, other_shape)``, for 2-D operands into the pool."""
    if grad.ndim == 2 and self.ndim == 2 and len(other_shape) == 2 and self.dtype == grad.dtype:
        return _matmul_into(pool, slot, self.T, grad, other_shape)
    return ARRAYS.matmul_grad_other(grad, self, other_shape)


def _matmul_into(pool, slot, a, b, shape):
    out = pool.take(slot, tuple(shape), a.dtype)
    result = a @ b if out is None else namespace_of(a).matmul(a, b, out=out)
    pool.arrays[slot] = result
    return result


# ---------------------------------------------------------------------- generating
def pool_gradients(body, returned):
    """Lines ``(code, comment)`` with each returned gradient's last assignment, when it is
    a matmul gradient of at least POOL_MIN elements, calling the ``*_into`` helper above
    with the slot of its position in ``returned``.  (The generated code names the pool
    ``_pool``.)"""
    slots = {name: i for i, name in enumerate(returned) if name != "None"}
    done, rewritten = set(), []
    for code, comment in reversed(body):
        statement = ast.parse(code).body[0]
        target = _assigned(statement)
        if target in slots and target not in done:
            done.add(target)
            call = _pooled_call(statement.value, slots[target])
            if call is not None:
                statement.value = call
                code = ast.unparse(ast.fix_missing_locations(statement))
        rewritten.append((code, comment))
    return rewritten[::-1]


def _assigned(statement):
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def _pooled_call(node, slot):
    """``F.matmul_grad_*(args)`` as ``matmul_grad_*_into(_pool, slot, args)``, or None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "F"
            and node.func.attr in _HELPERS and len(node.args) == 3 and not node.keywords):
        return None
    helper, shape_at = _HELPERS[node.func.attr]
    try:
        shape = ast.literal_eval(node.args[shape_at])
    except ValueError:
        return None
    if not isinstance(shape, tuple) or math.prod(shape) < POOL_MIN:
        return None
    return ast.Call(ast.Name(helper, ast.Load()),
                    [ast.Name("_pool", ast.Load()), ast.Constant(slot)] + node.args, [])
