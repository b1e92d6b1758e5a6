"""From a traced Program to Python source: one forward, one backward per gradient pattern.

Every line comes from derivatives.yaml: the forward line of an op is its `forward:`
expression with the traced arguments substituted (constants folded, `np.` replaced
by the inputs' array namespace `xp`), and the backward line of an input is its
formula with the saved names replaced by the forward's variables, metadata and
scalar arguments replaced by the traced constants.  Calls a formula makes to other
ops (`cos(self)`, `expand(grad, shape)`) are inlined from their own `forward:`
when that is plain substitution.  `sum_to(x, shape)` disappears where the shapes
already match.  Formulas run only for inputs that need a gradient and only when a
gradient reaches the op (None patterns are specialized away), and the forward
keeps only the arrays the backward reads.
"""
import ast
import math
import re
import warnings

import numpy as np

from minigrad._generated.compile_table import OPS
from minigrad.compile import chains, fusion
from minigrad.compile.helpers import write_out
from minigrad.compile.losses import backward_line, forward_line, fused_losses
from minigrad.compile.ones import skip_ones
from minigrad.compile.pool import pool_gradients
from minigrad.compile.small import ufunc_calls
from minigrad.autograd.support import dtype_of, ndim_of, shape_of

_LITERAL_TYPES = (bool, int, str, type(None))


class Source:
    """Generated lines with their comments; ``text()`` is what ``source()`` shows."""

    def __init__(self, header):
        self.lines = [header]
        self.shapes = None   # the variables' shapes, where the function has a fused form
        self._fused = None

    def emit(self, code, comment=""):
        self.lines.append((code, comment))

    def text(self):
        out = [self.lines[0]]
        width = max([len(c) for c, _ in self.lines[1:] if len(c) <= 72] + [0]) + 4
        for code, comment in self.lines[1:]:
            out.append(f"    {code:<{width - 2}}  # {comment}" if comment else f"    {code}")
        return "\n".join(out) + "\n"

    def fused(self):
        """(the segment functions' source, the fused form's): the same lines with each run
        of elementwise lines in a function of its own (compile/fusion.py).  Made when
        another array library than numpy first runs the function, or source() shows it."""
        if self._fused is None:
            name, params = re.match(r"def (\w+)\((.*)\):", self.lines[0]).groups()
            lines = [line for line in self.lines[1:] if line[0] != _dispatch(name, params)]
            found = fusion.fused_form(lines, name, self.shapes)
            lines, functions = found if found is not None else (lines, [])
            fused = Source(f"def {name}_fused({params}):")
            fused.lines.extend(lines)
            self._fused = "\n".join(functions), fused.text()
        return self._fused


def add_fused_form(src, shapes):
    """Send array libraries other than numpy to ``src``'s fused form (``Source.fused``):
    one line after ``xp = ...``, the only cost on numpy.  ``shapes``: the variables'
    shapes known from the program."""
    name, params = re.match(r"def (\w+)\((.*)\):", src.lines[0]).groups()
    at = next(i for i, line in enumerate(src.lines) if i and line[0].startswith("xp = "))
    src.lines.insert(at + 1, (_dispatch(name, params), "CuPy and the like: the fused form"))
    src.shapes = shapes


def _dispatch(name, params):
    return f"if xp is not np: return {name}_fused({params})"


def _shapes(program, gradients=False):
    """Shapes of the generated variables: each value's ``v``, (its gradient's ``g``)."""
    shapes = {var(vid): tuple(value.shape) for vid, value in enumerate(program.values)}
    if gradients:
        shapes.update({gvar(vid): tuple(value.shape) for vid, value in enumerate(program.values)})
    return shapes


class Constants:
    """Values that are not Python literals get a name in the generated module's globals."""

    def __init__(self):
        self.values = {}

    def node(self, value):
        if _is_literal(value):
            return _literal(value)
        for name, existing in self.values.items():
            if existing is value:
                return ast.Name(name, ast.Load())
        name = f"_k{len(self.values)}"
        self.values[name] = value
        return ast.Name(name, ast.Load())


def _literal(value):
    if isinstance(value, tuple):
        return ast.Tuple([_literal(v) for v in value], ast.Load())
    return ast.Constant(value)


def _is_literal(value):
    if isinstance(value, _LITERAL_TYPES):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, tuple):
        return all(_is_literal(v) for v in value)
    return False


def var(vid):
    return f"v{vid}"


def gvar(vid):
    return f"g{vid}"


