"""``trace()``: print every recorded op and every backward step, notebook style.

For teaching: inside ``with minigrad.autograd.trace():`` each op that records a
graph node prints one line (``v0 = a + b``, ``v1 = v0 * b``), named after the
user's variables where it can find them, and each backward prints the chain rule
step by step in the Simple Grad notebook's style::

    >>> with minigrad.autograd.trace():
    ...     loss = ((a + b) * b).sum()
    ...     loss.backward()
    v0 = a + b
    v1 = v0 * b
    v2 = v1.sum()
    dv2 ------------------------
    dv2_dv1 = expand(dv2_dv2, v1.shape)        # SumBackward0
    dv2_dv0 = dv2_dv1 * b                      # MulBackward0
    dv2_db = dv2_dv1 * v0                      # MulBackward0
    dv2_da = dv2_dv0                           # AddBackward0
    dv2_db += dv2_dv0                          # AddBackward0
    ------------------------

Only ops called while tracing are printed; tracing patches the op functions for
the duration of the block, so it costs nothing outside it.
"""
import ast
import functools
import inspect
import sys
import weakref

from minigrad.autograd import leaks

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "matmul": "@", "pow": "**"}


class trace:
    """Context manager: print recorded ops and backward steps (see the module doc)."""

    def __init__(self, file=None):
        self.file = file

    def __enter__(self):
        self._names = {}                            # id(Tensor) -> (weakref, display name)
        self._nodes = weakref.WeakKeyDictionary()   # Node -> (output name, {formula name: name})
        self._counter = 0
        self._depth = 0
        self._call = None
        self._seen = set()
        self._patches = []
        self._patch_ops()
        leaks._observers.append(self)
        return self

    def __exit__(self, *exc):
        leaks._observers.remove(self)
        for owner, name, original in reversed(self._patches):
            setattr(owner, name, original)
        return False

    # ------------------------------------------------------------- printing
    def _print(self, text):
        print(text, file=self.file if self.file is not None else sys.stdout)

    def _fresh(self):
        name = f"v{self._counter}"
        self._counter += 1
        return name

    def _name(self, value):
        from minigrad._tensor import Tensor
        if not isinstance(value, Tensor):
            return repr(value)
        ref, name = self._names.get(id(value), (None, None))
        if ref is None or ref() is not value:
            name = _user_name(value) or self._fresh()
            self._names[id(value)] = (weakref.ref(value), name)
        return name

    # ------------------------------------------------------------- forward
    def _patch_ops(self):
        import minigrad
        from minigrad._generated import functions
        from minigrad._tensor import Tensor
        wrapped = {}
        for name, fn in vars(functions).items():
            if inspect.isfunction(fn) and fn.__module__ == functions.__name__:
                wrapped[fn] = self._wrap(name, fn)
                self._patch(functions, name, wrapped[fn])
        for name, fn in list(vars(Tensor).items()):  # methods, and operators (a + b is add)
            if inspect.isfunction(fn) and fn in wrapped:
                self._patch(Tensor, name, wrapped[fn])
        for name, fn in list(vars(minigrad).items()):
            if inspect.isfunction(fn) and fn in wrapped:
                self._patch(minigrad, name, wrapped[fn])

    def _patch(self, owner, name, value):
        self._patches.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def _wrap(self, name, fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def traced(*args, **kwargs):
            self._depth += 1
            try:
                out = fn(*args, **kwargs)
            finally:
                self._depth -= 1
            if self._depth == 0:
                self._record(name, signature, args, kwargs, out)
            return out
        return traced

    def _record(self, name, signature, args, kwargs, out):
        from minigrad._tensor import Tensor
        outs = out if isinstance(out, tuple) else (out,)
        if not any(isinstance(o, Tensor) and o.grad_fn is not None for o in outs):
            return
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return
        shown = dict(bound.arguments)
        bound.apply_defaults()
        inputs = {k: self._name(v) if isinstance(v, Tensor) else repr(v)
                  for k, v in bound.arguments.items()}
        if "input" in inputs and "self" not in inputs:
            inputs["self"] = inputs["input"]  # formulas use the schema's name for it
        out_names = [self._fresh() for _ in outs]
        for o, n in zip(outs, out_names):
            if isinstance(o, Tensor):
                self._names[id(o)] = (weakref.ref(o), n)
        self._print(f"{', '.join(out_names)} = {_call_text(name, shown, inputs)}")
        node = outs[0].grad_fn
        if node is not None and node not in self._nodes:
            self._nodes[node] = (out_names, inputs)
            node.register_hook(functools.partial(self._backward_step, weakref.ref(node)))

    # ------------------------------------------------------------ backward
    def backward_started(self, call, depth):
        if depth == 1:
            self._root = None
            self._seen = set()

    def backward_finished(self, call, depth):
        if depth == 0 and self._root is not None:
            self._print("------------------------")
            self._root = None

    def _backward_step(self, node_ref, grad_inputs, grad_outputs):
        node = node_ref()
        if node is None or node not in self._nodes:
            return None
        out_names, inputs = self._nodes[node]
        if self._root is None:
            self._root = out_names[0]
            self._print(f"d{self._root} ------------------------")
        root = self._root
        formulas = _formulas(type(node))
        rename = dict(inputs)
        rename["grad"] = f"d{root}_d{out_names[0]}"
        rename["result"] = out_names[0]
        for i, out_name in enumerate(out_names):
            rename[f"grads[{i}]"] = f"d{root}_d{out_name}"
        for grad_index, (arg, formula) in enumerate(formulas):
            if grad_index >= len(grad_inputs) or grad_inputs[grad_index] is None:
                continue
            target = inputs.get(arg, arg)
            op = "+=" if target in self._seen else "="
            self._seen.add(target)
            text = f"d{root}_d{target} {op} {_render(formula, rename)}"
            self._print(f"{text:<42} # {node.name()}")
        return None


def _call_text(name, arguments, inputs):
    names = list(arguments)
    if name in _BINARY and len(names) >= 2:
        return f"{inputs[names[0]]} {_BINARY[name]} {inputs[names[1]]}"
    if name == "neg":
        return f"-{inputs[names[0]]}"
    rest = ", ".join(inputs[n] if i < 2 and n in ("self", "other") else f"{n}={inputs[n]}"
                     for i, n in enumerate(names[1:], 1))
    return f"{inputs[names[0]]}.{name}({rest})"


def _user_name(tensor):
    from minigrad.autograd._user import _inside
    frame = sys._getframe(1)
    while frame is not None and (_inside(frame.f_code.co_filename) or
                                 frame.f_code.co_filename == __file__):
        frame = frame.f_back
    if frame is None:
        return None
    for name, value in frame.f_locals.items():
        if value is tensor and not name.startswith("_"):
            return name
    return None


def _formulas(node_class):
    """``[(input name, formula text)]`` of a generated node class, in input order
    (empty for hand-written nodes: they have no formulas to show)."""
    names = getattr(node_class, "_input_names", ())
    texts = getattr(node_class, "_formulas", {})
    return tuple((name, texts[name]) for name in names if name in texts)


class _Rename(ast.NodeTransformer):
    """Teaching simplifications: drop sum_to(..., shape), cast_to(..., dtype) and alpha=1;
    use display names."""

    def __init__(self, names):
        self.names = names

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = node.func.id if isinstance(node.func, ast.Name) else None
        if fn in ("sum_to", "cast_to") and node.args:
            return node.args[0]
        if fn == "unreduce" and len(node.args) >= 2:
            node.func.id, node.args = "expand", node.args[:2]
            return node
        if fn == "maybe_multiply" and len(node.args) == 2:
            if isinstance(node.args[1], ast.Name) and node.args[1].id in ("1", "1.0"):
                return node.args[0]
            return ast.BinOp(node.args[0], ast.Mult(), node.args[1])
        return node

    def visit_Subscript(self, node):
        text = ast.unparse(node)
        if text in self.names:
            return ast.Name(self.names[text])
        return self.generic_visit(node)

    def visit_Name(self, node):
        return ast.Name(self.names.get(node.id, node.id))


def _render(formula, names):
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError:
        return formula
    return ast.unparse(_Rename(names).visit(tree))
