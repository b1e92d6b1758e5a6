"""Formula helpers written out where the generated code knows the shapes.

``matmul_grad_self``, ``matmul_grad_other`` and ``sum_to`` handle every case of their
operands (1-D, batched, broadcast) at run time, through five to ten Python calls each.
Where the shapes were traced and the case is the plain one, the array backward calls
what the helper would call in the end:

- ``F.matmul_grad_self(g, shape, w)`` of 2-D operands is ``xp.matmul(g, w.T)``, and
  ``F.matmul_grad_other(g, x, shape)`` is ``xp.matmul(x.T, g)`` (the helpers' transpose
  of a 2-D array is ``.T``; their ``sum_to`` does nothing where shapes match).  Outer
  products (a contracted dimension of 1) stay with the helper, which multiplies.
- ``F.sum_to(g, shape)`` of a float gradient that sums leading dimensions only (a bias's
  gradient) is ``xp.add.reduce(g, (0, ...))``, ``kernels.core.sum_to``'s reduction.

The same numpy calls on the same arrays: the gradients are bit for bit the helpers'.
A line the pool has taken (pool.py) keeps its ``*_into`` call.
"""
import ast

from minigrad.autograd.formulas.core import is_outer_product


def write_out(body, values, float_gradients):
    """Lines ``(code, comment)`` with those helper calls written out.  ``values``: the
    program's traced values (``v3`` and ``g3`` have ``values[3]``'s shape);
    ``float_gradients``: every gradient is of one float dtype (sum_to is written out only
    then)."""
    rewritten = []
    for code, comment in body:
        if "F.matmul_grad_" in code or "F.sum_to(" in code:
            tree = _WriteOut(values, float_gradients).visit(ast.parse(code))
            code = ast.unparse(ast.fix_missing_locations(tree))
        rewritten.append((code, comment))
    return rewritten


class _WriteOut(ast.NodeTransformer):
    def __init__(self, values, float_gradients):
        self.values, self.float_gradients = values, float_gradients

    def visit_Call(self, node):
        self.generic_visit(node)
        func, args = node.func, node.args
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "F" and len(args) == 2 + func.attr.startswith("matmul")
                and not node.keywords and all(isinstance(a, (ast.Name, ast.Constant, ast.Tuple))
                                              for a in args)):
            return node
        if func.attr == "matmul_grad_self":
            grad, other = self._shape(args[0]), self._shape(args[2])
            if _plain(grad, other) and not is_outer_product(grad, other[::-1]):
                return _matmul(args[0], _transposed(args[2]))
        elif func.attr == "matmul_grad_other":
            grad, self_ = self._shape(args[0]), self._shape(args[1])
            if _plain(grad, self_) and not is_outer_product(self_[::-1], grad):
                return _matmul(_transposed(args[1]), args[0])
        elif func.attr == "sum_to" and self.float_gradients:
            axes = _leading_axes(self._shape(args[0]), _literal(args[1]))
            if axes:
                reduce = ast.Attribute(_xp("add"), "reduce", ast.Load())
                return ast.Call(reduce, [args[0], ast.Constant(axes)], [])
        return node

    def _shape(self, node):
        """The traced shape of a generated variable (``v3``, ``g3``), else None."""
        name = getattr(node, "id", "")
        if name[:1] in ("v", "g") and name[1:].isdigit():
            return self.values[int(name[1:])].shape
        return None


def _plain(*shapes):
    return all(shape is not None and len(shape) == 2 for shape in shapes)


def _leading_axes(shape, target):
    """The leading axes summing ``shape`` to ``target`` gives, or None where that is not
    all of sum_to's work (dims of size 1 kept, or nothing to sum)."""
    if shape is None or not isinstance(target, tuple) or len(target) >= len(shape):
        return None
    lead = len(shape) - len(target)
    return tuple(range(lead)) if tuple(shape[lead:]) == target else None


def _literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def _xp(name):
    return ast.Attribute(ast.Name("xp", ast.Load()), name, ast.Load())


def _matmul(a, b):
    return ast.Call(_xp("matmul"), [a, b], [])


def _transposed(node):
    return ast.Attribute(node, "T", ast.Load())
