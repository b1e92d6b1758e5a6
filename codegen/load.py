"""derivatives.yaml -> Registry.  Every error names derivatives.yaml:LINE and the entry.

Validation happens here, completely, before anything is written: a bad entry
means no file changes at all.
"""
import ast
import math
import os
import re
from dataclasses import replace

import yaml

from codegen import analyze
from codegen.errors import SpecError, did_you_mean
from codegen.model import ARG_TYPES, NO_DEFAULT, Arg, OpSpec, Output, Registry, SampleSpec
from codegen.tensor_names import hand_written_names

KNOWN_KEYS = ("name", "forward", "samples", "derived_samples", "output_differentiability",
              "view", "once_differentiable", "method", "modules", "inplace", "boundary",
              "promote", "floating", "refuses", "refuses_bool_operand", "wraps_ints")
RESERVED_ARG_NAMES = ("F", "grad", "grads", "result", "node", "out", "outs")
SCHEMA = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\s*\((.*)\)\s*->\s*(.+?)\s*$")
MODULES = ("minigrad", "minigrad.linalg", "minigrad.nn.functional", "minigrad.special", "minigrad.fft")


def load_registry(path, package_root=None):
    """Parse and validate ``path``; ``package_root`` holds minigrad/ (kernels, helpers)."""
    package_root = package_root or os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    where = os.path.basename(path)
    entries = _read_entries(text, where)
    kernels = _public_functions(os.path.join(package_root, "minigrad", "kernels"))
    helpers = _public_functions(os.path.join(package_root, "minigrad", "autograd", "formulas"))
    op_names = set()
    for fields, line in entries:
        parsed = SCHEMA.match(str(fields.get("name", ("", line))[0]))
        if parsed:
            op_names.add(parsed.group(1))
            op_names.add(f"{parsed.group(1)}_{parsed.group(2)}" if parsed.group(2) else parsed.group(1))
    vocabulary = frozenset(op_names | helpers)
    ops, seen, node_counts = [], {}, {}
    for fields, line in entries:
        op = _build_op(fields, line, where, vocabulary, kernels)
        if op.full_name in seen:
            raise SpecError(f"{where}:{line}: entry '{op.full_name}' is defined twice (first at "
                            f"line {seen[op.full_name]}). Remove one, or give this one an "
                            f"overload name: `{op.name}.other(...)`.")
        seen[op.full_name] = line
        index = node_counts.get(op.name, 0)
        node_counts[op.name] = index + 1
        ops.append(_with_node_index(op, index))
    _check_method_names(ops, where, hand_written_names(package_root))
    return Registry(ops=tuple(ops), path=where, helpers=frozenset(helpers))


def method_names(ops):
    """{Tensor method name: (op, key)} for every method codegen binds: `x.exp()` from an
    entry (one per overloaded name) and `x.exp_()` from `inplace: true`."""
    groups = {}
    for op in ops:
        groups.setdefault(op.name, []).append(op)
    names = {}
    for op in ops:
        grouped = len(groups[op.name]) > 1 or op.overload
        method = op.name if grouped else op.func_name
        if op.method:
            names.setdefault(method, (op, "name"))
        if op.inplace:
            names.setdefault(method + "_", (op, "inplace"))
    return names


def _check_method_names(ops, where, reserved):
    """A generated method must not replace a hand-written Tensor attribute."""
    for method, (op, key) in method_names(ops).items():
        if method in reserved:
            line = op.inplace_line if key == "inplace" else op.line
            fix = "drop `inplace: true`" if key == "inplace" else "rename the op or set `method: false`"
            raise SpecError(f"{where}:{line}: in entry '{op.full_name}', key '{key}': the generated "
                            f"method `Tensor.{method}` would replace minigrad's own "
                            f"`Tensor.{method}`; {fix}.")


def _with_node_index(op, index):
    return replace(op, node_index=index)


