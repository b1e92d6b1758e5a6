"""Forward formulas (`result:`): bad ones are refused with derivatives.yaml:LINE, a wrong one
fails its generated checks naming the op, input, formula and line, and an entry without one
is listed by codegen and refused at run time."""

import numpy as np
import pytest

from codegen.__main__ import main
from codegen.load import SpecError, load_registry
from tests.conftest import generated_modules, write_spec

MULB = """\
- name: mulb(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: sum_to(grad * other, self.shape)
  other: sum_to(grad * self, other.shape)
  result: {result}
  samples:
    - {{self: [3, 4], other: [4]}}
"""


def _forward_rows(tests, entry):
    return [p.values for p in tests.FORWARD if p.id.rsplit("-", 1)[0] == entry]


def test_a_right_forward_formula_passes_its_generated_checks(tmp_path, monkeypatch):
    _, tests = generated_modules(tmp_path, monkeypatch,
                                 MULB.format(result="self_t * other + other_t * self"), "fwright")
    rows = _forward_rows(tests, "mulb")
    assert len(rows) == 3  # the sample, plus the derived float32 and non-contiguous ones
    for row in rows:
        tests.test_forward_derivative(*row)
        tests.test_forward_over_reverse(*row)


def test_via_backward_transposes_the_backward_formula(tmp_path, monkeypatch):
    functions, tests = generated_modules(tmp_path, monkeypatch, MULB.format(result="via_backward"), "fwvia")
    for row in _forward_rows(tests, "mulb"):
        tests.test_forward_derivative(*row)
    import minigrad as mg
    import minigrad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        out = functions.mulb(fwAD.make_dual(mg.tensor([2.0, 3.0]), mg.tensor([1.0, 10.0])),
                             mg.tensor([5.0, 7.0]))
        np.testing.assert_allclose(fwAD.unpack_dual(out).tangent.numpy(), [5.0, 70.0])


def test_a_wrong_forward_formula_fails_naming_op_input_formula_and_line(tmp_path, monkeypatch):
    wrong = "self_t * other + other_t * self * 1.01"
    _, tests = generated_modules(tmp_path, monkeypatch, MULB.format(result=wrong), "fwwrong")
    with pytest.raises(AssertionError) as failure:
        tests.test_forward_derivative(*_forward_rows(tests, "mulb")[0])
    message = str(failure.value)
    assert message.startswith("mulb: the forward derivative (JVP) for input `other` is wrong"), message
    assert f"derivatives.yaml:5: `result: {wrong}`" in message
    assert "largest error" in message and "finite differences" in message


def test_a_wrong_forward_formula_disagrees_with_the_backward_one(tmp_path, monkeypatch):
    # right on finite differences for `self` alone, but a sign error in the `other` term
    _, tests = generated_modules(tmp_path, monkeypatch,
                                 MULB.format(result="self_t * other - other_t * self"), "fwsign")
    with pytest.raises(AssertionError) as failure:
        tests.test_forward_derivative(*_forward_rows(tests, "mulb")[0])
    assert "input `other`" in str(failure.value) and "self_t * other - other_t * self" in str(failure.value)


BAD = {
    "unknown name": ("self_t * othr", "unknown name 'othr'"),
    "grad in a forward formula": ("grad * other", "not gradients"),
    "a term without tangent": ("self_t * other + self", "names no tangent"),
    "element_wise with two inputs": ("auto_element_wise", "auto_element_wise needs one differentiable input"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_forward_formula_names_line_entry_and_key(tmp_path, case):
    text, phrase = BAD[case]
    with pytest.raises(SpecError) as err:
        load_registry(write_spec(str(tmp_path), MULB.format(result=text)))
    message = str(err.value)
    assert message.startswith("derivatives.yaml:5: in entry 'mulb', key 'result'"), message
    assert phrase in message


def test_tangent_of_a_non_differentiable_input_is_refused(tmp_path):
    spec = """\
- name: pick(Tensor self, Tensor index) -> Tensor
  forward: self * index
  self: grad * index
  index: non_differentiable
  result: self_t * index + index_t
"""
    with pytest.raises(SpecError) as err:
        load_registry(write_spec(str(tmp_path), spec))
    message = str(err.value)
    assert message.startswith("derivatives.yaml:5: in entry 'pick', key 'result'"), message
    assert "'index_t' is the tangent of 'index', which is not differentiable" in message


def test_bad_forward_formula_writes_nothing(tmp_path, capsys):
    write_spec(str(tmp_path), MULB.format(result="self_t * other + other_t * self"))
    assert main(["--root", str(tmp_path)]) == 0
    generated = tmp_path / "minigrad" / "_generated" / "jvps.py"
    before = generated.read_text()
    (tmp_path / "derivatives.yaml").write_text(MULB.format(result="self_t * othr"))
    assert main(["--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Nothing was written" in err and "derivatives.yaml:5" in err and len(err.splitlines()) == 1
    assert generated.read_text() == before


def test_entries_without_forward_formula_are_listed_and_refused(tmp_path, monkeypatch, capsys):
    spec = MULB.replace("  result: {result}\n", "").format()
    write_spec(str(tmp_path / "listed"), spec)
    assert main(["--root", str(tmp_path / "listed")]) == 0
    assert "1 entries have no forward derivative (`result:`; forward AD through them raises): mulb" \
        in capsys.readouterr().out
    functions, _ = generated_modules(tmp_path, monkeypatch, spec, "fwnone")
    import minigrad as mg
    import minigrad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        plain = functions.mulb(mg.ones(2), mg.ones(2))  # no tangent: no formula needed
        np.testing.assert_allclose(plain.numpy(), [1.0, 1.0])
        with pytest.raises(NotImplementedError, match="forward AD with mulb"):
            functions.mulb(fwAD.make_dual(mg.ones(2), mg.ones(2)), mg.ones(2))
