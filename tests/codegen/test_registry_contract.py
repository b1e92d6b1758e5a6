"""The registry's contract: a bad entry appended to a copy of the real derivatives.yaml is
refused with one line naming derivatives.yaml:LINE, the entry and the key, and nothing is
written.  Codegen runs in a temporary copy of the repository's layout."""
import os
import shutil

import pytest

from codegen.__main__ import main
from codegen.emit import generated_ops
from tests.conftest import ROOT, write_spec

with open(os.path.join(ROOT, "derivatives.yaml"), encoding="utf-8") as _f:
    REAL = _f.read()
FIRST = len((REAL + "\n").splitlines()) + 1  # the line an appended entry starts on

# name: (entry, line within the entry, entry name, key, phrases the message must hold)
BAD = {
    "clash with Tensor.backward": ("""\
- name: backward(Tensor self) -> Tensor
  forward: self * 2.0
  self: grad * 2.0
""", 1, "backward", "name", ["`Tensor.backward` would replace minigrad's own"]),
    "in-place clash with Tensor.zero_": ("""\
- name: zero(Tensor self) -> Tensor
  forward: self * 0.0
  self: grad * 0.0
  inplace: true
""", 4, "zero", "inplace", ["`Tensor.zero_` would replace", "drop `inplace: true`"]),
    "in-place on a view": ("""\
- name: myview(Tensor self) -> Tensor
  forward: self
  self: grad
  view: true
  inplace: true
""", 5, "myview", "inplace", ["not a view"]),
    "duplicated formula key": (f"""\
- name: twice(Tensor self) -> Tensor
  forward: self * 2.0
  self: grad * 2.0
  self: grad
""", 4, "twice", "self", [f"given twice (first at line {FIRST + 2})"]),
    "float16 sample": ("""\
- name: halfsample(Tensor self) -> Tensor
  forward: self * 2.0
  self: grad * 2.0
  samples: {self: {shape: [3], dtype: float16}}
""", 4, "halfsample", "samples", ["dtype 'float16'", "cannot honour", "float64, float32"]),
    "unknown name in a formula": ("""\
- name: typo(Tensor self) -> Tensor
  forward: self * 2.0
  self: grad * 2.0 * selff / selff
""", 3, "typo", "self", ["unknown name 'selff'", "Did you mean 'self'"]),
    "unknown math constant in forward": ("""\
- name: typo(Tensor self) -> Tensor
  forward: self * math.pii
  self: grad * math.pi
""", 2, "typo", "forward", ["unknown name 'math.pii'", "'math.pi'"]),
    "unknown numpy function in forward": ("""\
- name: typo(Tensor self) -> Tensor
  forward: np.expp(self)
  self: grad * result
""", 2, "typo", "forward", ["unknown name 'np.expp'", "'np.exp'"]),
    "numpy written out": ("""\
- name: typo(Tensor self) -> Tensor
  forward: numpy.exp(self)
  self: grad * result
""", 2, "typo", "forward", ["unknown name 'numpy'", "Did you mean 'np'"]),
    "unknown function in a formula": ("""\
- name: typo(Tensor self) -> Tensor
  forward: np.exp(self)
  self: grad * exq(self)
""", 3, "typo", "self", ["unknown function 'exq'", "'exp'"]),
    "misspelt key forward": ("""\
- name: typo(Tensor self) -> Tensor
  foward: np.exp(self)
  self: grad * result
""", 2, "typo", "foward", ["unknown key 'foward'", "Did you mean 'forward'?"]),
    "misspelt key samples": ("""\
- name: typo(Tensor self) -> Tensor
  forward: np.exp(self)
  self: grad * result
  sampels: {self: [3]}
""", 4, "typo", "sampels", ["Did you mean 'samples'?"]),
    "misspelt input name": ("""\
- name: typo(Tensor self, Tensor other) -> Tensor
  forward: self * other
  self: sum_to(grad * other, self.shape)
  ohter: sum_to(grad * self, other.shape)
""", 4, "typo", "ohter", ["no input named 'ohter'", "Did you mean 'other'?"]),
    "misspelt tensor spec key": ("""\
- name: typo(Tensor self) -> Tensor
  forward: np.exp(self)
  self: grad * result
  samples: {self: {shape: [3], domian: [0, 1]}}
""", 4, "typo", "samples", ["unknown key 'domian'", "Did you mean 'domain'?"]),
    "result in a multi-output op": ("""\
- name: twoout(Tensor self) -> (Tensor a, Tensor b)
  forward: (self * 2.0, self * 3.0)
  self: grad_a * result
""", 3, "twoout", "self", ["unknown name 'result'", "several outputs, a, b: use a or b"]),
    "boundary without a convention": ("""\
- name: kinky(Tensor self) -> Tensor
  forward: np.abs(self)
  self: grad * sign(self)
  boundary:
    samples: [{self: {values: [0.0]}}]
""", 4, "kinky", "boundary", ["non-empty convention"]),
    "grad in a multi-output op": ("""\
- name: twoout(Tensor self) -> (Tensor a, Tensor b)
  forward: (self * 2.0, self * 3.0)
  self: grad * 2.0
""", 3, "twoout", "self", ["unknown name 'grad'", "use grad_a or grad_b"]),
}