# ---------------------------------------------------------------------- forward
def forward_source(program, constants, saved):
    """``def forward(<inputs>): ... return (<outputs>), (<saved>)``."""
    inputs = unique_inputs(program)
    src = Source(f"def forward({', '.join(var(v) for v in inputs)}):")
    src.emit(f"xp = namespace_of({var(inputs[0])})" if inputs else "xp = np",
             "the array namespace of the inputs (numpy, CuPy, ...)")
    scalars = Scalars(constants)
    big = is_big(program)
    templates, comments = {}, {}
    fused, replaced = fused_losses(program) if uniform_float_dtype(program) is not None \
        else ({}, ())
    for index, record in enumerate(program.records):
        if index in fused:
            src.emit(forward_line(record, *fused[index]),
                     "log_softmax, gather, mean: one call (compile/losses.py)")
            continue
        if index in replaced:
            continue
        key = (record.func_name, args_key(record, program))
        template = templates.get(key)
        if template is None:
            places = Placeholders(program)
            mapping = {name: places.arg_node(ref, constants) for name, ref in record.args.items()}
            tree = scalars.rewrite(inline_forward(record.op, mapping, constants), places)
            template = templates[key] = Placeholders.template(ast.unparse(
                tree if big else ufunc_calls(tree, places.shapes, places.dtypes)))
        targets = [var(v) if v is not None else "_" for v in record.outputs]
        if record.op.outputs[0].type == "Tensor[]":
            lhs = ", ".join(targets) + ("," if len(targets) == 1 else "")
        else:
            lhs = ", ".join(targets)
        # the placeholders are the argument values in order (Placeholders.arg_node's walk
        # is ref_vids's), so a template made for another record is filled without a tree
        code = template.format(*[var(v) for v in ref_vids(record.args.values())])
        comment = comments.get((id(record.op), record.where))
        if comment is None:   # (a chain's ops come from a few lines of the user's code)
            comment = comments[(id(record.op), record.where)] = _forward_comment(record)
        src.emit(f"{lhs} = {code}", comment)
    outs = output_vids(program)
    returned = [var(v) for v in outs] + [var(v) for v in saved]
    if big:
        src.lines[2:] = reuse_buffers(src.lines[2:], returned, prefix="v")
    src.emit(f"return ({_tuple(var(v) for v in outs)}), ({_tuple(var(v) for v in saved)})")
    scalars.declare(src, 2)
    add_fused_form(src, {**_shapes(program), **scalars.shapes()})
    return src


def _tuple(names):
    names = list(names)
    return ", ".join(names) + ("," if len(names) == 1 else "")


def _forward_comment(record):
    op = record.op
    yaml = f"derivatives.yaml:{op.line}" if op.line else "(comparison: no gradient)"
    path, line = record.where
    return f"{op.name}  {yaml}  <- {_short(path)}:{line}"


def _short(path):
    return path.rsplit("/", 1)[-1]


def unique_inputs(program):
    seen = []
    for _, _, vid in program.inputs:
        if vid not in seen:
            seen.append(vid)
    return seen


def output_vids(program):
    """The op-made values the function returns, once each, in order; then the new values
    of buffers updated in place (``Program.writebacks``), which the runtime writes back."""
    found = []

    def walk(tree):
        kind = tree[0]
        if kind == "tensor" and program.values[tree[1]].producer[0] != "input":
            if tree[1] not in found:
                found.append(tree[1])
        elif kind in ("seq", "dict"):
            for item in tree[-1]:
                walk(item)
    walk(program.output_tree)
    for _, vid in program.writebacks:
        if vid not in found:
            found.append(vid)
    return found


def arg_node(ref, constants):
    kind = ref[0]
    if kind == "value":
        return ast.Name(var(ref[1]), ast.Load())
    if kind == "list":
        return ast.List([arg_node(r, constants) for r in ref[1]], ast.Load())
    if kind == "tuple":
        return ast.Tuple([arg_node(r, constants) for r in ref[1]], ast.Load())
    return constants.node(ref[1])


class Placeholders:
    """Stand-in names for traced variables, so one generated line serves every record of the
    same op with the same constants and shapes (a 200-op chain generates ~4 distinct lines)."""

    PATTERN = re.compile(r"_P(\d+)_")

    def __init__(self, program):
        self.program, self.real, self.shapes, self.dtypes = program, [], {}, {}

    def name(self, real, vid):
        placeholder = f"_P{len(self.real)}_"
        self.real.append(real)
        value = self.program.values[vid]
        self.shapes[placeholder] = value.shape
        # a gradient has its value's dtype where every float value shares one dtype
        # (incoming gradients are cast to it: see CompiledBackward.apply)
        if not real.startswith("g") or uniform_float_dtype(self.program) is not None:
            self.dtypes[placeholder] = value.dtype
        return placeholder

    def arg_node(self, ref, constants):
        kind = ref[0]
        if kind == "value":
            return ast.Name(self.name(var(ref[1]), ref[1]), ast.Load())
        if kind in ("list", "tuple"):
            items = [self.arg_node(r, constants) for r in ref[1]]
            return (ast.List if kind == "list" else ast.Tuple)(items, ast.Load())
        return constants.node(ref[1])

    @classmethod
    def template(cls, code):
        """``code`` as a format string with a field per placeholder, made once per template:
        filling it is then one ``str.format`` call (a 200-op chain fills ~400 lines)."""
        escaped = code.replace("{", "{{").replace("}", "}}")
        return cls.PATTERN.sub(lambda m: "{" + m.group(1) + "}", escaped)


def ref_key(ref, program):
    """What of an argument shapes its generated line: kinds, constants, shapes, dtypes."""
    kind = ref[0]
    if kind == "value":
        return value_keys(program)[ref[1]]
    if kind in ("list", "tuple"):
        return (kind, tuple(ref_key(r, program) for r in ref[1]))
    value = ref[1]
    if _is_literal(value):
        return ("c", type(value).__name__, repr(value))
    return ("k", id(value))


