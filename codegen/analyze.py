"""Formula analysis with ``ast``: which names a formula uses, what to save, the code to emit.

A formula such as ``sum_to(grad * other, self.shape)`` becomes
``F.sum_to(grad * other, self._saved_self_shape)``: calls go through the
vocabulary ``F`` (numpy or Tensor ops), tensors become locals unpacked from the
node's saved slots, metadata and non-tensor arguments are node attributes.
"""
import ast
import builtins
import math

import numpy as np

from codegen.errors import SpecError, did_you_mean
from codegen.model import METADATA_ATTRS, Formula

FORMULA_BUILTINS = frozenset({"len", "tuple", "list", "range", "int", "float", "bool", "slice",
                              "isinstance", "zip", "sorted", "reversed", "enumerate", "None",
                              "True", "False", "Ellipsis"})
FORWARD_MODULES = {"np": np, "math": math}


def _error(where, message):
    return SpecError(f"{where}: {message}")


def _module_attribute(node):
    """(module, attribute) for `np.x` / `math.x`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in FORWARD_MODULES:
        return node.value.id, node.attr
    return None


def _check_module_attribute(module, attr, where, what, text):
    if not hasattr(FORWARD_MODULES[module], attr):
        candidates = [f"{m}.{a}" for m, mod in FORWARD_MODULES.items() for a in dir(mod)
                      if not a.startswith("_")]
        raise _error(where, f"unknown name '{module}.{attr}' in {what} `{text}`."
                     f"{did_you_mean(f'{module}.{attr}', candidates)}")


def _parse(text, where, what):
    try:
        return ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise _error(where, f"syntax error in {what} `{text.strip()}`: {exc.msg} (column "
                     f"{exc.offset}). A {what} is one Python expression.") from None


def check_forward(text, args, kernels, where):
    """Validate a forward expression; return the kernel functions it calls."""
    tree = _parse(text, where, "forward")
    known = {a.name for a in args} | set(FORWARD_MODULES) | kernels | set(dir(builtins))
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
    used_kernels = set()
    for node in ast.walk(tree):
        if _module_attribute(node):
            _check_module_attribute(*_module_attribute(node), where, "forward", text.strip())
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in known and node.id not in local:
                raise _error(where, f"unknown name '{node.id}' in forward `{text.strip()}`."
                             f"{did_you_mean(node.id, known)} In scope: "
                             "the arguments, np, math, builtins and the functions of minigrad/kernels/ "
                             "(add a helper there if numpy has no single call for this).")
            if node.id in kernels:
                used_kernels.add(node.id)
    return sorted(used_kernels)


def analyze_formula(text, input_name, args, outputs, vocabulary, where, line=0):
    """Parse one formula, check every name, and return its :class:`Formula`."""
    tree = _parse(text, where, "formula")
    scope = _Scope(args, outputs, vocabulary)
    rewriter = _Rewriter(scope, where, text.strip())
    body = rewriter.visit(tree.body)
    code = ast.unparse(ast.fix_missing_locations(ast.Expression(body)))
    return Formula(input=input_name, text=text.strip(), code=code,
                   tensors=tuple(sorted(rewriter.tensors)), metadata=tuple(sorted(rewriter.metadata)),
                   scalars=tuple(sorted(rewriter.scalars)), grads=tuple(sorted(rewriter.grads, key=str)),
                   line=line)


class _Scope:
    def __init__(self, args, outputs, vocabulary):
        self.tensor_args = {a.name: a for a in args if a.is_differentiable_kind}
        self.scalar_args = {a.name for a in args if not a.is_differentiable_kind}
        self.outputs = {o.name: i for i, o in enumerate(outputs)}
        self.output_list = outputs[0].type == "Tensor[]"
        self.n_outputs = len(outputs)
        self.vocabulary = vocabulary

    def grad_names(self):
        names = {"grads"}
        if self.n_outputs == 1:
            names.add("grad")
        names.update(f"grad_{o}" for o in self.outputs if o != "result")
        return names


class _Rewriter(ast.NodeTransformer):
    """Checks names and rewrites them to what the generated backward has in scope."""

    def __init__(self, scope, where, text):
        self.scope, self.where, self.text = scope, where, text
        self.tensors, self.metadata, self.scalars, self.grads = set(), set(), set(), set()

    def fail(self, message):
        raise _error(self.where, f"in formula `{self.text}`: {message}")

    def visit_Attribute(self, node):
        constant = _module_attribute(node)
        if constant:  # np.pi, math.e ...: numbers work over arrays and Tensors alike
            _check_module_attribute(*constant, self.where, "formula", self.text)
            value = getattr(FORWARD_MODULES[constant[0]], constant[1])
            if isinstance(value, float):
                return ast.copy_location(ast.Constant(value), node)
            self.fail(f"'{constant[0]}.{constant[1]}' is not allowed: formulas call ops (by "
                      "name) and formula helpers, never numpy or math functions; only their "
                      "float constants (np.pi, math.e ...) may be used")
        if isinstance(node.value, ast.Name) and node.attr in METADATA_ATTRS:
            name = node.value.id
            if name in self.scope.tensor_args or name in self.scope.outputs:
                self.metadata.add((name, node.attr))
                return _node_attr(f"_saved_{name}_{node.attr}")
        self.fail(f"'.{node.attr}' is not allowed: formulas call functions, not methods "
                  f"(write `{node.attr}(x, ...)`, not `x.{node.attr}(...)`); only "
                  ".shape, .ndim and .dtype of an input or output may be read")

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "grads":
            index = node.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int):
                if not self.scope.output_list and not 0 <= index.value < self.scope.n_outputs:
                    self.fail(f"grads[{index.value}] is out of range: the op has "
                              f"{self.scope.n_outputs} output(s), so use grads[0]"
                              + (f"..grads[{self.scope.n_outputs - 1}]" if self.scope.n_outputs > 1 else ""))
                self.grads.add(index.value)
                return node
        return self.generic_visit(node)

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name):
            self.fail("formulas call functions, not methods (write `exp(x)`, not `x.exp()`)")
        name = node.func.id
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [self.visit(k) for k in node.keywords]
        if name in self.scope.vocabulary:
            node.func = ast.Attribute(value=ast.Name("F", ast.Load()), attr=name, ctx=ast.Load())
            return node
        if name in FORMULA_BUILTINS:
            return node
        self.fail(f"unknown function '{name}'.{did_you_mean(name, self.scope.vocabulary)} Use "
                  "an op from derivatives.yaml or a helper from minigrad/autograd/formulas/")

    def visit_Name(self, node):
        name, scope = node.id, self.scope
        if name == "grads":
            self.grads.add("all")
            return node
        if name in scope.grad_names():
            self.grads.add(0 if name == "grad" else scope.outputs[name[len("grad_"):]])
            return node
        if name in scope.tensor_args:
            self.tensors.add(name)
            return ast.Name("self_" if name == "self" else name, ast.Load())
        if name in scope.outputs:
            self.tensors.add(name)
            return node
        if name in scope.scalar_args:
            self.scalars.add(name)
            return _node_attr(f"_saved_{name}")
        if name in FORMULA_BUILTINS:
            return node
        self.fail(f"unknown name '{name}'{self._several_outputs(name)}."
                  f"{did_you_mean(name, self._known())} In scope: grad/grads, the inputs, the "
                  "outputs (result), non-tensor arguments, ops and formula helpers")

    def _known(self):
        scope = self.scope
        return (set(scope.tensor_args) | set(scope.outputs) | scope.scalar_args
                | scope.grad_names() | set(scope.vocabulary) | FORMULA_BUILTINS)

    def _several_outputs(self, name):
        """`grad` / `result` in an op with named outputs: name the ones to use."""
        outputs = [o for o in self.scope.outputs if o != "result"]
        if name not in ("grad", "result") or not outputs:
            return ""
        use = " or ".join(f"grad_{o}" for o in outputs) + " (or grads[i])" if name == "grad" \
            else " or ".join(outputs)
        return f" (this op has several outputs, {', '.join(outputs)}: use {use})"

    def generic_visit(self, node):
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp, ast.NamedExpr)):
            self.fail("lambdas, comprehensions and := are not allowed (move the loop into a "
                      "helper in minigrad/autograd/formulas/)")
        return super().generic_visit(node)


def _node_attr(name):
    return ast.Attribute(value=ast.Name("self", ast.Load()), attr=name, ctx=ast.Load())


# ------------------------------------------------------------------ forward formulas
def analyze_forward(text, outputs_defined, args, outputs, differentiable, vocabulary, where,
                    line=0, kind="explicit"):
    """Parse a forward (JVP) formula; return its :class:`ForwardFormula`.

    In scope: the inputs, the outputs (`result` or their names), the tangents `<input>_t` of
    the differentiable inputs, non-tensor arguments, and the formula vocabulary.  A sum of
    terms is split at its top-level `+` / `-`, so that a term whose tangent is undefined
    (None, "zero") is skipped, never materialized, as PyTorch does."""
    from codegen.model import ForwardFormula, ForwardTerm
    tree = _parse(text, where, "forward formula")
    scope = _Scope(args, outputs, vocabulary)
    tangent_names = {f"{name}_t" for name in differentiable}
    pieces = _signed_terms(tree.body) if len(outputs_defined) == 1 else [(tree.body, False)]
    terms, calls = [], set()
    for piece, negate in pieces:
        rewriter = _ForwardRewriter(scope, where, text.strip(), tangent_names, differentiable)
        body = rewriter.visit(piece)
        if not rewriter.tangents:
            raise _error(where, f"in forward formula `{text.strip()}`: the term "
                         f"`{ast.unparse(piece)}` names no tangent; a forward derivative is "
                         f"linear in the tangents ({', '.join(sorted(tangent_names))})")
        code = ast.unparse(ast.fix_missing_locations(ast.Expression(body)))
        terms.append(ForwardTerm(code=code, tangents=tuple(sorted(rewriter.tangents)),
                                 negate=negate))
        calls |= rewriter.calls
    return ForwardFormula(outputs=tuple(outputs_defined), kind=kind, text=text.strip(),
                          terms=tuple(terms), calls=tuple(sorted(calls)), line=line)


def _signed_terms(node, negate=False):
    """`a + b - c` -> [(a, False), (b, False), (c, True)] (only the top-level sum)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        right_negate = negate != isinstance(node.op, ast.Sub)
        return _signed_terms(node.left, negate) + _signed_terms(node.right, right_negate)
    return [(node, negate)]


