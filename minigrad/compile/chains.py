"""Chains of elementwise ops in the array backward: one product instead of a call per op.

In ``50 x (y * 0.9, y + 0.1, tanh, sin)`` every op's gradient line is the gradient above it
times a local factor that reads only forward values::

    g7 = xp.multiply(g8, xp.cos(v7))                           # sin: self: grad * cos(self)
    g6 = xp.multiply(g7, xp.subtract(s0, xp.multiply(v7, v7)))  # tanh: ...

On small arrays a numpy call costs its dispatch (~1 us for 16 elements, the arithmetic is a
few percent of it), so such a backward costs what its number of calls does: 300 here.  Where
each gradient in between feeds only the next line, the bottom gradient is the top one times
the product of all the factors, and that product needs few calls:

- the factors of one formula are computed in one call over their forward values stacked
  into one array, a row each (one stack serves every formula that reads the same values);
- factor rows of the same count are multiplied together, then multiplied out over the rows
  with one ``xp.multiply.reduce``;
- constant factors (``0.9`` per ``mul``) are multiplied out when the code is generated.

The stack is a temporary of the backward: the forward saves what it saved before.  The
product is taken in another order than op by op, so results differ by rounding (a few ulps
over hundreds of factors).  Where a gradient in between is also read elsewhere (a side input
that needs its own gradient, a branch) the chain ends there and the next one starts.
"""
import ast
import functools
import itertools
import math
import re

import numpy as np

#: chains on arrays up to this many elements (above it the arithmetic, not the calls, is
#: the cost), and a run cut into pieces whose stacks hold up to MAX_STACKED numbers each.
#: Bigger temporaries come from memory the allocator maps fresh from the system on every
#: call: the backward of 50 (tanh, sin) levels, stacked into one array, measured 0.24x the
#: op-by-op lines at 64 elements and 0.47x at 512 in pieces of 16 rows, but 1.1x at 256
#: and 2x at 1,024 in one piece of 50 rows (page faults; with glibc's trimming turned
#: off, 0.45x and 0.8x).
MAX_ELEMENTS = 1024
MAX_STACKED = 8192

#: what a stacked array costs next to one call (concatenating 50 arrays of 16 elements
#: takes about as long as 15 ufunc calls on them)
STACK_COST = 0.3

_VARIABLE = re.compile(r"\b([gv]\d+)\b")   # gradients and forward values in generated code
_ASSIGNED = re.compile(r"g\d+ = ")
_GRAD = re.compile(r"_g\d+$")             # ... in a line's template
_VALUE = re.compile(r"_v\d+$")
_SCALAR = re.compile(r"s\d+$")
_MUL = {"multiply": "mul", "divide": "div", "true_divide": "div"}


class Link:
    """One backward line ``target = source * factor * ... / factor``."""

    def __init__(self, index, calls, comment, target, source, factors, size):
        self.index, self.calls, self.target, self.source = index, calls, target, source
        # factors: [(mul or div, expression over the template's placeholders, the values
        # it reads, its formula (see _describe), the placeholders of those values)]
        self.factors, self.comment = factors, comment
        self.size = size                                # elements of the gradients


def fuse(body, program, dtype, scalars, keep):
    """``body`` (lines ``(code, comment)`` of an array backward) with each long chain of
    links written as one product.  ``dtype``: the program's one float dtype; ``scalars``:
    its Scalars (0-d constants, read and made here); ``keep``: gradient names read outside
    ``body`` (returned, or given), which must stay as they are."""
    if dtype is None:
        return body
    lines = [_Line(code) for code, _ in body]
    links = {}
    for index, (line, (_, comment)) in enumerate(zip(lines, body)):
        link = _link(index, line, comment, program, dtype)
        if link is not None:
            links[index] = link
    replaced, temps = {}, itertools.count()
    for run in _runs(lines, links, keep):
        lines = _Product(run, program, dtype, scalars, temps).lines()
        if lines is not None:
            for link in run:
                replaced[link.index] = []
            replaced[run[0].index] = lines   # where the bottom link was
    out = []
    for index, line in enumerate(body):
        out.extend(replaced.get(index, [line]))
    return out


# ---------------------------------------------------------------------- links
class _Line:
    """A backward line as its template (variables numbered by appearance: ``_g0 =
    xp.multiply(_g1, xp.cos(_v2))``) and its variables (``g7, g8, v7``): the lines of one op
    share a template, analysed once (generating a 200-op chain's backward stays cheap)."""

    def __init__(self, code):
        parts = _VARIABLE.split(code)   # text, variable, text, ..., text
        found = parts[1::2]
        number = {}
        for name in found:
            if name not in number:
                number[name] = f"_{name[0]}{len(number)}"
        self.names = list(number)
        parts[1::2] = [number[name] for name in found]
        self.template = "".join(parts)
        grads = [n for n in found if n[0] == "g"]
        if _ASSIGNED.match(code):
            self.writes, self.reads = grads[:1], grads[1:]
        else:   # another kind of line: its gradients count as read and written (never inner)
            self.writes = self.reads = grads


