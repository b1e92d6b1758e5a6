"""Runs of elementwise lines as one kernel each, on array libraries that can fuse (CuPy).

On a GPU every generated line is a kernel launch (~15 us of Python and driver time),
whatever the array's size; a chain of 200 elementwise ops is 200 launches.  CuPy's
``cupy.fuse`` traces a Python function of ufunc calls once per argument types and
compiles it into a single elementwise kernel.  So each generated function (forward,
backward) gets a second form, ``<name>_fused``, the same lines with each maximal run of
two or more elementwise lines moved into a module-level function ``_fused_N(xp, ...)``
that returns the values read after the run; the line calling it reads
``run_fused(_fused_N, xp, <arguments>)``.  The numpy form is unchanged (its only new
line sends other array libraries to the fused form), so the CPU path keeps its
buffer reuse (generate.reuse_buffers) and costs no extra calls.

What a run may hold (``_elementwise``): assignments to a variable of local variables,
numbers, ``+ - * / **``, unary ``-``, one comparison, ``xp.<ufunc>(...)`` with
positional arguments (one output, no ``out=``), ``xp.where(c, a, b)``, and the
buffer helpers that stand for a ufunc call (``into``, ``into_second``, ``times``);
``del`` lines between them.  Every value a run makes must have the run's one shape
(the broadcast of its inputs): a fused kernel writes every output at that shape.

``run_fused`` fuses a segment the first time it runs on a namespace with ``fuse``,
checks that the fused results have the unfused results' dtypes and shapes, and keeps
the unfused function for good when fusing raises or differs: no user-visible change.
"""
import ast
import re
from collections import Counter

import numpy as np

_LOCAL = re.compile(r"[a-z]+\d+$")   # generated variables: v3, g3, s0, c1, t0
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_HELPERS = {"into": 4, "into_second": 4}   # helper -> arguments: (ufunc, a, b, refs)


# ---------------------------------------------------------------------- generating
def fused_form(lines, name, shapes):
    """(the fused form's lines, the segment functions' source) for a generated function.

    ``lines``: its ``(code, comment)`` lines after the header; ``name``: the function's
    name; ``shapes``: the shapes of the variables known from the program (``v3`` ->
    (2, 3)).  None when no run has two elementwise lines (then there is no fused form)."""
    known, shapes = shapes, dict(shapes)
    statements = [_statement(code, shapes, known) for code, _ in lines]
    runs = _runs(statements)
    if not runs:
        return None
    out, functions, at = [], [], 0
    for start, stop in runs:
        out.extend(lines[at:start])
        at = stop
        later = _names_read(lines[stop:])
        if not later.intersection(_ordered(statements[start:stop])):
            out.extend(lines[start:stop])   # (values nothing reads: left as they are)
            continue
        segment = f"_fused_{name}_{len(functions)}"
        call, body = _segment(segment, lines[start:stop], statements[start:stop], later)
        functions.append(body)
        out.extend(call)
    out.extend(lines[at:])
    return (out, functions) if functions else None


class _Line:
    """A line of a run: its rewritten code, the names it reads and the one it assigns."""

    def __init__(self, code, reads, target, shape):
        self.code, self.reads, self.target, self.shape = code, reads, target, shape


def _statement(code, shapes, known):
    """A ``_Line`` where ``code`` may go into a run (a ``del`` line: target None), else None.
    Records the shape of what the line assigns in ``shapes`` (``known``: the program's)."""
    tree = ast.parse(code).body[0]
    if isinstance(tree, ast.Delete):
        names = [t.id for t in tree.targets if isinstance(t, ast.Name)]
        return _Line(code, names, None, None) if len(names) == len(tree.targets) else None
    if not (isinstance(tree, ast.Assign) and len(tree.targets) == 1
            and isinstance(tree.targets[0], ast.Name)):
        return None
    target = tree.targets[0].id
    # ``v3 = v2``: a forward value that is another's alias (detach, a view the caller looks
    # for in the inputs' memory): a kernel would return a copy
    aliased = isinstance(tree.value, ast.Name) and target.startswith("v")
    value = None if aliased else _elementwise(tree.value)
    shape = _shape(value, shapes) if value is not None else None
    if shape is None:   # (a program value keeps its shape; a temporary's is unknown)
        shapes[target] = known.get(target)
        return None
    shapes[target] = shape
    reads = [n.id for n in ast.walk(value) if isinstance(n, ast.Name) and n.id != "xp"]
    return _Line(f"{target} = {ast.unparse(value)}", reads, target, shape)