def substitute_grad(text, tangent):
    """A backward formula with `grad` replaced by a tangent (auto_element_wise)."""
    tree = ast.parse(text.strip(), mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "grad":
            node.id = tangent
    return ast.unparse(tree)


class _ForwardRewriter(_Rewriter):
    """Names of a forward formula: inputs, outputs and scalars are locals of the generated
    JVP function; tangents are `<input>_t` locals; metadata is read with shape_of & co."""

    def __init__(self, scope, where, text, tangent_names, differentiable):
        super().__init__(scope, where, text)
        self.tangent_names, self.differentiable = tangent_names, differentiable
        self.tangents, self.calls = set(), set()

    def fail(self, message):
        raise _error(self.where, f"in forward formula `{self.text}`: {message}")

    def visit_Call(self, node):
        """Records the calls that receive a tangent: with batched tangents (jacfwd) those
        run their batch rule (autograd/batching.py), or loop over the batch."""
        if isinstance(node.func, ast.Name) and node.func.id in self.scope.vocabulary:
            inside = {n.id for arg in list(node.args) + [k.value for k in node.keywords]
                      for n in ast.walk(arg) if isinstance(n, ast.Name)}
            if inside & self.tangent_names:
                self.calls.add(node.func.id)
        return super().visit_Call(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.attr in METADATA_ATTRS:
            name = node.value.id
            if name in self.scope.tensor_args or name in self.scope.outputs or name in self.tangent_names:
                local = self.visit_Name(ast.Name(name, ast.Load()))
                return ast.Call(func=ast.Name(f"{node.attr}_of", ast.Load()), args=[local], keywords=[])
        return super().visit_Attribute(node)

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "grads":
            self.fail("forward formulas use tangents (`<input>_t`), not grads")
        return self.generic_visit(node)

    def visit_Name(self, node):
        name, scope = node.id, self.scope
        if name in self.tangent_names:
            self.tangents.add(name)
            return node
        if name.endswith("_t") and (name[:-2] in scope.tensor_args or name[:-2] in scope.scalar_args):
            self.fail(f"'{name}' is the tangent of '{name[:-2]}', which is not differentiable "
                      f"here; tangents in scope: {', '.join(sorted(self.tangent_names)) or 'none'}")
        if name == "grads" or name in scope.grad_names():
            self.fail(f"unknown name '{name}': forward formulas use the tangents "
                      f"{', '.join(sorted(self.tangent_names))}, not gradients")
        if name in scope.tensor_args:
            return ast.Name("self_" if name == "self" else name, ast.Load())
        if name in scope.outputs or name in scope.scalar_args or name in FORMULA_BUILTINS:
            return node
        self.fail(f"unknown name '{name}'{self._several_outputs(name)}."
                  f"{did_you_mean(name, self._known() | self.tangent_names)} In scope: the "
                  "inputs, their tangents <input>_t, the outputs (result), non-tensor "
                  "arguments, ops and formula helpers")