def _link(index, line, comment, program, dtype):
    """The line as a Link, or None where it is not ``gA = gB * elementwise factors``."""
    shape = _template_link(line.template, dtype)
    if shape is None:
        return None
    source_position, factors, calls = shape
    names, values = line.names, program.values
    target, source = names[0], names[source_position]
    out, into = values[int(source[1:])], values[int(target[1:])]
    if out.shape != into.shape or not _is(out.dtype, dtype) or not _is(into.dtype, dtype) \
            or _size(out.shape) > MAX_ELEMENTS:
        return None
    real = []   # per factor: the names of the values it reads (``_v2`` is names[2])
    for _, _, placeholders, _ in factors:
        real.append([names[int(p[2:])] for p in placeholders])
        for name in real[-1]:
            value = values[int(name[1:])]
            if not _is(value.dtype, dtype) or value.shape not in (out.shape, ()):
                return None
    factors = [(kind, node, reads, formula, placeholders)
               for (kind, node, placeholders, formula), reads in zip(factors, real)]
    return Link(index, calls, comment, target, source, factors, _size(out.shape))


def _is(a, dtype):
    """``a == dtype``, answered without numpy's comparison where they are one object."""
    return a is dtype or a == dtype


@functools.lru_cache(maxsize=4096)
def _template_link(template, dtype):
    """For a line template ``_g0 = <_g1 times/over factors>``: (the source's position, the
    factors as ``(kind, expression, values it reads, formula)``, the line's array
    operations), or None."""
    statement = ast.parse(template).body[0]
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == "_g0"):
        return None
    grads = {n.id for n in ast.walk(statement.value)
             if isinstance(n, ast.Name) and _GRAD.match(n.id)}
    if len(grads) != 1 or "_g0" in grads:
        return None
    source = grads.pop()
    factors = _factors(statement.value, source)
    if factors is None or not all(_elementwise(f, dtype) for _, f in factors):
        return None
    calls = _calls(statement)
    return (int(source[2:]), [(kind, factor) + _describe(factor) for kind, factor in factors],
            calls)


def _factors(node, grad):
    """``[(kind, factor)]`` where ``node`` is ``grad`` times/over the factors, else None."""
    if isinstance(node, ast.Name) and node.id == grad:
        return []
    kind, operands = _arithmetic(node)
    if kind == "neg":
        inner = _factors(operands[0], grad)
        return None if inner is None else inner + [("mul", ast.Constant(-1))]
    if kind is None:
        return None
    left, right = operands
    if _reads(left, grad):
        inner = _factors(left, grad)
        return None if inner is None else inner + [(kind, right)]
    if kind == "mul":
        inner = _factors(right, grad)
        return None if inner is None else inner + [(kind, left)]
    return None   # grad in a denominator: not linear