def value_keys(program):
    """``ref_key`` of every value, by vid: made once per program (every line's template key
    reads them, forward and backward)."""
    keys = getattr(program, "_value_keys", None)
    if keys is None or len(keys) != len(program.values):
        keys = program._value_keys = [("v", v.shape, v.dtype.str, v.requires_grad)
                                      for v in program.values]
    return keys


def args_key(record, program):
    """The ``ref_key`` of each argument of ``record``, with its name (made once per record:
    the forward's template key and each of its formulas' read it)."""
    found = getattr(program, "_args_keys", None)
    if found is None:
        found = program._args_keys = {}
    key = found.get(id(record))
    if key is None:
        keys = value_keys(program)
        key = found[id(record)] = tuple([
            (name, keys[ref[1]] if ref[0] == "value" else ref_key(ref, program))
            for name, ref in record.args.items()])
    return key


# ---------------------------------------------------------------------- inlining
def inline_forward(op, mapping, constants):
    """The op's forward expression with its arguments replaced by ``mapping`` (ast nodes)."""
    tree = ast.parse(op.forward, mode="eval").body
    full = {}
    for a in op.args:
        if a.name in mapping:
            full[a.name] = mapping[a.name]
        else:
            full[a.name] = constants.node(a.default)
    return fold(_Substitute(full).visit(tree))


class _Substitute(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return _copy(self.mapping[node.id])
        if node.id == "np":
            return ast.Name("xp", ast.Load())
        return node


def _copy(node):
    """A fresh copy of ``node``, the tree parsing its source gives (``-1`` is a minus and
    a number): names, plain numbers and tuples of them built directly (a template's
    substitutions), anything else through its source."""
    if isinstance(node, ast.Name):
        return ast.Name(node.id, ast.Load())
    if isinstance(node, ast.Constant) and _plain(node.value):
        return ast.Constant(node.value)
    if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load) \
            and not any(isinstance(e, ast.Starred) for e in node.elts):
        return type(node)([_copy(e) for e in node.elts], ast.Load())
    return ast.parse(ast.unparse(node), mode="eval").body


def _plain(value):
    """A constant its source reads back as one number, string, bool or None."""
    if type(value) in (int, float):
        return math.isfinite(value) and math.copysign(1, value) > 0
    return type(value) in (bool, str, type(None))


def fold(tree):
    """Fold what the traced constants decide: ``a if alpha == 1 else b`` with alpha=1 is ``a``.
    (No source locations: the trees are only unparsed; ``_evaluate`` adds them where it
    compiles.)"""
    return _Fold().visit(tree)