def _snapshot(root):
    """{path: (bytes, mtime)} of every generated file under ``root``."""
    found = {}
    for folder in ("minigrad/_generated", "tests/generated"):
        for name in sorted(os.listdir(os.path.join(root, folder))):
            path = os.path.join(root, folder, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    found[path] = (f.read(), os.stat(path).st_mtime_ns)
    return found


@pytest.fixture
def repo(tmp_path):
    """A copy of the repository's layout: the real YAML, kernels, helpers, generated files."""
    write_spec(str(tmp_path), REAL)
    for folder in ("minigrad/_generated", "tests/generated"):
        shutil.copytree(os.path.join(ROOT, folder), tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _codegen(root, capsys, *args):
    code = main(["--root", str(root), *args])
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_entry_is_refused_in_one_line_and_nothing_is_written(repo, capsys, case):
    entry, offset, name, key, phrases = BAD[case]
    (repo / "derivatives.yaml").write_text(REAL + "\n" + entry)
    before = _snapshot(repo)
    code, err = _codegen(repo, capsys)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: derivatives.yaml:{FIRST + offset - 1}: in entry '{name}'"), err
    assert f"'{key}'" in err, err
    for phrase in phrases:
        assert phrase in err, err
    assert err.rstrip().endswith("Nothing was written.")
    assert _snapshot(repo) == before


@pytest.mark.parametrize("attribute", ["shape", "grad", "data", "dtype", "device", "register_hook"])
def test_every_hand_written_tensor_attribute_is_protected(repo, capsys, attribute):
    import minigrad
    assert hasattr(minigrad.Tensor, attribute)
    (repo / "derivatives.yaml").write_text(
        REAL + f"\n- name: {attribute}(Tensor self) -> Tensor\n  forward: self\n  self: grad\n")
    code, err = _codegen(repo, capsys)
    assert code == 2 and f"`Tensor.{attribute}` would replace" in err, err


TWO_OPS = """\
- name: twice_op(Tensor self) -> Tensor
  forward: self * 2.0
  self: grad * 2.0

- name: thrice_op(Tensor self) -> Tensor
  forward: self * 3.0
  self: grad * 3.0
"""


def test_dropping_an_op_needs_allow_removal(tmp_path, capsys):
    write_spec(str(tmp_path), TWO_OPS)
    assert _codegen(tmp_path, capsys)[0] == 0
    (tmp_path / "derivatives.yaml").write_text(TWO_OPS.split("\n\n")[0] + "\n")
    before = _snapshot(tmp_path)
    code, err = _codegen(tmp_path, capsys)
    assert code == 2 and "would remove 1 op(s) that minigrad/_generated has: thrice_op" in err, err
    assert "--allow-removal" in err and _snapshot(tmp_path) == before
    assert _codegen(tmp_path, capsys, "--check")[0] == 2  # never "current" while ops would go
    assert _codegen(tmp_path, capsys, "--allow-removal")[0] == 0
    assert generated_ops(str(tmp_path)) == ["twice_op"]


def test_an_empty_yaml_is_refused(repo, capsys):
    (repo / "derivatives.yaml").write_text("# everything went missing\n")
    before = _snapshot(repo)
    code, err = _codegen(repo, capsys)
    assert code == 2 and "would remove" in err and "sum_to_size" in err, err
    assert _snapshot(repo) == before


def test_an_empty_yaml_without_generated_files_says_so(tmp_path, capsys):
    write_spec(str(tmp_path), "")
    code, err = _codegen(tmp_path, capsys)
    assert code == 2 and "derivatives.yaml:1: the file has no entries" in err, err


def test_yaml_option_reads_another_file(tmp_path, capsys):
    write_spec(str(tmp_path), "")
    other = tmp_path / "ops.yaml"
    other.write_text(TWO_OPS)
    code = main(["--root", str(tmp_path), "--yaml", str(other)])
    assert code == 0, capsys.readouterr().err
    assert generated_ops(str(tmp_path)) == ["twice_op", "thrice_op"]