def _public_functions(package_dir):
    """Names of the public functions defined in a package's modules (read, not imported)."""
    names = set()
    for filename in sorted(os.listdir(package_dir)):
        if filename.endswith(".py"):
            with open(os.path.join(package_dir, filename), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            names.update(n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                         and not n.name.startswith("_") and n.name != "ops_for")
    return names


def _read_entries(text, where):
    """[(fields {key: (value, line)}, line)] keeping each value's line number."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)  # libyaml: 10x faster
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise SpecError(f"{where}:{line}: not valid YAML: {getattr(exc, 'problem', exc)}. "
                        "Check indentation and quoting around this line.") from None
    if root is None:
        return []
    if not isinstance(root, yaml.SequenceNode):
        raise SpecError(f"{where}:1: the file must be a YAML list of entries (`- name: ...`).")
    entries = []
    for item in root.value:
        line = item.start_mark.line + 1
        if not isinstance(item, yaml.MappingNode):
            raise SpecError(f"{where}:{line}: each entry must be a mapping starting with "
                            "`- name: op(Tensor self) -> Tensor`.")
        fields = {}
        for key_node, value_node in item.value:
            key, key_line = str(key_node.value), key_node.start_mark.line + 1
            if key in fields:  # YAML keeps the last one silently: a formula would vanish
                name = fields.get("name", ("?",))[0]
                raise SpecError(f"{where}:{key_line}: in entry '{_short_name(name)}', key '{key}': "
                                f"given twice (first at line {fields[key][1]}). Keep one.")
            value = loader.construct_object(value_node, deep=True)
            fields[key] = (value, key_line)
        entries.append((fields, line))
    return entries


def _short_name(schema):
    match = SCHEMA.match(str(schema))
    return f"{match.group(1)}{'.' + match.group(2) if match.group(2) else ''}" if match else str(schema)


def _build_op(fields, line, where, vocabulary, kernels):
    if "name" not in fields:
        raise SpecError(f"{where}:{line}: entry has no `name:`. Add a schema such as "
                        "`name: neg(Tensor self) -> Tensor`.")
    schema, name_line = fields["name"]
    base, overload, args, outputs = parse_schema(str(schema), f"{where}:{name_line}")
    label = f"{where}:{{line}}: in entry '{base}{'.' + overload if overload else ''}'"
    arg_names = {a.name for a in args}
    for key, (value, key_line) in fields.items():
        if key in KNOWN_KEYS or key in arg_names or _forward_key(key, outputs):
            continue
        key_hint, arg_hint = did_you_mean(key, KNOWN_KEYS), did_you_mean(key, arg_names)
        if isinstance(value, str) and key.isidentifier() and not key_hint:
            raise SpecError(
                f"{label.format(line=key_line)}, key '{key}': formula for '{key}', but {base} has "
                f"no input named '{key}'.{arg_hint} Inputs: "
                f"{', '.join(a.name for a in args if a.is_differentiable_kind) or 'none'}.")
        raise SpecError(f"{label.format(line=key_line)}: unknown key '{key}'.{key_hint or arg_hint} "
                        f"Known keys: {', '.join(KNOWN_KEYS)}, or an input's name for its formula.")
    if "forward" not in fields:
        raise SpecError(f"{label.format(line=line)}: no `forward:`. Add the numpy expression "
                        "computing the output, e.g. `forward: np.exp(self)`.")
    outputs = _apply_output_differentiability(fields, outputs, label)
    view = _flag(fields, "view", False, label)
    method = _flag(fields, "method", True, label)
    inplace = _flag(fields, "inplace", False, label)
    wraps_ints = _flag(fields, "wraps_ints", True, label)
    inplace_line = fields.get("inplace", (None, line))[1]
    if inplace and (view or not method or len(outputs) != 1 or outputs[0].type != "Tensor"):
        raise SpecError(f"{label.format(line=inplace_line)}, key 'inplace': an in-place method "
                        "(`x.op_()`) needs a Tensor method (`method: true`) with one Tensor "
                        "output that is not a view; drop `inplace: true`.")
    once = fields.get("once_differentiable", ("", line))[0] or ""
    modules = _modules(fields, label)
    forward_text, forward_line = fields["forward"]
    forward_names = analyze.check_forward(str(forward_text), args, kernels,
                                          label.format(line=forward_line) + ", key 'forward'")
    formulas, non_diff = [], []
    for arg in args:
        if arg.name not in fields:
            if arg.is_differentiable_kind:
                raise SpecError(
                    f"{label.format(line=line)}: input '{arg.name}' is a {arg.type} but has no "
                    f"formula. Add `{arg.name}: <derivative>` or `{arg.name}: non_differentiable`.")
            continue
        text, formula_line = fields[arg.name]
        where_formula = label.format(line=formula_line) + f", key '{arg.name}'"
        if not arg.is_differentiable_kind:
            raise SpecError(f"{where_formula}: '{arg.name}' is a {arg.type}, not a Tensor; only "
                            "Tensor inputs get a formula. Remove this line.")
        if str(text).strip() == "non_differentiable":
            non_diff.append(arg.name)
            continue
        formulas.append(analyze.analyze_formula(str(text), arg.name, args, outputs, vocabulary,
                                                where_formula, formula_line))
    samples = _samples(fields, args, label)
    boundary, convention = _boundary(fields, args, label)
    promote = _promote(fields, args, label)
    floating = _promote(fields, args, label, key="floating")
    refuses = _refuses(fields, label)
    refuses_bool_operand = _message(fields, "refuses_bool_operand", label)
    forward_formulas = _forward_formulas(fields, base, overload, args, outputs, formulas,
                                         non_diff, vocabulary, label)
    return OpSpec(name=base, overload=overload, schema=str(schema).strip(), line=line,
                  args=tuple(args), outputs=tuple(outputs), forward=str(forward_text).strip(),
                  forward_names=tuple(forward_names), formulas=tuple(formulas),
                  non_differentiable=tuple(non_diff), samples=samples, view=view,
                  once_differentiable=str(once), method=method, modules=modules,
                  inplace=inplace, inplace_line=inplace_line, boundary=boundary,
                  boundary_convention=convention, promote=promote, floating=floating,
                  refuses=refuses, refuses_bool_operand=refuses_bool_operand, wraps_ints=wraps_ints,
                  forward_formulas=forward_formulas)


AUTO_FORWARD = ("auto_element_wise", "auto_linear", "via_backward")


def _forward_key(key, outputs):
    """The output names a forward-formula key defines (`result`, `values`, `U, S, Vh`), or ()."""
    if key == "result" and len(outputs) == 1:
        return ("result",)
    names = tuple(part.strip() for part in key.split(","))
    known = {o.name for o in outputs} if len(outputs) > 1 else set()
    return names if names and all(n in known for n in names) else ()


def _forward_formulas(fields, base, overload, args, outputs, formulas, non_diff, vocabulary, label):
    """The `result:` keys: explicit JVP formulas, or auto_element_wise / auto_linear."""
    differentiable = [a.name for a in args if a.is_differentiable_kind and a.name not in non_diff]
    wanted = {o.name for o in outputs if o.differentiable}
    found, defined = [], set()
    for key, (value, line) in fields.items():
        names = _forward_key(key, outputs)
        if not names:
            continue
        where = label.format(line=line) + f", key '{key}'"
        if set(names) - wanted:
            raise SpecError(f"{where}: output(s) {', '.join(sorted(set(names) - wanted))} are not "
                            "differentiable (output_differentiability): they get no forward formula.")
        if not differentiable:
            raise SpecError(f"{where}: the entry has no differentiable input, so no tangent; "
                            "remove this forward formula.")
        text = str(value).strip()
        kind = text if text in AUTO_FORWARD else "explicit"
        if kind == "auto_element_wise":
            text = _auto_element_wise(base, differentiable, outputs, formulas, where)
        elif kind == "auto_linear":
            text = _auto_linear(base, overload, args, differentiable, outputs, where)
        elif kind == "via_backward":
            text = _via_backward(base, overload, args, differentiable, outputs, names)
        found.append(analyze.analyze_forward(text, names, args, outputs, differentiable,
                                             vocabulary, where, line, kind))
        defined |= set(names)
    return tuple(found)


def _auto_element_wise(base, differentiable, outputs, formulas, where):
    """PyTorch's auto_element_wise: the backward formula with the tangent for `grad`.  Sound
    only for one differentiable input and one output, where the formula is grad times an
    elementwise factor (PyTorch refuses anything else, and so do we)."""
    if len(differentiable) != 1 or len(outputs) != 1 or outputs[0].type != "Tensor":
        raise SpecError(f"{where}: auto_element_wise needs one differentiable input and one "
                        f"Tensor output; {base} has inputs {', '.join(differentiable)} and "
                        f"{len(outputs)} output(s). Write the formula instead.")
    backward = next(f for f in formulas if f.input == differentiable[0])
    return analyze.substitute_grad(backward.text, f"{differentiable[0]}_t")


def _auto_linear(base, overload, args, differentiable, outputs, where):
    """PyTorch's auto_linear: the op itself applied to the tangents (for an op linear in its
    differentiable inputs), the other arguments as they are."""
    parts = []
    for a in args:
        value = f"{a.name}_t" if a.name in differentiable else a.name
        parts.append(f"{a.name}={value}" if a.kwarg_only else value)
    name = f"{base}_{overload}" if overload else base
    if len(outputs) != 1:
        raise SpecError(f"{where}: auto_linear needs one output (a Tensor or a Tensor[]); "
                        "write the formula for each output instead.")
    return f"{name}({', '.join(parts)})"


def _via_backward(base, overload, args, differentiable, outputs, names):
    """J t from the backward formula by transposition (formulas/forward.py: via_backward):
    a stopgap for entries whose explicit forward formula is not written yet."""
    positional = ", ".join(a.name for a in args if not a.kwarg_only)
    keywords = ", ".join(f"{a.name!r}: {a.name}" for a in args if a.kwarg_only)
    tangents = ", ".join(f"{name}_t" for name in differentiable)
    name = f"{base}_{overload}" if overload else base
    call = f"via_backward({name!r}, [{positional}], {{{keywords}}}, [{tangents}])"
    if len(outputs) == 1:
        return call
    indices = [i for i, o in enumerate(outputs) if o.name in names]
    return f"pick({call}, {indices!r})" if len(names) > 1 else f"pick({call}, {indices[0]})"


def _promote(fields, args, label, key="promote"):
    """``promote: [self, other]``: Tensor inputs that take PyTorch's type promotion together;
    ``floating: [self]``: Tensor inputs cast to the default dtype when integral or bool."""
    value, line = fields.get(key, ([], 0))
    tensors = [a.name for a in args if a.is_tensor and not a.is_tensor_list]
    if not isinstance(value, list) or not all(name in tensors for name in value):
        raise SpecError(f"{label.format(line=line)}, key '{key}': a list of the entry's Tensor "
                        f"inputs, e.g. [{', '.join(tensors)}]; got {value!r}.")
    return tuple(value)


REFUSED_DTYPES = ("integral", "bool", "integral_except_int64", "half")  # promotion.py: _REFUSED


def _refuses(fields, label):
    """``refuses: {integral: hypot_cpu}``: the dtypes (``integral`` = integers and bool,
    ``bool``, ``integral_except_int64`` as avg_pool2d, or ``half``: float16, as most of
    torch.special) PyTorch refuses, and its kernel's
    name (NotImplementedError) or, with a space,
    a RuntimeError message in which ``{dtype}`` is the input's dtype (``Long``)."""
    value, line = fields.get("refuses", ({}, 0))
    if (not isinstance(value, dict) or len(value) > 1
            or not all(k in REFUSED_DTYPES and isinstance(v, str) for k, v in value.items())):
        raise SpecError(f"{label.format(line=line)}, key 'refuses': {{dtypes: kernel_name}}, the "
                        f"dtypes one of {', '.join(REFUSED_DTYPES)}; got {value!r}.")
    return tuple(value.items())[0] if value else ()