class _Fold(ast.NodeTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        known, value = _evaluate(node.test)
        if known:
            return node.body if value else node.orelse
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        known, value = _evaluate(node)
        return ast.Constant(value) if known and isinstance(value, bool) else node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        known, value = _evaluate(node)
        return ast.Constant(value) if known and isinstance(value, bool) else node


_SAFE_NAMES = {"None": None, "True": True, "False": False, "isinstance": isinstance,
               "len": len, "tuple": tuple, "int": int, "float": float, "bool": bool}


def _evaluate(node):
    """(True, value) when ``node`` only reads literals."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id not in _SAFE_NAMES:
            return False, None
        if isinstance(sub, (ast.Attribute, ast.Subscript)):
            return False, None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)   # `x is None` folded: as intended
            code = compile(ast.fix_missing_locations(ast.Expression(node)), "<fold>", "eval")
        return True, eval(code, {"__builtins__": {}}, dict(_SAFE_NAMES))
    except Exception:  # noqa: BLE001 - not foldable: keep it for run time
        return False, None


# ---------------------------------------------------------------------- backward
class Backward:
    """The backward of a program for one pattern of defined output gradients."""

    tensors = False   # formulas over arrays (F = array_ops, F calls inlined into numpy code)

    def __init__(self, program, constants, live_outputs):
        self.program, self.constants = program, constants
        self.live = {}                       # vid -> gradient defined so far
        for vid, alive in zip(output_vids_requiring_grad(program), live_outputs):
            self.live[vid] = alive
        self.shapes = {}                     # placeholder -> shape, of the formula being built
        self.src = None
        self.reads = {}                      # forward variables read (vids, as keys)
        self.templates = {}
        self.scalars = Scalars(constants)
        self.big = is_big(program)

    def build(self, layout=None):
        """``layout``: (input vids, saved vids) of the all-gradients backward, which every
        pattern's backward unpacks in the same order (the node holds that one set)."""
        program = self.program
        outs = output_vids_requiring_grad(program)
        src = Source("def backward(grads, inputs, saved):")
        self.body = []
        self.temp = 0
        fused, replaced = ({}, ()) if self.tensors or uniform_float_dtype(program) is None \
            else fused_losses(program)
        for index in range(len(program.records) - 1, -1, -1):
            if index in fused:
                self._fused_loss(program.records[index], *fused[index])
            elif index not in replaced:
                self._record(program.records[index])
        reads = sorted(self.reads)
        input_vids = [v for v in unique_inputs(program) if v in self.reads]
        saved_vids = [v for v in reads if v not in input_vids]
        if layout is not None:
            input_vids, saved_vids = layout
        self.input_vids, self.saved_vids = input_vids, saved_vids
        src.emit(f"{_tuple(gvar(v) for v in outs)} = grads", "gradients of the outputs (None: not used)")
        if input_vids:
            src.emit(f"{_tuple(var(v) for v in input_vids)} = inputs",
                     "inputs the formulas read (version-checked)")
        if saved_vids:
            src.emit(f"{_tuple(var(v) for v in saved_vids)} = saved", "saved by the forward")
        first = gvar(outs[0]) if outs else "None"
        src.emit(f"xp = namespace_of({first})", "the array namespace of the gradients")
        result = [gvar(v) if self.live.get(v) else "None" for v in edge_vids(program)]
        if not self.big:   # long elementwise chains: one product, not a call per op
            self.body = chains.fuse(self.body, program, uniform_float_dtype(program),
                                    self.scalars, set(result) | {gvar(v) for v in outs})
        if self.big:
            self.body = skip_ones(reuse_buffers(self.body, result))
            self.body = pool_gradients(self.body, result)
        if not self.tensors:
            self.body = write_out(self.body, program.values,
                                  uniform_float_dtype(program) is not None)
        for code, comment in self.body:
            src.emit(code, comment)
        src.emit(f"return ({_tuple(result)})")
        self.scalars.declare(src, len(src.lines) - len(self.body) - 1)
        if not self.tensors:
            add_fused_form(src, {**_shapes(program, gradients=True), **self.scalars.shapes()})
        self.src = src
        return self

    def _record(self, record):
        op = record.op
        live = [v is not None and self.live.get(v, False) for v in record.outputs]
        if not any(live) or not op.formulas:
            return
        for formula in op.formulas:
            ref = record.args.get(formula.input)
            targets = self._targets(ref)
            if not targets:
                continue
            expr = self._formula(record, formula, live)
            comment = f"{op.name}: {formula.input}: {formula.text}  derivatives.yaml:{op.line}"
            if ref[0] == "list":
                name = f"t{self.temp}"
                self.temp += 1
                self.body.append((f"{name} = {expr}", comment))
                for position, vid in targets:
                    self._accumulate(vid, f"{name}[{position}]", "")
            else:
                self._accumulate(targets[0][1], expr, comment)

    def _fused_loss(self, mean, softmax, gather):
        """mean(gather(log_softmax(x))): x's gradient from the mean's in one call (losses.py)."""
        if not self.live.get(mean.outputs[0]):
            return
        vid, code = backward_line(self.program, mean, softmax, gather)
        for read in re.findall(r"\bv(\d+)\b", code):
            self.reads[int(read)] = None
        lines = ",".join(str(r.op.line) for r in (mean, gather, softmax))
        self._accumulate(vid, code, f"mean, gather, log_softmax: one call (compile/losses.py)  "
                                    f"derivatives.yaml:{lines}")

    def _targets(self, ref):
        if ref is None:
            return []
        values = self.program.values
        if ref[0] == "value":
            return [(0, ref[1])] if values[ref[1]].requires_grad else []
        if ref[0] == "list":
            return [(i, r[1]) for i, r in enumerate(ref[1])
                    if r[0] == "value" and values[r[1]].requires_grad]
        return []

    def _accumulate(self, vid, code, comment):
        name = gvar(vid)
        if self.live.get(vid):
            total = f"{name} + {code}" if self.tensors or self.big else f"xp.add({name}, {code})"
            self.body.append((f"{name} = {total}", comment))
        else:
            self.body.append((f"{name} = {code}", comment))
            self.live[vid] = True

    def _formula(self, record, formula, live):
        """The formula's code for this record: from a template shared by the records that
        differ only in their variables (made from the first such record's tree, then filled
        with each one's names: ``_placeholder_names``)."""
        program = self.program
        key = (record.func_name, formula.input, tuple(live), args_key(record, program),
               tuple([None if v is None else value_keys(program)[v] for v in record.outputs]))
        names = self._placeholder_names(record, live)
        recipe = self.templates.get(key)
        if recipe is None:
            places = Placeholders(program)
            self.shapes = places.shapes
            code = ast.unparse(self._formula_tree(record, formula, live, places))
            # the forward values it reads: placeholders of values (a ``v`` name)
            reads = sorted({int(n) for n in Placeholders.PATTERN.findall(code)
                            if places.real[int(n)][0] == "v"})
            recipe = (Placeholders.template(code), reads)
            if places.real == names:   # the two walks name the same slots in the same order
                self.templates[key] = recipe
            else:   # (never seen: then no template is shared, each record makes its own)
                names = places.real
        template, reads = recipe
        for position in reads:
            self.reads[int(names[position][1:])] = None
        return template.format(*names)

    def _placeholder_names(self, record, live):
        """The names ``_formula_tree`` gives its placeholders, in its order: the argument
        values (op order), then each output's value and its gradient where live, then the
        other values and live gradients of a list output."""
        op, outputs, args = record.op, record.outputs, record.args
        names = []
        for a in op.args:
            ref = args.get(a.name)
            if ref is not None and ref[0] == "value":
                names.append(f"v{ref[1]}")
            elif ref is not None and ref[0] != "const":
                names += [var(v) for v in ref_vids([ref])]
        for vid, alive in zip(outputs[:len(op.outputs)], live):
            if vid is not None:
                names.append(f"v{vid}")
                if alive:
                    names.append(f"g{vid}")
        if op.outputs[0].type == "Tensor[]":
            names += [var(v) for v in outputs[1:]]
            names += [gvar(v) for v, alive in zip(outputs[1:], live[1:])
                      if v is not None and alive]
        return names

    def _formula_tree(self, record, formula, live, places):
        """The rewritten formula (placeholders for variables)."""
        op = record.op
        names = {}
        for a in op.args:
            ref = record.args.get(a.name)
            local = "self_" if a.name == "self" else a.name
            if ref is not None:
                names[local] = places.arg_node(ref, self.constants)
                names[f"self._saved_{a.name}"] = names[local] \
                    if ref[0] == "const" or a.type == "Index" else None
                if a.type.startswith("Tensor"):
                    for attr in ("shape", "ndim", "dtype"):
                        if f"_saved_{a.name}_{attr}" in formula.code:   # (only those read)
                            names[f"self._saved_{a.name}_{attr}"] = self._metadata(ref, attr)
        grads = []
        for position, (out, vid) in enumerate(zip(op.outputs, record.outputs)):
            if vid is not None:
                names[out.name] = ast.Name(places.name(var(vid), vid), ast.Load())
                for attr in ("shape", "ndim", "dtype"):
                    if f"_saved_{out.name}_{attr}" in formula.code:
                        names[f"self._saved_{out.name}_{attr}"] = self._metadata(("value", vid),
                                                                                 attr)
            grads.append(self._grad_node(vid, live[position], op, places))
        if op.outputs[0].type == "Tensor[]":
            # a list output: every element is one value
            names[op.outputs[0].name] = ast.List(
                [names[op.outputs[0].name]] + [ast.Name(places.name(var(v), v), ast.Load())
                                               for v in record.outputs[1:]], ast.Load())
            for position, vid in enumerate(record.outputs):
                if position:
                    grads.append(self._grad_node(vid, live[position], op, places))
        tree = ast.parse(formula.code, mode="eval").body
        tree = fold(_FormulaRewrite(self, names, grads, op).visit(tree))
        if self.tensors:
            return tree
        tree = self.scalars.rewrite(tree, places)
        return tree if self.big else ufunc_calls(tree, places.shapes, places.dtypes)

    def _grad_node(self, vid, live, op, places):
        if vid is not None and live:
            return ast.Name(places.name(gvar(vid), vid), ast.Load())
        if vid is not None and op.fills_undefined and self.program.values[vid].dtype.kind == "f":
            value = self.program.values[vid]
            zeros = "zeros_tensor" if self.tensors else "xp.zeros"
            return ast.parse(f"{zeros}({value.shape!r}, dtype={self._const_src(value.dtype)})",
                             mode="eval").body
        return ast.Constant(None)

    def _const_src(self, value):
        return ast.unparse(self.constants.node(value))

    def _metadata(self, ref, attr):
        if ref[0] == "value":
            value = self.program.values[ref[1]]
            return self.constants.node(getattr(value, attr))
        if ref[0] == "list":
            return self.constants.node(tuple(getattr(self.program.values[r[1]], attr)
                                             for r in ref[1] if r[0] == "value"))
        return self.constants.node({"shape": shape_of, "ndim": ndim_of,
                                    "dtype": dtype_of}[attr](ref[1]))


class _FormulaRewrite(ast.NodeTransformer):
    """A formula's names -> the forward's variables and the traced constants."""

    def __init__(self, backward, names, grads, op):
        self.backward, self.names, self.grads, self.op = backward, names, grads, op

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            key = f"self.{node.attr}"
            if self.names.get(key) is not None:
                return _copy(self.names[key])
            raise NotImplementedError(f"minigrad.compile: formula reads {node.attr}")
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "grads" and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            return _copy(self.grads[node.slice.value])
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id == "grad":
            return _copy(self.grads[0])
        if node.id == "grads":
            return ast.List([_copy(g) for g in self.grads], ast.Load())
        if node.id.startswith("grad_"):
            for position, out in enumerate(self.op.outputs):
                if node.id == f"grad_{out.name}":
                    return _copy(self.grads[position])
        if node.id in self.names and self.names[node.id] is not None:
            return _copy(self.names[node.id])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "F"):
            return node
        if func.attr == "maybe_multiply" and len(node.args) == 2:
            known, alpha = _evaluate(node.args[1])
            if known and alpha == 1:
                return node.args[0]
        if (func.attr == "cast_to" and not self.backward.tensors and _is_call(node.args[0], "unreduce")
                and len(node.args[0].args) == 3 and _evaluate(node.args[0].args[2]) == (True, None)
                and _evaluate(node.args[0].args[1])[1]):
            # a sum over every dim: its gradient, filled out to the input's shape, in one call
            grad, shape, _ = node.args[0].args
            return ast.Call(ast.Name("full_gradient", ast.Load()),
                            [ast.Name("xp", ast.Load()), grad, shape, node.args[1]], [])
        if func.attr == "pow_grad_self" and not self.backward.tensors and len(node.args) == 3:
            known, exponent = _evaluate(node.args[2])
            if known and type(exponent) in (int, float) and exponent != 0 \
                    and math.isfinite(exponent):
                # what pow_grad_self computes for a nonzero number, written out
                grad, x, e = node.args
                power = ast.Call(ast.Name("pow_array", ast.Load()), [x, ast.Constant(exponent - 1)], [])
                return ast.BinOp(ast.BinOp(grad, ast.Mult(), e), ast.Mult(), power)
        if func.attr == "sum_to" and len(node.args) == 2 and not node.keywords:
            known, shape = _evaluate(node.args[1])
            if known and _shape_of(node.args[0], self.backward.shapes) == tuple(shape):
                return node.args[0]   # nothing was broadcast: sum_to is the identity
        if self.backward.tensors:
            return node   # Tensor form: F.op stays the differentiable op
        inlined = _inline_call(func.attr, node, self.backward.constants)
        return inlined if inlined is not None else node


