"""Rewrites for small arrays, where an operation's Python-level dispatch is its cost.

On a 16-element array numpy spends ~50 instructions multiplying and ~3,500 getting
there; ``a * b`` adds ~900 more (``ndarray.__mul__`` checks whether to defer to
``b``, then calls ``np.multiply`` through a tuple of arguments).  So the generated
code calls the ufunc itself, ``xp.multiply(a, b)``, where an operand is an array:
the same ufunc, the same result, one dispatch fewer.  (Big programs keep operators:
generate.reuse_buffers writes those into dead buffers.)
"""
import ast

import numpy as np

from minigrad.autograd.formulas.core import is_outer_product

_UFUNC_OF = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide"}


def ufunc_calls(tree, variables, dtypes=None):
    """``tree`` with ``a + b`` (and ``-``, ``*``, ``/``) written ``xp.add(a, b)`` where ``a``
    or ``b`` is an array: a name in ``variables`` (the generated code's arrays) or an
    elementwise ``xp`` call on one.  Python numbers on both sides stay operators.

    A sum of a float array over every dimension, ``sum_array(a, None, False, None)``, is
    written ``xp.add.reduce(a, None)``: what sum_array calls, without its three Python
    calls (``dtypes``: the variables' dtypes, where known).  An outer product written
    ``xp.matmul(a, b)`` (``a``'s last and ``b``'s second-to-last dimension 1) is
    ``xp.multiply(a, b)``."""
    return _UfuncCalls(variables, dtypes or {}).visit(tree)   # (only unparsed: no locations)


class _UfuncCalls(ast.NodeTransformer):
    def __init__(self, variables, dtypes):
        self.variables = variables
        self.dtypes = dtypes

    def visit_Call(self, node):
        self.generic_visit(node)
        func, args = node.func, node.args
        if (_is_xp(func, "matmul") and len(args) == 2 and not node.keywords
                and _outer(*(self.variables.get(getattr(a, "id", None)) for a in args))):
            return _xp_call("multiply", args)
        if (isinstance(func, ast.Name) and func.id == "sum_array" and len(args) == 4
                and not node.keywords and isinstance(args[0], ast.Name)
                and getattr(self.dtypes.get(args[0].id), "kind", None) in ("f", "c")
                and all(isinstance(a, ast.Constant) for a in args[1:])
                and [a.value for a in args[1:]] == [None, False, None]):
            reduce = ast.Attribute(ast.Attribute(ast.Name("xp", ast.Load()), "add", ast.Load()),
                                   "reduce", ast.Load())
            return ast.Call(reduce, [args[0], ast.Constant(None)], [])
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = _UFUNC_OF.get(type(node.op))
        if name is None or not (self._array(node.left) or self._array(node.right)):
            return node
        return _xp_call(name, [node.left, node.right])

    def _array(self, node):
        if isinstance(node, ast.Name):
            return node.id in self.variables
        if isinstance(node, ast.UnaryOp):
            return self._array(node.operand)
        return (isinstance(node, ast.Call) and _is_ufunc_call(node)
                and any(self._array(a) for a in node.args))


def _is_xp(func, name):
    return (isinstance(func, ast.Attribute) and func.attr == name
            and isinstance(func.value, ast.Name) and func.value.id == "xp")


def _outer(a, b):
    """Whether ``a @ b`` (shapes, None where unknown) is an outer product."""
    return a is not None and b is not None and is_outer_product(a, b)


def _is_ufunc_call(node):
    func = node.func
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == "xp" and isinstance(getattr(np, func.attr, None), np.ufunc))


def _xp_call(name, args):
    return ast.Call(ast.Attribute(ast.Name("xp", ast.Load()), name, ast.Load()), args, [])
