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

The dtype is checked at run time, except (``dtype_certain``) where it follows from the
same reasoning once the generated forward has seen that the node's output and its
inputs have one dtype, float32 or float64 (support.check_every_gradient): then
``grad``, ``result`` and ``self`` have it, numbers keep it (NEP 50), the unary ops of the formula keep it,
``sum_to`` keeps it, and a forward that is one promoting numpy ufunc of the op's
inputs (``np.multiply(self, other)``) had it as the promotion of those inputs, so
arithmetic on them stays in it.  These rules prove shapes and dtypes, never values:
gradcheck tests those.
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


_PROMOTING = ("add", "subtract", "multiply", "divide", "true_divide")
_ARITHMETIC_ONLY = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def dtype_certain(op, unary_ops):
    """Whether every formula's gradient has the input's dtype when the node's output and
    that input are both float32, or both float64 (the engine tests that at run time)."""
    if shape_sources(op, unary_ops) is None:
        return False
    try:
        operands = _promoted(ast.parse(op.forward, mode="eval").body) or set()
    except SyntaxError:
        operands = set()
    for arg in op.differentiable_args:
        tree = ast.parse(op.formula_for(arg.name).text, mode="eval").body
        if _is_sum_to_own_shape(tree, arg.name):
            tree = tree.args[0]
        if op.name in unary_ops and _elementwise(tree, unary_ops):
            if not all(_keeps_float_dtypes(unary_ops[f]) for f in _calls(tree)):
                return False
        elif not _arithmetic_on(tree, {"grad", "result"} | operands):
            return False
    return True


def _promoted(tree):
    """The names a forward made only of promoting numpy ufuncs and + - * / combines
    (``np.multiply(self, other)``; both branches of an ``if``), or None."""
    if isinstance(tree, ast.Name):
        return {tree.id}
    if isinstance(tree, ast.Constant):
        return set() if type(tree.value) in (int, float) else None
    parts = None
    if isinstance(tree, ast.IfExp):
        parts = [tree.body, tree.orelse]
    elif isinstance(tree, ast.BinOp) and isinstance(tree.op, _ARITHMETIC_ONLY):
        parts = [tree.left, tree.right]
    elif (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Attribute)
          and isinstance(tree.func.value, ast.Name) and tree.func.value.id == "np"
          and tree.func.attr in _PROMOTING and not tree.keywords):
        parts = tree.args
    names = set()
    for part in parts or [None]:
        found = _promoted(part) if part is not None else None
        if found is None:
            return None
        names |= found
    return names


def _arithmetic_on(tree, names):
    """+ - * / and unary minus/plus on ``names`` and numbers, nothing else."""
    if isinstance(tree, ast.Name):
        return tree.id in names
    if isinstance(tree, ast.Constant):
        return type(tree.value) in (int, float)
    if isinstance(tree, ast.UnaryOp):
        return isinstance(tree.op, (ast.USub, ast.UAdd)) and _arithmetic_on(tree.operand, names)
    if isinstance(tree, ast.BinOp):
        return (isinstance(tree.op, _ARITHMETIC_ONLY) and _arithmetic_on(tree.left, names)
                and _arithmetic_on(tree.right, names))
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name)
            and tree.func.id == "maybe_multiply" and len(tree.args) == 2):
        # maybe_multiply(x, alpha): x, or x * alpha (formulas/core.py)
        return all(_arithmetic_on(a, names) for a in tree.args)
    return False


def _calls(tree):
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}


def _keeps_float_dtypes(name):
    """The numpy ufunc ``np.<name>`` maps float32 to float32 and float64 to float64."""
    ufunc = getattr(np, name, None)
    with np.errstate(all="ignore"):
        return all(ufunc(np.ones(1, dtype)).dtype == dtype for dtype in (np.float32, np.float64))


def unary_ufunc_ops(ops, grouped):
    """{op name: numpy ufunc name} for the ops computed by one unary numpy ufunc of
    ``self`` (``neg``: ``np.negative(self)``), with no other argument and no overloads
    (so ``F.<name>`` in a formula is that op)."""
    names = {}
    for op in ops:
        if op.name in grouped or op.view or not op.single_output:
            continue
        if len(op.args) != 1 or op.args[0].name != "self" or op.args[0].type != "Tensor":
            continue
        ufunc = _unary_ufunc_of_self(op.forward)
        if ufunc:
            names[op.name] = ufunc
    return names


def _unary_ufunc_of_self(forward):
    """``"sin"`` for a forward ``np.sin(self)`` (a numpy ufunc of one input), else None."""
    try:
        call = ast.parse(forward, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "np"
            and len(call.args) == 1 and not call.keywords
            and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"):
        return None
    ufunc = getattr(np, call.func.attr, None)
    if isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and ufunc.nout == 1:
        return call.func.attr
    return None


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