def _is_call(node, name):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "F"
            and node.func.attr == name)


def _inline_call(name, call, constants):
    """``F.op(args)`` -> op's forward expression, when every argument is used once or is simple."""
    op = OPS.get(name)
    if op is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    positional = [a for a in op.args if not a.kwarg_only]
    if len(call.args) > len(positional):
        return None
    mapping = {a.name: value for a, value in zip(positional, call.args)}
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in {a.name for a in op.args}:
            return None
        mapping[keyword.arg] = keyword.value
    for a in op.args:
        if a.name not in mapping and not a.has_default:
            return None
    tree = ast.parse(op.forward, mode="eval")
    uses = {}
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Name):
            uses[sub.id] = uses.get(sub.id, 0) + 1
    for arg_name, value in mapping.items():
        simple = isinstance(value, (ast.Name, ast.Constant))
        if uses.get(arg_name, 0) > 1 and not simple:
            return None
    if any(isinstance(sub, (ast.Lambda, ast.comprehension)) for sub in ast.walk(tree)):
        return None
    return inline_forward(op, mapping, constants)


def _shape_of(node, shapes):
    """The shape of an elementwise expression over known variables, or None."""
    if isinstance(node, ast.Name):
        return shapes.get(node.id)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        return ()
    if isinstance(node, ast.UnaryOp):
        return _shape_of(node.operand, shapes)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "pow_array" and node.args:
        parts = [_shape_of(a, shapes) for a in node.args]
    elif isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        parts = [_shape_of(node.left, shapes), _shape_of(node.right, shapes)]
    elif isinstance(node, ast.Compare):
        parts = [_shape_of(node.left, shapes)] + [_shape_of(c, shapes) for c in node.comparators]
    else:
        return None
    if any(p is None for p in parts):
        return None
    try:
        return tuple(np.broadcast_shapes(*parts))
    except ValueError:
        return None