def _message(fields, key, label):
    """A RuntimeError message (``refuses_bool_operand: "..."``), or "" without the key."""
    value, line = fields.get(key, ("", 0))
    if not isinstance(value, str):
        raise SpecError(f"{label.format(line=line)}, key '{key}': a message; got {value!r}.")
    return value


def _flag(fields, key, default, label):
    value, line = fields.get(key, (default, 0))
    if not isinstance(value, bool):
        raise SpecError(f"{label.format(line=line)}: `{key}` must be true or false, not {value!r}.")
    return value


def _modules(fields, label):
    value, line = fields.get("modules", (["minigrad"], 0))
    value = [value] if isinstance(value, str) else value
    for module in value:
        if module not in MODULES:
            raise SpecError(f"{label.format(line=line)}: unknown module '{module}'. Use one of "
                            f"{', '.join(MODULES)}.")
    return tuple(value)


def _apply_output_differentiability(fields, outputs, label):
    if "output_differentiability" not in fields:
        return outputs
    flags, line = fields["output_differentiability"]
    if not isinstance(flags, list) or len(flags) != len(outputs) or not all(isinstance(f, bool) for f in flags):
        raise SpecError(f"{label.format(line=line)}: output_differentiability must be a list of "
                        f"{len(outputs)} true/false values, one per output.")
    return [Output(o.name, o.type, flag) for o, flag in zip(outputs, flags)]


