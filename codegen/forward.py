"""What the forward-mode (JVP) template needs from an entry, and codegen's forward report.

Each entry's `result:` keys (codegen/load.py) become a function in
minigrad/_generated/jvps.py that computes the op and the tangent of each output from
the tangents of its inputs, summing only the terms whose tangents are defined.
"""
import ast
import os

from codegen.model import NO_DEFAULT

# Ops every formula may treat as elementwise and broadcasting besides the derived ones
# (their own forward formulas name them, so the derivation below cannot find them).
ELEMENTWISE_SEEDS = frozenset({"where"})
SHAPE_ARG_TYPES = ("int", "int?", "int[]", "int[]?", "Index", "Tensor[]")


def elementwise_ops(ops):
    """Ops that act elementwise and broadcast: auto_element_wise entries, and (repeatedly)
    entries without dims/shapes/indices whose forward formulas use only operators and
    elementwise calls.  Their batch rule is right-aligned broadcasting (autograd/batching.py)."""
    names = set(ELEMENTWISE_SEEDS)
    names |= {op.func_name for op in ops
              if any(f.kind == "auto_element_wise" for f in op.forward_formulas)}
    changed = True
    while changed:
        changed = False
        for op in ops:
            if op.func_name in names or not op.forward_formulas or op.list_output:
                continue
            if any(a.type in SHAPE_ARG_TYPES for a in op.args):
                continue
            calls = {c for f in op.forward_formulas for c in f.calls}
            if all(f.kind != "auto_linear" for f in op.forward_formulas) and calls <= names:
                names.add(op.func_name)
                changed = True
    return frozenset(names)


def batch_rules(root):
    """Names with a batch rule of their own in minigrad/autograd/batching.py (read, not
    imported), and the helpers it treats as elementwise."""
    path = os.path.join(root, "minigrad", "autograd", "batching.py")
    if not os.path.exists(path):
        return frozenset(), frozenset()
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    rules = {n.name[len("rule_"):] for n in tree.body
             if isinstance(n, ast.FunctionDef) and n.name.startswith("rule_")}
    helpers = set()
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "ELEMENTWISE_HELPERS"
                                             for t in n.targets):
            helpers = set(ast.literal_eval(n.value.args[0]))
    return frozenset(rules), frozenset(helpers)


def looping_entries(ops, elementwise, rules, helpers):
    """Entries whose forward formula calls a function without a batch rule: with batched
    tangents (jacfwd) that call loops over the batch."""
    vectorized = elementwise | rules | helpers
    result = []
    for op in ops:
        calls = {c for f in op.forward_formulas for c in f.calls}
        slow = sorted(calls - vectorized)
        if slow:
            result.append((op.full_name, slow))
    return result


def missing_forward(ops):
    return [op.full_name for op in ops if op.needs_forward_formula and not op.forward_formulas]