# ---------------------------------------------------------------------- buffers
#: arrays from this many elements on: the backward writes arithmetic into dead gradients
#: (a new array of that size costs more than the operation's call overhead)
BIG = 1 << 16

_INTO = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide"}
_INTO_CALLS = ("maximum", "minimum")


def is_big(program):
    """Worth reusing buffers: big arrays, and one float dtype (results keep their dtype).
    (Found once per program: the forward and each backward ask.)"""
    found = getattr(program, "_big", None)
    if found is None:
        found = program._big = any(math.prod(v.shape) >= BIG for v in program.values) \
            and uniform_float_dtype(program) is not None
    return found


def reuse_buffers(body, returned, prefix="g"):
    """Lines ``(code, comment)`` with ``a + b`` (and ``-``, ``*``, ``/``) written as
    ``into(xp.add, a, b, refs)`` where ``a`` is a variable (named ``prefix``...) this line
    uses last, or a temporary: ``into`` (runtime.py) writes into ``a``'s memory when the
    generated code holds the only reference to it (checked when it runs), else computes
    ``a + b``.  ``returned``: the names the function returns."""
    later = set(returned)
    rewritten = []
    for code, comment in reversed(body):
        tree = ast.parse(code)
        statement = tree.body[0]
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            target = statement.targets[0].id
            counts = {}
            for sub in ast.walk(statement.value):
                if isinstance(sub, ast.Name):
                    counts[sub.id] = counts.get(sub.id, 0) + 1
            dead = {name for name, n in counts.items() if n == 1 and _is_var(name, prefix)
                    and (name == target or name not in later)}
            statement.value = _Into(dead).visit(statement.value)
            code = ast.unparse(ast.fix_missing_locations(tree))
            # variables this line reads last: let go of them (an alias would keep
            # the array from being written into, and the memory from being freed)
            last = sorted(name for name in counts if _is_var(name, prefix) and name != target
                          and name not in later)
            if last:
                rewritten.append((f"del {', '.join(last)}", ""))
        later.update(sub.id for sub in ast.walk(tree) if isinstance(sub, ast.Name))
        rewritten.append((code, comment))
    return rewritten[::-1]


def _is_var(name, prefix):
    """A generated variable (``v3``, ``g3``), not a function (``view_array``, ``gather_array``):
    deleting a function's name would make it a local, unbound where it is called."""
    return name.startswith(prefix) and name[len(prefix):].isdigit()