# ------------------------------------------------------------------ schema
def parse_schema(text, where):
    """``op.overload(Type name=default, *, ...) -> returns`` -> (base, overload, args, outputs)."""
    match = SCHEMA.match(text)
    if not match:
        raise SpecError(f"{where}: malformed schema '{text}'. Write it as "
                        "`name(Tensor self, int dim=0) -> Tensor`.")
    base, overload, params, returns = match.groups()
    args, kwarg_only = [], False
    for part in _split_top_level(params):
        if part == "*":
            kwarg_only = True
            continue
        args.append(_parse_arg(part, kwarg_only, where, text))
    names = [a.name for a in args]
    for name in names:
        if names.count(name) > 1:
            raise SpecError(f"{where}: malformed schema '{text}': argument '{name}' appears twice.")
        if name in RESERVED_ARG_NAMES or name.startswith("grad_"):
            raise SpecError(f"{where}: malformed schema '{text}': '{name}' is reserved for "
                            "formulas; rename the argument.")
    if not any(a.is_differentiable_kind for a in args):
        raise SpecError(f"{where}: malformed schema '{text}': an op needs at least one Tensor input.")
    return base, overload or "", args, _parse_returns(returns, where, text)


def _split_top_level(params):
    parts, depth, current = [], 0, ""
    for ch in params:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _parse_arg(part, kwarg_only, where, text):
    decl, _, default_text = part.partition("=")
    pieces = decl.split()
    if len(pieces) != 2 or pieces[0] not in ARG_TYPES or not pieces[1].isidentifier():
        raise SpecError(f"{where}: malformed schema '{text}': cannot read argument '{part}'. "
                        f"Write `Type name` or `Type name=default` with Type one of {', '.join(ARG_TYPES)}.")
    default = NO_DEFAULT
    if default_text.strip():
        try:
            default = ast.literal_eval(default_text.strip())
        except (ValueError, SyntaxError):
            raise SpecError(f"{where}: malformed schema '{text}': default of '{pieces[1]}' "
                            f"({default_text.strip()}) is not a Python literal.") from None
        if isinstance(default, list):
            default = tuple(default)
    return Arg(pieces[1], pieces[0], default, kwarg_only)


