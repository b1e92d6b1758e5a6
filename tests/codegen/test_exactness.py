"""codegen/exactness.py: which formulas' gradient shapes are certain by construction
(the engine then checks only their dtypes).  A rule that claims too much would let a
formula's shape mistake through, so the refusals matter as much as the acceptances."""
import pytest

from codegen.exactness import dtype_certain, shape_sources, unary_ufunc_ops
from codegen.load import load_registry
from tests.conftest import write_spec

SPEC = """
- name: square(Tensor self) -> Tensor
  forward: np.square(self)
  self: 2 * grad * self

- name: cos(Tensor self) -> Tensor
  forward: np.cos(self)
  self: -(grad * sin(self))

- name: sin(Tensor self) -> Tensor
  forward: np.sin(self)
  self: grad * cos(self)

- name: sinsum(Tensor self) -> Tensor
  forward: np.sin(self)
  self: grad * sum_to(cos(self), ())

- name: cumsin(Tensor self) -> Tensor
  forward: np.cumsum(np.sin(self))
  self: grad * cos(self)

- name: scaled(Tensor self, float s=2.0) -> Tensor
  forward: np.sin(self) * s
  self: grad * s * cos(self)

- name: mul(Tensor self, Tensor other) -> Tensor
  forward: np.multiply(self, other)
  self: sum_to(grad * other, self.shape)
  other: sum_to(grad * self, other.shape)

- name: sign(Tensor self) -> Tensor
  forward: np.sign(self)
  self: grad * 0

- name: mulhalf(Tensor self, Tensor other) -> Tensor
  forward: np.multiply(self, 0.5)
  self: sum_to(grad * other, self.shape)
  other: sum_to(grad * self, other.shape)

- name: swapped(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: sum_to(grad * other, other.shape)
  other: sum_to(grad * self, other.shape)

- name: nosum(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: sum_to(grad * other, self.shape)
  other: grad * self
"""


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    registry = load_registry(write_spec(str(tmp_path_factory.mktemp("repo")), SPEC))
    unary = unary_ufunc_ops(registry.ops, frozenset())
    return ({op.name: shape_sources(op, unary) for op in registry.ops}, unary,
            {op.name for op in registry.ops if dtype_certain(op, unary)})


def test_unary_ufunc_ops_are_the_one_ufunc_forwards(ops):
    unary = ops[1]
    assert set(unary) == {"square", "cos", "sin", "sinsum", "sign"}  # not cumsum, nor `s`


@pytest.mark.parametrize("name, expected", [
    ("square", ("grad",)),          # arithmetic on grad, self and numbers
    ("cos", ("grad",)),             # through another unary ufunc op
    ("mul", ("_saved_self_shape", "_saved_other_shape")),  # sum_to to the input's own shape
    ("sinsum", None),               # a reduction (a helper) inside
    ("cumsin", None),               # forward is not one unary ufunc
    ("scaled", None),               # another argument
    ("swapped", None),              # sum_to to another input's shape
    ("nosum", None),                # one formula without sum_to: the node is checked in full
])
def test_which_formulas_have_certain_shapes(ops, name, expected):
    assert ops[0][name] == expected


def test_which_formulas_have_certain_dtypes_for_one_float_dtype_in_and_out(ops):
    # square, cos, sin, sign: elementwise through float-keeping ufuncs; mul: arithmetic
    # on the inputs its forward promoted together.  Not mulhalf: its forward promotes
    # only self (and a number), its formula also reads `other`; not sinsum, cumsin ...:
    # their shapes are not certain to begin with.
    assert ops[2] == {"square", "cos", "sin", "mul", "sign"}
