"""Multiplications by ``loss.backward()``'s ones, skipped in the generated backward.

A sum's gradient under ``loss.backward()`` is a read-only view of ones
(runtime.full_gradient), and formulas then multiply it: ``grad * other`` for ``a * b``,
``grad * 3`` for ``x ** 3``.  On big arrays each such product is a pass over the whole
array that returns ``other`` again.  In big programs (generate.is_big) a multiplication
whose factor may be that view (a variable assigned from ``full_gradient`` or from such a
variable) calls ``times`` instead, which returns the other factor itself when it already
has the view's shape and dtype (``1 * x`` is ``x`` bit for bit, NaN and -0.0 included),
or a read-only broadcast of it (a 0-d number), and multiplies otherwise.  The generated
code never writes into an array it shares (runtime.into counts references), and a leaf
copies a view or a shared array before keeping it as ``.grad``.
"""
import ast

import numpy as np

from minigrad.compile.namespace import namespace_of

#: ids of full_gradient's ones views (runtime.full_gradient adds them; they live for good)
VIEWS = set()


def times(a, b, refs=None):
    """``a * b``, or ``into(xp.multiply, a, b, refs)`` (runtime.into) when ``refs`` is given,
    without the multiplication where ``a`` or ``b`` is a ones view."""
    other, ones = (b, a) if id(a) in VIEWS else (a, b)
    if id(ones) in VIEWS and type(other) is np.ndarray and other.dtype == ones.dtype:
        if other.shape == ones.shape:
            return other
        if np.broadcast_shapes(other.shape, ones.shape) == ones.shape:
            return np.broadcast_to(other, ones.shape)
    if refs is None:
        return a * b
    from minigrad.compile.runtime import into   # (runtime imports this module)
    return into(np.multiply if type(a) is np.ndarray else namespace_of(a).multiply, a, b, refs)


# ---------------------------------------------------------------------- generating
def skip_ones(body, prefix="g"):
    """Lines ``(code, comment)`` with the multiplications of a possible ones view (see the
    module's docstring) as ``times(a, b)``, or ``times(a, b, refs)`` for
    ``into(xp.multiply, a, b, refs)``."""
    ones, rewritten = set(), []
    for code, comment in body:
        statement = ast.parse(code).body[0]
        if ones:
            statement = _Times(ones).visit(statement)
            code = ast.unparse(ast.fix_missing_locations(statement))
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            target, value = statement.targets[0].id, statement.value
            if _is_call(value, "full_gradient") or \
                    isinstance(value, ast.Name) and value.id in ones:
                ones.add(target)
            else:
                ones.discard(target)
        rewritten.append((code, comment))
    return rewritten


def _is_call(node, name):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == name


class _Times(ast.NodeTransformer):
    def __init__(self, ones):
        self.ones = ones

    def _one(self, node):
        return isinstance(node, ast.Name) and node.id in self.ones

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Mult) and (self._one(node.left) or self._one(node.right)):
            return ast.Call(ast.Name("times", ast.Load()), [node.left, node.right], [])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if (_is_call(node, "into") and len(node.args) == 4
                and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "multiply"
                and (self._one(node.args[1]) or self._one(node.args[2]))):
            return ast.Call(ast.Name("times", ast.Load()), node.args[1:], [])
        return node