def _parse_returns(returns, where, text):
    returns = returns.strip()
    if returns in ("Tensor", "Tensor[]"):
        return [Output("result", returns)]
    if returns.startswith("(") and returns.endswith(")"):
        outputs = []
        for part in _split_top_level(returns[1:-1]):
            pieces = part.split()
            if len(pieces) != 2 or pieces[0] != "Tensor" or not pieces[1].isidentifier():
                raise SpecError(f"{where}: malformed schema '{text}': cannot read output '{part}'. "
                                "Write `(Tensor values, Tensor indices)`.")
            outputs.append(Output(pieces[1], "Tensor"))
        if len(outputs) >= 2:
            return outputs
    raise SpecError(f"{where}: malformed schema '{text}': returns must be `Tensor`, `Tensor[]` "
                    "or `(Tensor a, Tensor b, ...)`.")


# ------------------------------------------------------------------ samples
def _samples(fields, args, label):
    """The entry's samples, plus the float32 and non-contiguous variants every entry gets."""
    value, line = fields.get("samples", (None, 0))
    where = label.format(line=line)
    items = [{}] if value is None else value if isinstance(value, list) else [value]
    by_name = {a.name: a for a in args}
    raw = []
    for item in items:
        if not isinstance(item, dict):
            raise SpecError(f"{where}: each sample must be a mapping of argument names to "
                            "shapes or values.")
        for name in item:
            if name not in by_name and name not in SAMPLE_OPTIONS:
                raise SpecError(f"{where}, key 'samples': sample gives '{name}', which is not an "
                                f"argument.{did_you_mean(name, list(by_name) + list(SAMPLE_OPTIONS))}"
                                f" Arguments: {', '.join(by_name)}.")
        raw.append(_with_default_tensors(dict(item), args, where))
    derived = fields.get("derived_samples", (True, 0))[0]
    if derived:
        for key, value_ in (("dtype", "float32"), ("noncontiguous", True)):
            if not any(_sets(item, args, key, value_) for item in raw):
                variant = _variant(raw[0], args, key, value_)
                if variant is not None:
                    raw.append(variant)
    return tuple(_render_sample(item, args, where) for item in raw)