class _Into(ast.NodeTransformer):
    def __init__(self, dead):
        self.dead = dead

    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = _INTO.get(type(node.op))
        if name is None:
            return node
        left, right = node.left, node.right
        if not self._reusable(left) and isinstance(node.op, (ast.Add, ast.Mult)) \
                and self._reusable(right):
            left, right = right, left
        if not self._reusable(left):
            return node
        refs = 1 if isinstance(left, ast.Name) else 0   # the generated code's own variable
        return ast.Call(ast.Name("into", ast.Load()),
                        [ast.Attribute(ast.Name("xp", ast.Load()), name, ast.Load()), left, right,
                         ast.Constant(refs)], [])

    def visit_Call(self, node):
        # xp.maximum(s0, v5) (relu's forward) into v5 where v5 is dead: one array less
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in _INTO_CALLS
                and isinstance(func.value, ast.Name) and func.value.id == "xp"
                and len(node.args) == 2 and not node.keywords):
            return node
        first, second = node.args
        if self._reusable(first):
            helper, target = "into", first
        elif self._reusable(second):
            helper, target = "into_second", second
        else:
            return node
        refs = 1 if isinstance(target, ast.Name) else 0
        return ast.Call(ast.Name(helper, ast.Load()), [func, first, second, ast.Constant(refs)], [])

    def _reusable(self, node):
        if isinstance(node, ast.Name):
            return node.id in self.dead
        return isinstance(node, (ast.BinOp, ast.Call))   # a temporary


# ---------------------------------------------------------------------- scalars
class Scalars:
    """Python numbers beside arrays of a known float dtype become 0-d arrays of that dtype,
    made once per array namespace: numpy converts a Python number on every call (slower
    than the operation on a small array), and the result is the same (NEP 50: a Python
    number takes the array's dtype).  The generated function unpacks them at its top.
    ``xp.multiply(a, b)`` and friends on such arrays are written as operators."""

    _ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
    _UFUNCS = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div,
               "true_divide": ast.Div, "maximum": None, "minimum": None}

    def __init__(self, constants):
        self.constants, self.names = constants, {}

    def rewrite(self, tree, places):
        """``tree`` (``places``: its placeholders for variables) with scalars replaced."""
        self._dtypes, self._shapes = places.dtypes, places.shapes
        return self._visit(tree)[0]

    def _visit(self, node):
        """(node rewritten, its float dtype or None)."""
        if isinstance(node, ast.Name):
            dtype = self._dtypes.get(node.id)
            return node, dtype if dtype is not None and dtype.kind == "f" else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, self._ARITHMETIC):
            node.left, left = self._visit(node.left)
            node.right, right = self._visit(node.right)
            return node, self._pair(node, "left", "right", left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            node.operand, dtype = self._visit(node.operand)
            return node, dtype
        if isinstance(node, ast.Call):
            func = node.func
            index = self._unsqueeze(node)
            if index is not None:   # np.expand_dims is Python code around this indexing
                return ast.Subscript(node.args[0], index, ast.Load()), None
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id == "xp" and func.attr in self._UFUNCS
                    and len(node.args) == 2 and not node.keywords):
                node.args[0], left = self._visit(node.args[0])
                node.args[1], right = self._visit(node.args[1])
                dtype = self._pair(node.args, 0, 1, left, right)
                if (left is not None or right is not None) and self._UFUNCS[func.attr]:
                    # an operator on an array calls the same ufunc, without the lookup
                    return ast.BinOp(node.args[0], self._UFUNCS[func.attr](), node.args[1]), dtype
                return node, dtype
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                setattr(node, field, self._visit(value)[0])
            elif isinstance(value, list):
                value[:] = [self._visit(v)[0] if isinstance(v, ast.AST) else v for v in value]
        return node, None

    def _unsqueeze(self, call):
        """``xp.expand_dims(x, dim)`` with ``x``'s ndim and ``dim`` known: the same view as
        ``x[:, None]`` (the index expression), else None."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "xp" and func.attr == "expand_dims" and len(call.args) == 2
                and not call.keywords and isinstance(call.args[0], ast.Name)):
            return None
        known, dim = _evaluate(call.args[1])
        shape = self._shapes.get(call.args[0].id)
        if not known or type(dim) is not int or shape is None \
                or not -len(shape) - 1 <= dim <= len(shape):
            return None
        dim %= len(shape) + 1
        parts = [ast.Slice()] * dim + [ast.Constant(None)]
        return ast.Tuple(parts, ast.Load()) if dim else ast.Constant(None)

    def _pair(self, owner, a, b, dtype_a, dtype_b):
        """Operands ``a`` and ``b`` of ``owner`` (a BinOp's fields or a call's argument list):
        a number beside a float operand becomes a scalar; returns the result's float dtype."""
        get = (lambda k: owner[k]) if isinstance(owner, list) else (lambda k: getattr(owner, k))
        put = owner.__setitem__ if isinstance(owner, list) else (lambda k, v: setattr(owner, k, v))
        if dtype_a is not None and dtype_b is None and _is_number(get(b)):
            put(b, self._name(get(b).value, dtype_a))
            return dtype_a
        if dtype_b is not None and dtype_a is None and _is_number(get(a)):
            put(a, self._name(get(a).value, dtype_b))
            return dtype_b
        return dtype_a if dtype_a is not None and dtype_a == dtype_b else None

    def _name(self, value, dtype):
        key = (type(value), value, dtype.str)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"s{len(self.names)}"
        return ast.Name(name, ast.Load())

    def constant(self, value, dtype):
        """``value`` as a 0-d array of ``dtype``: its name (chains.py's folded constants)."""
        return self._name(value, dtype)

    def shapes(self):
        """Each scalar's name and shape: a 0-d array's."""
        return {name: () for name in self.names.values()}

    def value_of(self, name):
        return next(key[1] for key, known in self.names.items() if known == name)

    def declare(self, src, at):
        """Insert, as line ``at`` of ``src``, the unpacking of the scalars used."""
        if not self.names:
            return
        table = ScalarTable([(value, np.dtype(dtype)) for _, value, dtype in self.names])
        name = ast.unparse(self.constants.node(table))
        names = sorted(self.names.values(), key=lambda n: int(n[1:]))
        src.lines.insert(at, (f"{_tuple(names)} = {name}.get(xp)",
                              "numbers as 0-d arrays in the arrays' dtype (made once)"))


