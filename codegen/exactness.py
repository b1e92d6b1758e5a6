"""Which formulas return a gradient of exactly their input's shape, by construction.

The engine checks every gradient a generated node returns (shape, dtype, count; see
minigrad/autograd/engine.py).  The dtype is always checked at run time.  The shape
check needs each input's shape recorded at forward time, and both cost a measurable
share of a small-op workload; for two families of formulas the shape is certain from
the formula's text alone, so the generated node skips recording it:

- ``sum_to(E, x.shape)`` as the whole formula for input ``x``: ``sum_to`` returns
  exactly that shape or raises (minigrad/kernels/core.py), whatever ``E`` is;
- an op whose forward is one unary numpy ufunc of ``self`` (``np.sin(self)``: the output
  has self's shape) with a formula that is elementwise arithmetic on ``grad``, ``self``,
  ``result``, numbers and such ops (``grad * cos(self)``, ``grad * (1 - result * result)``):
  every array in it has self's shape, given that ``grad`` has the output's (the engine
  checks or proves the gradient flowing into every node the same way, from the root on).

Anything else (reductions, indexing, helpers, several outputs) is checked in full.
These rules prove shapes only, never values: gradcheck tests those.
"""
import ast

import numpy as np

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def shape_sources(op, unary_ops):
    """For a node whose every formula's shape is certain: per differentiable input, where
    the engine finds the input's shape if it must check after all (its own ``apply`` was
    replaced): ``"grad"`` (the incoming gradient's shape) or the name of the node slot
    holding the input's saved shape.  None when some formula must be checked in full."""
    args = op.differentiable_args
    if not args or any(a.is_tensor_list for a in args) or not op.single_output:
        return None
    sources = []
    for arg in args:
        formula = op.formula_for(arg.name)
        if formula is None:
            return None
        tree = ast.parse(formula.text, mode="eval").body
        if _is_sum_to_own_shape(tree, arg.name):
            sources.append(f"_saved_{arg.name}_shape")
        elif op.name in unary_ops and _elementwise(tree, unary_ops):
            sources.append("grad")
        else:
            return None
    return tuple(sources)


def unary_ufunc_ops(ops, grouped):
    """Names of the ops computed by one unary numpy ufunc of ``self`` (``np.sin(self)``),
    with no other argument and no overloads (so ``F.<name>`` in a formula is that op)."""
    names = set()
    for op in ops:
        if op.name in grouped or op.view or not op.single_output:
            continue
        if len(op.args) != 1 or op.args[0].name != "self" or op.args[0].type != "Tensor":
            continue
        if _is_unary_ufunc_of_self(op.forward):
            names.add(op.name)
    return frozenset(names)


def _is_unary_ufunc_of_self(forward):
    try:
        call = ast.parse(forward, mode="eval").body
    except SyntaxError:
        return False
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "np"
            and len(call.args) == 1 and not call.keywords
            and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"):
        return False
    ufunc = getattr(np, call.func.attr, None)
    return isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and ufunc.nout == 1


def _is_sum_to_own_shape(tree, name):
    """``sum_to(<anything>, <name>.shape)``."""
    return (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name)
            and tree.func.id == "sum_to" and len(tree.args) == 2 and not tree.keywords
            and isinstance(tree.args[1], ast.Attribute) and tree.args[1].attr == "shape"
            and isinstance(tree.args[1].value, ast.Name) and tree.args[1].value.id == name)


def _elementwise(tree, unary_ops):
    """Arithmetic on grad/self/result and numbers, through unary ufunc ops only."""
    if isinstance(tree, ast.Name):
        return tree.id in ("grad", "self", "result")
    if isinstance(tree, ast.Constant):
        return type(tree.value) in (int, float)
    if isinstance(tree, ast.UnaryOp):
        return isinstance(tree.op, (ast.USub, ast.UAdd)) and _elementwise(tree.operand, unary_ops)
    if isinstance(tree, ast.BinOp):
        return (isinstance(tree.op, _ARITHMETIC) and _elementwise(tree.left, unary_ops)
                and _elementwise(tree.right, unary_ops))
    if isinstance(tree, ast.Call):
        return (isinstance(tree.func, ast.Name) and tree.func.id in unary_ops
                and len(tree.args) == 1 and not tree.keywords
                and _elementwise(tree.args[0], unary_ops))
    return False