SAMPLE_OPTIONS = ("fast", "skip_gradgrad")


def _boundary(fields, args, label):
    """``boundary: {convention: "...", samples: [...]}``: fragile points compared with torch."""
    if "boundary" not in fields:
        return (), ""
    value, line = fields["boundary"]
    where = label.format(line=line) + ", key 'boundary'"
    if not isinstance(value, dict) or set(value) != {"convention", "samples"} \
            or not isinstance(value["convention"], str) or not value["convention"].strip():
        raise SpecError(f"{where}: write `boundary: {{convention: \"what the gradient is at these "
                        "points, as torch\", samples: [...]}}` (both keys, a non-empty convention).")
    items = value["samples"] if isinstance(value["samples"], list) else [value["samples"]]
    rendered = []
    for item in items:
        if not isinstance(item, dict) or set(item) - {a.name for a in args}:
            raise SpecError(f"{where}: each boundary sample is a mapping of argument names "
                            f"(arguments: {', '.join(a.name for a in args)}).")
        rendered.append(_render_sample(_with_default_tensors(dict(item), args, where), args, where))
    return tuple(rendered), value["convention"].strip()


def _with_default_tensors(item, args, where):
    for arg in args:
        if arg.name not in item and not arg.has_default:
            if not arg.is_differentiable_kind:
                raise SpecError(f"{where}: sample needs a value for '{arg.name}' ({arg.type}, "
                                "no default).")
            item[arg.name] = [3, 4] if arg.is_tensor else [[2, 3], [2, 3]]
    return item


def _float_specs(item, args):
    """(arg name, index or None, spec dict) for every floating tensor spec in a sample."""
    for arg in args:
        if not arg.is_differentiable_kind or arg.name not in item:
            continue
        specs = item[arg.name] if arg.is_tensor_list else [item[arg.name]]
        if not isinstance(specs, list) or (arg.is_tensor and not _is_spec(item[arg.name])):
            continue
        for i, spec in enumerate(specs):
            spec = _as_spec_dict(spec)
            if spec is not None and spec.get("dtype", "float64") in ("float64", "float32") \
                    and spec.get("requires_grad", True):
                yield arg, i, spec


def _is_spec(value):
    return isinstance(value, dict) or (isinstance(value, list) and all(isinstance(n, int) for n in value))


def _as_spec_dict(spec):
    if isinstance(spec, list) and all(isinstance(n, int) for n in spec):
        return {"shape": spec}
    return dict(spec) if isinstance(spec, dict) else None


def _sets(item, args, key, value):
    return any(spec.get(key) == value for _, _, spec in _float_specs(item, args))


