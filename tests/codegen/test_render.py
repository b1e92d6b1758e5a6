"""Tiny specs rendered into a temporary package, imported and run."""
import gc
import weakref

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import GradcheckError, gradcheck, gradgradcheck

SQUARE = """\
- name: square(Tensor self) -> Tensor
  forward: self * self
  self: 2 * grad * self
"""


def test_a_new_op_from_yaml_is_differentiable_to_second_order(render_spec):
    ops = render_spec(SQUARE)
    x = mg.tensor([1.0, -2.0, 3.0], dtype=mg.float64, requires_grad=True)
    ops.square(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0])
    assert gradcheck(ops.square, (x,)) and gradgradcheck(ops.square, (x,))


def test_a_wrong_formula_is_caught_by_gradcheck(render_spec):
    ops = render_spec(SQUARE.replace("2 * grad * self", "3 * grad * self"))
    with pytest.raises(GradcheckError, match="mismatch for output 0 with respect to input 0"):
        gradcheck(ops.square, (mg.randn(3, dtype=mg.float64).requires_grad_(),))


def test_a_formula_that_is_not_differentiable_fails_gradgradcheck(render_spec):
    # cube_wrong's formula is right at first order, but calls an op whose own
    # derivative is declared zero, so its second derivative is wrong.
    ops = render_spec("""\
- name: cube(Tensor self) -> Tensor
  forward: self ** 3
  self: grad * 3 * self * self
- name: cube_wrong(Tensor self) -> Tensor
  forward: self ** 3
  self: grad * 3 * square_of_constant(self)
- name: square_of_constant(Tensor self) -> Tensor
  forward: self * self
  self: zeros_like(grad)
""")
    x = mg.randn(3, dtype=mg.float64).requires_grad_()
    assert gradgradcheck(ops.cube, (x,))
    assert gradcheck(ops.cube_wrong, (x,))
    with pytest.raises(GradcheckError):
        gradgradcheck(ops.cube_wrong, (x,))


def test_node_saves_exactly_what_formulas_name(render_spec):
    ops = render_spec("""\
- name: scale_by(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: sum_to(grad * other, self.shape)
  other: sum_to(grad * self, other.shape)
""")
    a = mg.randn(3).requires_grad_()
    b = mg.randn(3)                       # needs no gradient
    node = ops.scale_by(a, b).grad_fn
    saved = node.saved_values()
    assert set(saved) == {"other"}        # self is not saved: other needs no gradient
    assert saved["other"] is b
    assert node._saved_self_shape == (3,)  # metadata only, not the array


def test_metadata_only_reference_saves_no_array(render_spec):
    ops = render_spec("""\
- name: total(Tensor self) -> Tensor
  forward: np.sum(self)
  self: unreduce(grad, self.shape, None)
""")
    x = mg.randn(4).requires_grad_()
    assert ops.total(x).grad_fn.saved_values() == {}


def test_saving_result_creates_no_reference_cycle(render_spec):
    ops = render_spec("""\
- name: myexp(Tensor self) -> Tensor
  forward: np.exp(self)
  self: grad * result
""")
    gc.disable()
    try:
        y = ops.myexp(mg.randn(3).requires_grad_())
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()


def test_several_outputs_and_non_differentiable_output(render_spec):
    ops = render_spec("""\
- name: double_and_sign(Tensor self) -> (Tensor doubled, Tensor signs)
  forward: (2 * self, np.sign(self))
  self: 2 * grad_doubled
  output_differentiability: [true, false]
""")
    x = mg.tensor([3.0, -1.0], requires_grad=True)
    doubled, signs = ops.double_and_sign(x)
    assert not signs.requires_grad and doubled.requires_grad
    (doubled * mg.tensor([1.0, 10.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 20.0])
    assert ops.double_and_sign(x).signs.tolist() == [1.0, -1.0]


def test_once_differentiable_raises_a_clear_error_on_double_backward(render_spec):
    ops = render_spec("""\
- name: square_once(Tensor self) -> Tensor
  forward: self * self
  self: 2 * grad * self
  once_differentiable: "written with a numpy-only kernel"
""")
    x = mg.randn(3).requires_grad_()
    (g,) = mg.autograd.grad(ops.square_once(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * x.detach().numpy())
    with pytest.raises(RuntimeError, match="not differentiable twice.*numpy-only kernel"):
        mg.autograd.grad(g.sum(), x)


def test_only_needed_gradients_are_computed(render_spec):
    ops = render_spec("""\
- name: pick_first(Tensor self, Tensor other) -> Tensor
  forward: self + 0 * other
  self: grad
  other: grad / 0
""")
    a, b = mg.randn(2).requires_grad_(), mg.randn(2)
    with np.errstate(divide="raise", invalid="raise"):
        ops.pick_first(a, b).sum().backward()   # other's formula would raise if it ran
    assert a.grad.tolist() == [1.0, 1.0]


def test_overloads_dispatch_like_torch(render_spec):
    ops = render_spec("""\
- name: scale(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: grad * other
  other: grad * self
- name: scale.Scalar(Tensor self, Scalar factor=2) -> Tensor
  forward: self * factor
  self: grad * factor
""")
    x = mg.tensor([1.0, 2.0])
    assert ops.scale(x, x).tolist() == [1.0, 4.0]
    assert ops.scale(x, 3.0).tolist() == [3.0, 6.0] and ops.scale(x).tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        ops.scale(x, "a")
