"""The parsed registry: frozen dataclasses the templates render."""
from dataclasses import dataclass, field

NO_DEFAULT = object()

TENSOR_TYPES = ("Tensor", "Tensor?")
ARG_TYPES = ("Tensor", "Tensor?", "Tensor[]", "int", "int?", "int[]", "int[]?", "float",
             "float?", "Scalar", "Scalar?", "bool", "str", "str?", "ScalarType",
             "ScalarType?", "Index", "Device")
METADATA_ATTRS = ("shape", "ndim", "dtype")


@dataclass(frozen=True)
class Arg:
    name: str
    type: str
    default: object = NO_DEFAULT
    kwarg_only: bool = False

    @property
    def is_tensor(self):
        return self.type in TENSOR_TYPES

    @property
    def is_tensor_list(self):
        return self.type == "Tensor[]"

    @property
    def is_differentiable_kind(self):
        return self.is_tensor or self.is_tensor_list

    @property
    def has_default(self):
        return self.default is not NO_DEFAULT

    @property
    def local(self):
        """The Python variable name in generated code (``self`` is the node there)."""
        return "self_" if self.name == "self" else self.name


@dataclass(frozen=True)
class Output:
    name: str
    type: str              # "Tensor" or "Tensor[]"
    differentiable: bool = True


@dataclass(frozen=True)
class Formula:
    input: str             # the input it differentiates
    text: str              # as written in the YAML
    code: str              # Python over ``F``, locals and node attributes
    tensors: tuple         # saved tensor inputs/outputs it reads (names)
    metadata: tuple        # (name, attr) pairs it reads
    scalars: tuple         # non-tensor arguments it reads
    grads: tuple           # output indices whose gradient it reads ("all" = every one)
    line: int = 0          # its line in derivatives.yaml


@dataclass(frozen=True)
class ForwardTerm:
    """One `+`/`-` term of a forward formula: it runs only when one of its tangents is
    defined (a term naming several tangents fills the undefined ones with zeros)."""
    code: str              # Python over ``F`` and locals (inputs, outputs, tangents, scalars)
    tangents: tuple        # the tangent locals it names, e.g. ("self_t",)
    negate: bool = False


@dataclass(frozen=True)
class ForwardFormula:
    """The forward derivative (JVP) of one or several outputs: derivatives.yaml `result:`."""
    outputs: tuple         # output names it defines: ("result",), ("values",), ("U", "S", "Vh")
    kind: str              # "explicit", "auto_element_wise" or "auto_linear"
    text: str              # the formula (for the auto kinds: the formula codegen derived)
    terms: tuple           # ForwardTerms, summed; one term for a tuple of several outputs
    calls: tuple           # the functions it calls (batching rules: codegen reports loops)
    line: int = 0


@dataclass(frozen=True)
class SampleSpec:
    args: tuple            # ((name, python source of the value), ...)
    fast: bool = False
    skip_gradgrad: str = ""


@dataclass(frozen=True)
class OpSpec:
    name: str              # base Python name, e.g. "max"
    overload: str          # "" or e.g. "dim"
    schema: str
    line: int
    args: tuple
    outputs: tuple
    forward: str           # python over array locals
    forward_names: tuple   # kernel functions the forward calls
    formulas: tuple
    non_differentiable: tuple
    samples: tuple
    view: bool = False
    once_differentiable: str = ""
    method: bool = True
    modules: tuple = ("minigrad",)
    node_index: int = 0
    inplace: bool = False  # also generate `x.<name>_()` (only where torch has it)
    inplace_line: int = 0
    boundary: tuple = ()   # SampleSpecs at fragile points, compared with PyTorch
    boundary_convention: str = ""
    promote: tuple = ()    # Tensor inputs promoted together, as PyTorch (autograd/promotion.py)
    floating: tuple = ()   # Tensor inputs an integral or bool dtype of which becomes the default dtype
    refuses: tuple = ()    # (dtypes, message): "integral" or "bool" inputs PyTorch refuses, and how
    refuses_bool_operand: str = ""  # PyTorch's message refusing a bool among mixed operands
    wraps_ints: bool = True  # a Python int operand wraps into a narrow integer dtype (promote)
    forward_formulas: tuple = ()  # ForwardFormulas (`result:` keys), one per differentiable output

    @property
    def needs_forward_formula(self):
        """Forward AD can reach this op with a tangent and get a tangent out."""
        return bool(self.differentiable_args) and any(o.differentiable for o in self.outputs)

    @property
    def full_name(self):
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def func_name(self):
        return f"{self.name}_{self.overload}" if self.overload else self.name

    @property
    def node_name(self):
        camel = "".join(part[:1].upper() + part[1:] for part in self.name.split("_") if part)
        return f"{camel}Backward{self.node_index}"

    @property
    def tensor_args(self):
        return tuple(a for a in self.args if a.is_differentiable_kind)

    @property
    def differentiable_args(self):
        skip = set(self.non_differentiable)
        return tuple(a for a in self.tensor_args if a.name not in skip)

    @property
    def single_output(self):
        return len(self.outputs) == 1 and self.outputs[0].type == "Tensor"

    @property
    def list_output(self):
        return self.outputs[0].type == "Tensor[]"

    def formula_for(self, name):
        for f in self.formulas:
            if f.input == name:
                return f
        return None


@dataclass(frozen=True)
class Registry:
    ops: tuple
    path: str = "derivatives.yaml"
    helpers: frozenset = field(default_factory=frozenset)

    def overload_groups(self):
        """{base name: [ops]} for names with an overload (they get a dispatcher)."""
        groups = {}
        for op in self.ops:
            groups.setdefault(op.name, []).append(op)
        return {name: ops for name, ops in groups.items()
                if len(ops) > 1 or ops[0].overload}