def _variant(item, args, key, value):
    """A copy of ``item`` with ``key: value`` in every floating tensor spec (None if it has none)."""
    variant = {k: v for k, v in item.items() if k not in SAMPLE_OPTIONS or k == "fast"}
    changed = False
    for arg, i, spec in list(_float_specs(item, args)):
        if key == "noncontiguous" and len(spec.get("shape", [3, 4])) == 0:
            continue  # a 0-d tensor has no layout to vary
        spec[key] = value
        changed = True
        if arg.is_tensor_list:
            variant[arg.name] = list(variant[arg.name])
            variant[arg.name][i] = spec
        else:
            variant[arg.name] = spec
    return variant if changed else None


def _render_sample(item, args, where):
    item = dict(item)
    fast = bool(item.pop("fast", False))
    skip = str(item.pop("skip_gradgrad", "") or "")
    rendered = tuple((arg.name, _sample_value(arg, item[arg.name], where))
                     for arg in args if arg.name in item)
    return SampleSpec(args=rendered, fast=fast, skip_gradgrad=skip)


SAMPLE_DTYPES = ("float64", "float32", "int64", "bool")
INDEX_SAMPLE_NAMES = frozenset({"tensor", "None", "Ellipsis", "True", "False"})
TENSOR_SPEC_KEYS = ("shape", "domain", "dtype", "values", "high", "distinct", "noncontiguous",
                    "spectrum", "symmetric",
                    "requires_grad")


def _sample_value(arg, value, where):
    """Python source building this sample value (TensorSpec calls for tensors)."""
    if arg.is_tensor_list:
        if not isinstance(value, list):
            raise SpecError(f"{where}: sample for '{arg.name}' must be a list of tensor specs.")
        return "[" + ", ".join(_tensor_spec(arg.name, v, where) for v in value) + "]"
    if arg.is_tensor:
        if value is None and arg.type == "Tensor?":
            return "None"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return repr(value)  # a Python number where a Tensor is accepted
        return _tensor_spec(arg.name, value, where)
    if arg.type == "Index":
        try:
            tree = ast.parse(f"x[{value}]", mode="eval")
        except SyntaxError:
            raise SpecError(f"{where}: sample index for '{arg.name}' must be the text between "
                            f"brackets, like \"1:3, ::2\"; got {value!r}.") from None
        names = {n.id for n in ast.walk(tree.body.slice) if isinstance(n, ast.Name)}
        if names - INDEX_SAMPLE_NAMES:
            raise SpecError(f"{where}: sample index for '{arg.name}' uses {sorted(names - INDEX_SAMPLE_NAMES)}; "
                            "an index may hold literals, None, Ellipsis, lists and "
                            "`tensor([...])` index tensors only.")
        return f"np.index_exp[{value}]"
    if isinstance(value, list):
        value = tuple(value)
    return _literal(value)


def _literal(value):
    """repr() that keeps YAML's .inf / .nan valid Python (repr gives a bare name)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(_literal(v) + ", " for v in value) + ")"
    return repr(value)


def _tensor_spec(name, value, where):
    if isinstance(value, list) and all(isinstance(n, int) for n in value):
        return f"T({value!r})"
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(TENSOR_SPEC_KEYS))
        if unknown:
            raise SpecError(f"{where}, key 'samples': sample for '{name}' has unknown key "
                            f"'{unknown[0]}'.{did_you_mean(unknown[0], TENSOR_SPEC_KEYS)} Tensor "
                            f"specs take {', '.join(TENSOR_SPEC_KEYS)}.")
        dtype = value.get("dtype", "float64")
        if dtype not in SAMPLE_DTYPES:
            raise SpecError(f"{where}, key 'samples': sample for '{name}' has dtype {dtype!r}, "
                            "which the generated checks cannot honour (finite differences need "
                            f"float64, and float32 is checked against them). Use one of "
                            f"{', '.join(SAMPLE_DTYPES)}.")
        return "T(" + ", ".join(f"{k}={_literal(v)}" for k, v in value.items()) + ")"
    raise SpecError(f"{where}: sample for tensor '{name}' must be a shape like [3, 4] or a "
                    f"mapping like {{shape: [3, 4], domain: [0.1, 2]}}; got {value!r}.")
