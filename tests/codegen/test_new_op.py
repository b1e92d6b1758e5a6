"""A new op through the YAML alone gets checked; a well-formed WRONG formula is caught,
both by the engine at run time and by the op's generated gradcheck."""
import os

import numpy as np
import pytest

from tests.conftest import ROOT, generated_modules

with open(os.path.join(ROOT, "derivatives.yaml"), encoding="utf-8") as _f:
    REAL = _f.read()

CUBIC = """
- name: cubic(Tensor self, Scalar scale=1.0) -> Tensor
  forward: scale * self * self * self
  self: 3 * scale * grad * self * self
  inplace: true
  samples:
    - {self: [3, 4], scale: 0.5}
    - {self: {shape: [2, 5], domain: [0.5, 1.5]}}
"""


def _rows(tests, entry):
    return [p.values for p in tests.SAMPLES if p.id.rsplit("-", 1)[0] == entry]


def test_an_op_added_to_a_copy_of_the_yaml_is_generated_and_its_checks_run(tmp_path, monkeypatch):
    functions, tests = generated_modules(tmp_path, monkeypatch, REAL + CUBIC, "withcubic")
    rows = _rows(tests, "cubic")
    assert len(rows) == 4  # two samples, plus the derived float32 and non-contiguous ones
    for row in rows:
        tests.test_gradcheck(*row)
        tests.test_gradgradcheck(*row)
        tests.test_zero_grad_in_gives_zero_out(*row)
    import minigrad as mg
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    functions.cubic(x, 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 24.0])


MULB = """\
- name: mulb(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: sum_to(grad * other, self.shape)
  other: {other}
  samples:
    - {{self: [3, 4], other: [4]}}
    - {{self: {{shape: [3, 4], dtype: float32}}, other: {{shape: [4], dtype: float32}}}}
"""


def test_a_formula_off_by_two_per_mille_fails_its_generated_check(tmp_path, monkeypatch):
    _, tests = generated_modules(tmp_path, monkeypatch,
                                 MULB.format(other="sum_to(grad * self * 1.002, other.shape)"), "offby")
    rows = _rows(tests, "mulb")
    for row, dtype in zip(rows[:2], ("float64", "float32")):
        with pytest.raises(AssertionError) as failure:
            tests.test_gradcheck(*row)
        message = str(failure.value)
        assert message.startswith("mulb: "), message
        assert "input `other` (derivatives.yaml:4: `sum_to(grad * self * 1.002, other.shape)`)" in message
        assert f"T([4], dtype={dtype})" in message  # the sample
        assert "largest error" in message and "index (" in message


def test_a_formula_missing_sum_to_fails_at_run_time_and_in_its_generated_check(tmp_path, monkeypatch):
    functions, tests = generated_modules(tmp_path, monkeypatch, MULB.format(other="grad * self"), "nosumto")
    import minigrad as mg
    a = mg.ones((3, 4), requires_grad=True)
    b = mg.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError) as failure:
        functions.mulb(a, b).sum().backward()
    assert ("MulbBackward0 returned a gradient of shape (3, 4) for input `other` of shape (4,) "
            "(derivatives.yaml:4: `grad * self`)") in str(failure.value)
    with pytest.raises((AssertionError, RuntimeError)) as failure:
        tests.test_gradcheck(*_rows(tests, "mulb")[0])
    assert "`other`" in str(failure.value) and "grad * self" in str(failure.value)