class ScalarTable:
    """The 0-d arrays of one generated function, per array namespace."""

    def __init__(self, entries):
        self.entries, self._made = entries, {}

    def get(self, xp):
        made = self._made.get(xp)
        if made is None:
            made = self._made[xp] = tuple(xp.asarray(value, dtype=dtype)
                                          for value, dtype in self.entries)
        return made


def _is_number(node):
    return (isinstance(node, ast.Constant) and type(node.value) in (int, float)
            and math.isfinite(node.value) and abs(node.value) < 2 ** 53)


def uniform_float_dtype(program):
    """The one float dtype of every floating value of ``program``, or None."""
    found = getattr(program, "_uniform_float", False)
    if found is False:
        kinds = {v.dtype for v in program.values if v.dtype.kind == "f"}
        found = program._uniform_float = kinds.pop() if len(kinds) == 1 else None
    return found


def output_vids_requiring_grad(program):
    return [v for v in output_vids(program) if program.values[v].requires_grad]


def edge_vids(program):
    """Region inputs that require grad: one graph edge each."""
    return [v for v in unique_inputs(program) if program.values[v].requires_grad]


# ---------------------------------------------------------------------- create_graph
class TensorBackward(Backward):
    """The backward for ``create_graph=True``: the same formulas over Tensors (``F`` is the
    differentiable ops, nothing inlined into array code), so the gradients it returns have
    a graph of their own.  The forward values the formulas read are recomputed from the
    region's inputs with the differentiable ops (``ops.<name>``): arrays the forward saved
    have no history to differentiate.

    ``def backward(<inputs read>, <output gradients given>): ... return (<input gradients>)``
    """

    tensors = True

    def build(self, layout=None):
        program = self.program
        outs = output_vids_requiring_grad(program)
        given = [v for v in outs if self.live.get(v)]
        self.body, self.temp = [], 0
        for index in range(len(program.records) - 1, -1, -1):
            self._record(program.records[index])
        recomputed = self._recomputed()
        self.input_vids = [v for v in unique_inputs(program) if v in self.reads]
        self.given_vids = given
        params = [var(v) for v in self.input_vids] + [gvar(v) for v in given]
        src = Source(f"def backward({', '.join(params)}):")
        for record in recomputed:
            src.emit(self._recompute_line(record),
                     f"{record.op.name} (recomputed: the formulas read it)  "
                     f"derivatives.yaml:{record.op.line}")
        for code, comment in self.body:
            src.emit(code, comment)
        result = [gvar(v) if self.live.get(v) else "None" for v in edge_vids(program)]
        src.emit(f"return ({_tuple(result)})")
        self.src = src
        return self

    def _record(self, record):
        op = record.op
        if op.once_differentiable and op.formulas and any(
                v is not None and self.live.get(v) for v in record.outputs):
            raise NotImplementedError(f"minigrad.compile: {op.name} is once-differentiable "
                                      f"({op.once_differentiable})")
        super()._record(record)

    def _recomputed(self):
        """The records whose outputs the formulas read (directly or through other records),
        in forward order; inputs read along the way join ``self.reads``."""
        program = self.program
        needed = {v for v in self.reads if program.values[v].producer[0] != "input"}
        chosen = []
        for record in reversed(program.records):
            if not any(v in needed for v in record.outputs if v is not None):
                continue
            chosen.append(record)
            for vid in ref_vids(record.args.values()):
                if program.values[vid].producer[0] == "input":
                    self.reads[vid] = None
                else:
                    needed.add(vid)
        return chosen[::-1]

    def _recompute_line(self, record):
        op = record.op
        targets = [var(v) if v is not None else "_" for v in record.outputs]
        lhs = ", ".join(targets)
        if op.outputs[0].type == "Tensor[]" and len(targets) == 1:
            lhs += ","
        args = {name: ast.unparse(arg_node(ref, self.constants))
                for name, ref in record.args.items()}
        if op.name == "alias":
            return f"{lhs} = {args['self']}.detach()"
        if not op.line:   # a comparison: a mask without gradient
            return f"{lhs} = compare_tensors(np.{op.name}, {args['self']}, {args['other']})"
        parts = [f"{a.name}={args[a.name]}" if a.kwarg_only else args[a.name] for a in op.args]
        return f"{lhs} = ops.{record.func_name}({', '.join(parts)})"


def ref_vids(refs):
    for ref in refs:
        if ref[0] == "value":
            yield ref[1]
        elif ref[0] in ("list", "tuple"):
            yield from ref_vids(ref[1])