def _elementwise(node):
    """``node`` written as plain ufunc calls and operators, or None where it is anything
    else (a reduction, a reshape, indexing, a helper, a global constant)."""
    if isinstance(node, ast.Name):
        return node if _LOCAL.match(node.id) else None
    if isinstance(node, ast.Constant):
        return node if type(node.value) in (bool, int, float) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        left, right = _elementwise(node.left), _elementwise(node.right)
        return None if left is None or right is None else ast.BinOp(left, node.op, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _elementwise(node.operand)
        return None if operand is None else ast.UnaryOp(node.op, operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and isinstance(node.ops[0], _COMPARISONS):
        left, right = _elementwise(node.left), _elementwise(node.comparators[0])
        return None if left is None or right is None else ast.Compare(left, node.ops, [right])
    if isinstance(node, ast.Call) and not node.keywords:
        return _call(node)
    return None


def _call(node):
    func, args = node.func, node.args
    if isinstance(func, ast.Name) and _HELPERS.get(func.id) == len(args):
        # into(xp.add, a, b, refs) is xp.add(a, b) written into a dead buffer (numpy only)
        ufunc = _xp_name(args[0])
        if ufunc is None:
            return None
        func, args = args[0], args[1:3]
    elif isinstance(func, ast.Name) and func.id == "times" and len(args) in (2, 3):
        # times(a, b[, refs]) is a * b, skipped where one is a ones view (numpy only)
        func, args = ast.Attribute(ast.Name("xp", ast.Load()), "multiply", ast.Load()), args[:2]
    name = _xp_name(func)
    if name is None or not _fusable(name, len(args)):
        return None
    args = [_elementwise(a) for a in args]
    return None if any(a is None for a in args) else ast.Call(func, args, [])


def _xp_name(node):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == "xp":
        return node.attr
    return None


def _fusable(name, nargs):
    """An elementwise function CuPy fuses: a plain ufunc of one output, or where."""
    if name == "where":
        return nargs == 3
    ufunc = getattr(np, name, None)
    return (isinstance(ufunc, np.ufunc) and ufunc.signature is None and ufunc.nout == 1
            and ufunc.nin == nargs)


def _shape(node, shapes):
    """The broadcast shape of an elementwise expression, or None where an operand's is
    unknown or they do not broadcast."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id != "xp":
            shape = shapes.get(sub.id)
            if shape is None:
                return None
            found.append(shape)
    try:
        return tuple(np.broadcast_shapes(*found)) if found else None
    except ValueError:
        return None


def _runs(statements):
    """(start, stop) of each run: consecutive elementwise lines of one shape (``del``
    lines within and after), at least two assignments, no scalar-only (0-d) values."""
    runs, start, shape, count = [], None, None, 0
    for index, line in enumerate(statements + [None]):
        if line is not None and line.target is None and start is not None:
            continue   # a del inside a run
        if line is not None and line.target is not None and line.shape \
                and (start is None or line.shape == shape):
            if start is None:
                start, shape, count = index, line.shape, 0
            count += 1
            continue
        if start is not None:   # (a run's trailing dels are its own: they free its values)
            if count >= 2:
                runs.append((start, index))
            start = None
        if line is not None and line.target is not None and line.shape:
            start, shape, count = index, line.shape, 1
    return runs


def _names_read(lines):
    names = set()
    for code, _ in lines:
        names.update(n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name))
    return names


def _segment(name, lines, statements, later):
    """(the caller's lines, the segment function's source) for one run."""
    params, assigned, body, dropped = [], set(), [], []
    for (_, comment), line in zip(lines, statements):
        for read in line.reads if line.target is not None else ():
            if read not in assigned and read not in params:
                params.append(read)
        if line.target is None:   # del: the segment's own values go here, the caller's after
            own = [n for n in line.reads if n in assigned]
            dropped += [n for n in line.reads if n in params or n not in assigned]
            if own:
                body.append((f"del {', '.join(own)}", ""))
            continue
        assigned.add(line.target)
        body.append((line.code, comment))
    outputs = [n for n in _ordered(statements) if n in later]
    returned = ", ".join(outputs)
    header = f"def {name}({', '.join(['xp'] + params)}):"
    text = "\n".join([header] + [f"    {c:<48}  # {m}" if m else f"    {c}" for c, m in body]
                     + [f"    return {returned}"]) + "\n"
    ops = Counter(m.split("  ")[0].split(":")[0] for _, m in body if m)
    call = [(f"{returned} = run_fused({name}, {', '.join(['xp'] + params)})",
             f"{sum(ops.values())} elementwise lines as one kernel where xp fuses: "
             + ", ".join(f"{op} x{n}" if n > 1 else op for op, n in ops.items()))]
    dropped = [n for n in dict.fromkeys(dropped) if n not in outputs]
    if dropped:
        call.append((f"del {', '.join(dropped)}", ""))
    return call, text


def _ordered(statements):
    return list(dict.fromkeys(s.target for s in statements if s.target is not None))


# ---------------------------------------------------------------------- running
def run_fused(segment, xp, *args):
    """``segment(xp, *args)``, as one kernel where ``xp`` has ``fuse`` (CuPy)."""
    runners = segment.__dict__.setdefault("runners", {})
    runner = runners.get(xp)
    if runner is not None:
        return runner(*args)
    plain = _plain(segment, xp)
    fuse = getattr(xp, "fuse", None)
    if fuse is None:
        runners[xp] = plain
        return plain(*args)
    try:
        fused = fuse(kernel_name=f"minigrad{segment.__name__}")(plain)
        result = fused(*args)
    except Exception:   # what cupy.fuse cannot trace or compile runs unfused, for good
        runners[xp] = plain
        return plain(*args)
    expected = plain(*args)
    runners[xp] = fused if _same_kinds(result, expected) else plain
    return expected


def _plain(segment, xp):
    def plain(*args):
        return segment(xp, *args)
    return plain


def _same_kinds(result, expected):
    """Do the fused results have the unfused ones' dtypes and shapes?"""
    if isinstance(expected, tuple):
        return isinstance(result, tuple) and len(result) == len(expected) \
            and all(_same_kinds(r, e) for r, e in zip(result, expected))
    return getattr(result, "dtype", None) == getattr(expected, "dtype", None) \
        and getattr(result, "shape", None) == getattr(expected, "shape", None) \
        and type(result) is type(expected)