def _arithmetic(node):
    """(``mul``/``div``/``neg``, operands) for ``a * b``, ``xp.multiply(a, b)``, ``-a``..."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return ("mul" if isinstance(node.op, ast.Mult) else "div"), [node.left, node.right]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "neg", [node.operand]
    name = _xp_name(node)
    if name in _MUL and len(node.args) == 2 and not node.keywords:
        return _MUL[name], node.args
    if name == "negative" and len(node.args) == 1 and not node.keywords:
        return "neg", node.args
    return None, None


def _reads(node, name):
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _xp_name(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "xp":
        return node.func.attr
    return None


def _elementwise(node, dtype):
    """A factor that computes a ``dtype`` array element by element from forward values
    (whose dtypes and shapes _link checks), numbers, and ufuncs: computed over stacked
    values it gives one row per op."""
    if isinstance(node, ast.Name):
        return bool(_VALUE.match(node.id) or _SCALAR.match(node.id))  # (Scalars: 0-d, dtype)
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd)) and _elementwise(node.operand, dtype)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)) \
            and _elementwise(node.left, dtype) and _elementwise(node.right, dtype)
    name = _xp_name(node)
    if name is None or node.keywords or not _float_ufunc(name, len(node.args), dtype):
        return False
    return all(_elementwise(a, dtype) for a in node.args)


@functools.lru_cache(maxsize=None)
def _float_ufunc(name, nargs, dtype):
    """numpy's ufunc ``name`` takes ``nargs`` arrays of ``dtype`` to one of ``dtype`` (not a
    comparison, not an integer result)."""
    ufunc = getattr(np, name, None)
    if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1 or ufunc.nin != nargs:
        return False
    try:
        return ufunc.resolve_dtypes((dtype,) * nargs + (None,))[-1] == dtype
    except (TypeError, ValueError):
        return False


def _size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


# ---------------------------------------------------------------------- runs
def _runs(scans, links, keep):
    """The chains of links, bottom link first: a link's source is the next one's target,
    a gradient assigned once and read once, by that link alone."""
    assigned, reads = {}, {}
    for scan in scans:
        for name in scan.writes:
            assigned[name] = assigned.get(name, 0) + 1
        for name in scan.reads:
            reads[name] = reads.get(name, 0) + 1
    producer = {}
    for link in links.values():
        producer.setdefault(link.target, []).append(link)

    def inner(name):   # a gradient only its producer writes and only one link reads
        return (name not in keep and assigned.get(name) == 1 and reads.get(name) == 1
                and len(producer.get(name, ())) == 1)

    consumed = {link.source for link in links.values() if inner(link.source)}
    runs = []
    for link in links.values():
        if link.target in consumed:
            continue   # not a bottom: the link below it starts the run
        run = [link]
        while inner(run[-1].source):
            run.append(producer[run[-1].source][0])
        step = max(2, MAX_STACKED // max(run[0].size, 1))
        runs += [run[i:i + step] for i in range(0, len(run), step) if len(run[i:i + step]) > 1]
    return runs


# ---------------------------------------------------------------------- the product
class _Product:
    """The lines that compute a run's bottom gradient: stacks, factor rows, the product."""

    def __init__(self, run, program, dtype, scalars, temps):
        self.run, self.program, self.dtype, self.scalars = run, program, dtype, scalars
        self.lines_out, self.stacks, self.temps = [], {}, temps
        self.calls = 0   # array operations in lines_out

    def lines(self):
        """The lines, or None where they would not save calls, or where the constants under-
        or overflow when multiplied out."""
        constants = []   # (kind, 0-d array)
        terms = {}       # rows -> [(kind, factor expression)]
        notes = []
        for (kind, _, _), members in self._groups().items():
            (first_factor, names, _), first_link = members[0]
            if not names:
                # one formula without values: one number (a member's scalar names a value)
                constants += [(kind, self._evaluate(first_factor))] * len(members)
                notes.append(f"{first_link.comment} x{len(members)}")
                continue
            rows, node = self._rows(members)
            name = self._emit(node, f"{first_link.comment}  (x{len(members)}"
                                    + (", a row each)" if rows > 1 else ")"))
            terms.setdefault(rows, []).append((kind, ast.Name(name, ast.Load())))
        value = _fold(constants, self.dtype)
        if value is None:
            return None
        folded = None
        if value != 1:
            folded = self.scalars.constant(float(value), self.dtype)
            terms.setdefault(1, []).append(("mul", folded))
        comment = f"{len(self.run)} chained ops: grad times the factors above"
        if notes:
            comment += f"; {', '.join(notes)} folded" + (f" into {folded.id}" if folded else "")
        expr = self._product(ast.Name(self.run[-1].source, ast.Load()), terms)
        self.lines_out.append((f"{self.run[0].target} = {ast.unparse(expr)}", comment))
        self.calls += _calls(expr)
        return self.lines_out if self._pays() else None

    def _groups(self):
        """Factors by (kind, formula, shapes of the values it reads), each
        ``[((factor, values it reads, their placeholders in it), link)]``."""
        groups, identity = {}, []
        for link in self.run:
            if not link.factors:
                identity.append(link)
            for kind, factor, names, formula, placeholders in link.factors:
                key = (kind, formula, tuple(self._value(n).shape for n in names))
                groups.setdefault(key, []).append(((factor, names, placeholders), link))
        if identity:   # factor 1: nothing to multiply, named in the comment
            groups[("mul", "1", ())] = [((ast.Constant(1), [], []), link) for link in identity]
        return groups

    def _rows(self, members):
        """(rows, expression) of the members' factors: over their values stacked where the
        values differ from member to member, ``xp.power`` where every member's are the same."""
        names = [n for (_, n, _), _ in members]
        first, _, placeholders = members[0][0]
        if len(members) == 1 or all(n == names[0] for n in names):
            factor = _Rename(dict(zip(placeholders, names[0]))).visit(_copy(first))
            return 1, factor if len(members) == 1 else \
                _call("power", factor, ast.Constant(len(members)))
        mapping = {}
        for placeholder, column in zip(placeholders, zip(*names)):
            mapping[placeholder] = column[0] if len(set(column)) == 1 else self._stack(column)
        return len(members), _Rename(mapping).visit(_copy(first))

    def _stack(self, column):
        name = self.stacks.get(column)
        if name is None:
            items = ", ".join(column)
            shape = self._value(column[0]).shape
            code, calls = (f"xp.concatenate([{items}]).reshape({(len(column),) + shape})", 2) \
                if shape else (f"xp.stack([{items}])", 1)
            name = self.stacks[column] = self._emit(
                code, f"forward values of {len(column)} chained ops below, a row each", calls)
        return name

    def _product(self, grad, terms):
        """``grad`` times the terms (``{rows: [(kind, factor)]}``).  The terms with as many
        rows are combined row by row first, then multiplied out over the rows: a row holds
        the factors of one repetition of the chain, which keeps factors that cancel (``exp``
        then ``log``) together, as the op-by-op product does."""
        expr = grad
        for rows, factors in sorted(terms.items(), reverse=True):
            if rows == 1:
                for kind, factor in factors:
                    expr = _call("multiply" if kind == "mul" else "divide", expr, factor)
                continue
            factors = sorted(factors, key=lambda f: f[0] != "mul")   # numerators first
            row, kind = factors[0][1], factors[0][0]
            for other_kind, factor in factors[1:]:
                row = _call("multiply" if other_kind == kind else "divide", row, factor)
            # (``xp.prod`` is the same reduction behind a Python wrapper: ~5 us more)
            reduced = ast.Call(ast.Attribute(_xp("multiply"), "reduce", ast.Load()), [row],
                               [ast.keyword("axis", ast.Constant(0))])
            expr = _call("multiply" if kind == "mul" else "divide", expr, reduced)
        return expr

    def _emit(self, node, comment, calls=None):
        """A line ``c<n> = node`` (an expression, or code making ``calls`` array operations)."""
        name = f"c{next(self.temps)}"
        if isinstance(node, str):
            code = node
            self.calls += calls
        else:
            code = ast.unparse(node)
            self.calls += _calls(node)
        self.lines_out.append((f"{name} = {code}", comment))
        return name

    def _evaluate(self, factor):
        """A factor of numbers and Scalars, as a 0-d array of the dtype."""
        names = {"xp": np}
        for node in ast.walk(factor):
            if isinstance(node, ast.Name) and _SCALAR.match(node.id):
                names[node.id] = np.asarray(self.scalars.value_of(node.id), self.dtype)
        code = compile(ast.Expression(ast.fix_missing_locations(_copy(factor))), "<chain>", "eval")
        return np.asarray(eval(code, {"__builtins__": {}}, names), self.dtype)  # noqa: S307

    def _pays(self):
        """Fewer calls than the links made (a stacked array counted as STACK_COST calls)."""
        before = sum(link.calls for link in self.run)
        after = self.calls + STACK_COST * sum(len(column) for column in self.stacks)
        return after < before

    def _value(self, name):
        return self.program.values[int(name[1:])]


