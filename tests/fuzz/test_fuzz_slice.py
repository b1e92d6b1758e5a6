"""A seeded slice of the differential fuzzer (tools/fuzz.py) in CI.

The full run is ``.venv/bin/python tools/fuzz.py --programs 20000``; this runs the
first ``PROGRAMS`` programs (seconds) and fails when minigrad and PyTorch disagree
on more of them than ``KNOWN_FINDINGS``: a ratchet, lowered as findings are fixed,
whose goal is zero.  Every finding is printed with its program, so a failure here
shows exactly what to run to reproduce it.
"""
import importlib.util
import pathlib

import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402

PROGRAMS = 200
KNOWN_FINDINGS = 0  # seeds 0..199 on 2026-11-27 (was 2, 10, 33); tools/fuzz.py prints their kinds


def _fuzz_module():
    path = pathlib.Path(__file__).resolve().parents[2] / "tools" / "fuzz.py"
    spec = importlib.util.spec_from_file_location("minigrad_fuzz", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seeded_slice_agrees_with_torch():
    fuzz = _fuzz_module()
    findings = []
    for seed in range(PROGRAMS):
        lines, diffs = fuzz.check(seed, torch, mg)
        if diffs and not fuzz.deliberate(lines, diffs, seed):
            findings.append(f"program {seed}:\n" + "\n".join(lines) + "\n  ! " + diffs[0])
    report = "\n".join(findings)
    assert len(findings) <= KNOWN_FINDINGS, f"{len(findings)} findings (known {KNOWN_FINDINGS}):\n{report}"


def test_fuzzer_catches_a_wrong_gradient(monkeypatch):
    """The comparison itself works: a gradient bent on purpose is a finding."""
    fuzz = _fuzz_module()
    lines = ["v0 = L.tensor(_rand(1, (3,)), dtype=L.float64, requires_grad=True)",
             "v1 = v0.exp()"]
    assert fuzz.compare(fuzz.run(lines, mg, False, 0), fuzz.run(lines, torch, True, 0)) == []
    monkeypatch.setattr(mg.Tensor, "exp", lambda self: mg.exp(self) * 1.0001)
    diffs = fuzz.compare(fuzz.run(lines, mg, False, 0), fuzz.run(lines, torch, True, 0))
    assert any(d.startswith("v1: values differ") for d in diffs)
    assert any(d.startswith("grads[0] differ") for d in diffs)


def test_fuzzer_compares_which_programs_raise():
    fuzz = _fuzz_module()
    lines = ["v0 = L.tensor(_rand(1, (3,)), dtype=L.float64, requires_grad=True)",
             "v0.exp_()"]  # in-place on a leaf that requires grad: both refuse
    mg_out, torch_out = fuzz.run(lines, mg, False, 0), fuzz.run(lines, torch, True, 0)
    assert mg_out.error[:2] == torch_out.error[:2] == ("forward", 1)
    assert fuzz.compare(mg_out, torch_out) == []


def test_multi_output_view_divergence_covers_a_later_version_error_only():
    """torch refuses the write through unbind's output when the view is used; minigrad
    allows it (docs/divergences.md) and then stops at its version check in backward,
    since exp saved the tensor the write changed."""
    fuzz = _fuzz_module()
    lines = ["v0 = L.tensor(_rand(1, (2, 3)), dtype=L.float64, requires_grad=True)",
             "v1 = v0.exp()", "v2 = v1.unbind(0)[0]", "v1.mul_(2.0)"]
    mg_out, torch_out = fuzz.run(lines, mg, False, 0), fuzz.run(lines, torch, True, 0)
    assert mg_out.error[0] == "grad" and "modified by an inplace" in mg_out.error[3]
    assert torch_out.error[0] == "loss" and "returns multiple views" in torch_out.error[3]
    diffs = fuzz.compare(mg_out, torch_out)
    assert fuzz.deliberate(lines, diffs, 0) == "multi-output-views"
    other = [diffs[0].replace("modified by an inplace operation", "something else")]
    assert fuzz.deliberate(lines, other, 0) is None


_INPUT = "v{} = L.tensor(_rand({}, {}), dtype=L.float64, requires_grad={})"
DIVERGENT_PROGRAMS = {
    # numpy's sqrt(-x) is a NaN with the sign bit set, torch's one without; copysign copies it
    "nan-sign": [_INPUT.format(0, 1, (4,), True), "v1 = v0.sqrt()", "v2 = v0.copysign(v1)"],
    # the gradient of |x / 0| is inf: torch's second order 0, minigrad's NaN
    "second-order-of-nonfinite": [_INPUT.format(0, 1, (3,), True),
                                  "v1 = L.tensor(_rand(2, (3,)) * 0, dtype=L.float64, requires_grad=False)",
                                  "v2 = v0 / v1", "v3 = v2.abs()"],
    # torch's sinh(-2) differs by an ulp between its SIMD loop and its scalar tail
    "ulp-ties": ["v0 = L.tensor(_rand(1, (12,)) * 0 - 2.0, dtype=L.float64, requires_grad=True)",
                 "v1 = v0.sinh()", "v2 = v1.min()"],
    # torch saves a folded copy of the (3, 2, 2) operand and misses the in-place change
    "matmul-folded-copy": [_INPUT.format(0, 1, (1, 2), True), _INPUT.format(1, 2, (3, 2, 2), True),
                           "v2 = v1 * 1.5", "v3 = v0 @ v2", "v2.mul_(2.0)"],
}


@pytest.mark.parametrize("name", list(DIVERGENT_PROGRAMS))
def test_each_divergence_matches_its_own_difference_only(name):
    """Each program differs, its divergence explains the difference, and explains none
    of the other programs' differences."""
    fuzz = _fuzz_module()
    diffs = {}
    for key, lines in DIVERGENT_PROGRAMS.items():
        diffs[key] = fuzz.compare(fuzz.run(lines, mg, False, 0), fuzz.run(lines, torch, True, 0))
        assert diffs[key], key
    lines = DIVERGENT_PROGRAMS[name]
    assert fuzz.deliberate(lines, diffs[name], 0) == name
    matches = dict(fuzz.DIVERGENCES)[name]
    for other, other_lines in DIVERGENT_PROGRAMS.items():
        if other != name:
            assert not matches(other_lines, diffs[other], 0), other
