"""codegen/exactness.py: which formulas' gradient shapes are certain by construction
(the engine then checks only their dtypes).  A rule that claims too much would let a
formula's shape mistake through, so the refusals matter as much as the acceptances."""
import pytest

from codegen.exactness import shape_sources, unary_ufunc_ops
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
  forward: self * other
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
    return {op.name: shape_sources(op, unary) for op in registry.ops}, unary


def test_unary_ufunc_ops_are_the_one_ufunc_forwards(ops):
    _, unary = ops
    assert unary == {"square", "cos", "sin", "sinsum"}  # not cumsum, not a scalar argument


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