def forward_report(registry, root):
    """Lines for `python -m codegen`: entries without a forward derivative, the count of each
    kind, and the entries whose batched JVP (jacfwd) loops over the batch."""
    ops = registry.ops
    lines = []
    missing = missing_forward(ops)
    if missing:
        lines.append(f"{len(missing)} entries have no forward derivative (`result:`; forward AD "
                     f"through them raises): {', '.join(missing)}")
    kinds = {}
    for op in ops:
        for f in op.forward_formulas:
            kinds[f.kind] = kinds.get(f.kind, 0) + 1
    lines.append("forward formulas: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    rules, helpers = batch_rules(root)
    loops = looping_entries(ops, elementwise_ops(ops), rules, helpers)
    if loops:
        lines.append(f"{len(loops)} entries loop over the batch of tangents in jacfwd (no batch "
                     "rule for: " + "; ".join(f"{name}: {', '.join(calls)}" for name, calls in loops)
                     + ")")
    return lines


class ForwardView:
    """The strings jvps.py.j2 renders for one entry."""

    def __init__(self, entry):
        self.entry, self.op = entry, entry.op

    @property
    def func_name(self):
        return self.entry.func_name

    def public_call(self):
        """The op called with the JVP function's own parameters."""
        parts = []
        for a in self.op.args:
            name = _public(a, self.op.args)
            parts.append(f"{name}={name}" if a.kwarg_only else name)
        return ", ".join(parts)

    def self_binding(self):
        """`self_ = input`: formulas name the schema's `self` as the local `self_`."""
        for a in self.op.args:
            if a.name == "self":
                return f"self_ = {_public(a, self.op.args)}"
        return ""

    def tangent_lines(self):
        lines = []
        for a in self.entry.diff_args:
            local = "self_" if a.name == "self" else a.name
            getter = "tangents_of" if a.is_tensor_list else "tangent_of"
            lines.append(f"{a.name}_t = {getter}({local})")
        return lines

    def no_tangent_test(self):
        return " and ".join(f"{a.name}_t is None" for a in self.entry.diff_args)

    def output_binding(self):
        if self.op.single_output or self.op.list_output:
            return "result = out"
        names = [o.name for o in self.op.outputs]
        return ", ".join(names) + " = out"

    def blocks(self):
        """[(condition, targets, code, negate)] in order; targets is "x_t" or "a_t, b_t"."""
        result = []
        for f in self.op.forward_formulas:
            targets = ", ".join(f"{name}_t" for name in f.outputs)
            for term in f.terms:
                condition = " or ".join(f"{t} is not None" for t in term.tangents)
                lists = {f"{a.name}_t" for a in self.entry.diff_args if a.is_tensor_list}
                single = len(term.tangents) == 1 and len(f.outputs) == 1 \
                    and not set(term.tangents) & lists  # a list's None entries are zeros
                code = term.code if single or f.kind == "via_backward" \
                    else _fill_zeros(term.code, term.tangents)
                if f.kind == "via_backward":
                    code = _op_of_own_package(code)
                result.append((condition, targets, code, term.negate, len(f.outputs) > 1))
        return result

    def unshare(self):
        """[(output tangent, input tangent)]: a term that is a bare tangent would make input
        and output share one tangent (an in-place op on one would change the other)."""
        pairs = []
        for f in self.op.forward_formulas:
            for term in f.terms:
                if len(f.outputs) == 1 and term.code in term.tangents and not term.negate:
                    pairs.append((f"{f.outputs[0]}_t", term.code))
        return pairs

    def initial_tangents(self):
        names = [f"{name}_t" for f in self.op.forward_formulas for name in f.outputs]
        return " = ".join(names) + " = None" if names else ""

    def info(self, name):
        f = next(f for f in self.op.forward_formulas if name in f.outputs)
        label = f"{self.op.full_name} ({f.kind})" if f.kind != "explicit" else self.op.full_name
        return repr((label, "derivatives.yaml", f.line, f.text))

    def returns(self):
        op = self.op
        if op.single_output:
            return f"attach(result, result_t, {self.info('result')})"
        if op.list_output:
            return (f"result if result_t is None else tuple([attach(r, t, {self.info('result')}) "
                    "for r, t in zip(result, result_t)])")
        parts = []
        defined = {n for f in op.forward_formulas for n in f.outputs}
        for o in op.outputs:
            parts.append(f"attach({o.name}, {o.name}_t, {self.info(o.name)})"
                         if o.name in defined else o.name)
        return f"out._make(({', '.join(parts)},))"

    def test_formulas(self):
        """{key: (path, line, text)} for the messages of the generated checks."""
        return {", ".join(f.outputs): ("derivatives.yaml", f.line,
                                       f.text if f.kind == "explicit" else f"{f.kind} = {f.text}")
                for f in self.op.forward_formulas}

    def doc(self):
        return [f"{', '.join(f.outputs)}: {f.text}" + (f"  ({f.kind})" if f.kind != "explicit" else "")
                for f in self.op.forward_formulas]


def _public(arg, args):
    if arg.name == "self" and not any(a.name == "input" for a in args):
        return "input"
    return arg.name


def _op_of_own_package(code):
    """via_backward('op', ...) -> via_backward(OPS.op, ...): the generated package's own op."""
    tree = ast.parse(code, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "via_backward":
            name = node.args[0].value
            node.args[0] = ast.Attribute(ast.Name("OPS", ast.Load()), name, ast.Load())
    return ast.unparse(tree)


def _fill_zeros(code, tangents):
    """A term naming several tangents: an undefined one is zeros of its primal's shape."""
    tree = ast.parse(code, mode="eval")

    class Fill(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in tangents:
                primal = node.id[:-2]
                primal = "self_" if primal == "self" else primal
                return ast.Call(ast.Name("or_zeros", ast.Load()),
                                [ast.Name(node.id, ast.Load()), ast.Name(primal, ast.Load())], [])
            return node

    return ast.unparse(Fill().visit(tree))


__all__ = ["ForwardView", "elementwise_ops", "batch_rules", "looping_entries", "missing_forward",
           "NO_DEFAULT"]