def _fold(constants, dtype):
    """The product of constant factors ``[(kind, 0-d array)]`` in ``dtype``, or None where a
    step leaves the normal numbers (the op-by-op product, with the gradient between, might
    not)."""
    # (numpy scalars of the dtype: the arithmetic of its 0-d arrays, without their calls)
    value, tiny = np.dtype(dtype).type(1), np.finfo(dtype).tiny
    with np.errstate(all="ignore"):
        for kind, factor in constants:
            factor = factor[()]
            value = value * factor if kind == "mul" else value / factor
            if not math.isfinite(value) or abs(value) < tiny:
                return None
    return value


def _describe(factor):
    """(the forward values ``factor`` reads, in order, its formula without them): factors
    of one formula have one formula, their values numbered by appearance."""
    names, formula = [], []
    for node in ast.walk(factor):
        if isinstance(node, ast.Name):
            if _VALUE.match(node.id):
                if node.id not in names:
                    names.append(node.id)
                formula.append(names.index(node.id))
            else:
                formula.append(node.id)
        elif isinstance(node, ast.Constant):
            formula.append((type(node.value), node.value))
        elif isinstance(node, ast.Attribute):
            formula.append(node.attr)
        elif not isinstance(node, ast.expr_context):
            formula.append(type(node).__name__)
    return names, tuple(formula)


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping   # name -> name

    def visit_Name(self, node):
        return ast.Name(self.mapping[node.id], ast.Load()) if node.id in self.mapping else node


def _copy(node):
    return ast.parse(ast.unparse(node), mode="eval").body


def _xp(name):
    return ast.Attribute(ast.Name("xp", ast.Load()), name, ast.Load())


def _call(name, *args):
    return ast.Call(_xp(name), list(args), [])


def _calls(tree):
    """Array operations in a line (an operator on arrays is a ufunc call too)."""
    return sum(isinstance(n, (ast.Call, ast.BinOp, ast.UnaryOp)) for n in ast.walk(tree))
