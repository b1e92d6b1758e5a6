"""gradcheck and gradgradcheck themselves: they pass right gradients and catch wrong ones."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import GradcheckError, gradcheck, gradgradcheck

WRONG_SQUARE = """\
- name: wrong_square(Tensor self) -> Tensor
  forward: self * self
  self: 3 * grad * self
"""


def x64(*shape):
    return mg.randn(*shape, dtype=mg.float64).requires_grad_()


@pytest.mark.parametrize("fast", [False, True])
def test_gradcheck_passes_correct_gradients(fast):
    a, b = x64(3, 2), x64(2)
    assert gradcheck(lambda a, b: (a * b).tanh(), (a, b), fast_mode=fast)
    assert gradgradcheck(lambda a, b: (a * b).tanh(), (a, b), fast_mode=fast)


@pytest.mark.parametrize("fast", [False, True])
def test_gradcheck_reports_the_output_input_and_both_jacobians(render_spec, fast):
    ops = render_spec(WRONG_SQUARE)
    with pytest.raises(GradcheckError) as err:
        gradcheck(ops.wrong_square, (x64(3),), fast_mode=fast)
    message = str(err.value)
    assert "mismatch for output 0 with respect to input 0" in message
    assert "numerical" in message and "analytical" in message


def test_gradcheck_can_return_false_instead_of_raising(render_spec):
    ops = render_spec(WRONG_SQUARE)
    assert gradcheck(ops.wrong_square, (x64(2),), raise_exception=False) is False


def test_gradcheck_demands_float64():
    x = mg.randn(3, dtype=mg.float32).requires_grad_()
    with pytest.raises(ValueError, match="float64"):
        gradcheck(mg.exp, (x,))


def test_gradcheck_handles_several_outputs_and_non_tensor_arguments():
    x = x64(3, 4)
    assert gradcheck(lambda t: mg.max(t, 1, keepdim=False).values, (x,))
    assert gradcheck(lambda t: (t.sum(dim=0), t.mean(dim=1)), (x,))
    assert np.isfinite(x.detach().numpy()).all()
