"""The porting harness itself: only import lines change, and a difference is caught."""
import numpy as np
import pytest

from tests.ported._harness import assert_same, port, run_both

torch = pytest.importorskip("torch")


def test_port_changes_only_the_imports():
    source = ("import torch\nimport torch.nn as nn\nfrom torch import optim\n"
              "from torch.utils.data import DataLoader\nimport torch, math\n"
              "    import torch.nn.functional as F\nimport torchvision\nx = torch.ones(2)\n")
    assert port(source) == (
        "import minigrad as torch\nimport minigrad.nn as nn\nfrom minigrad import optim\n"
        "from minigrad.utils.data import DataLoader\nimport minigrad as torch, math\n"
        "    import minigrad.nn.functional as F\nimport torchvision\nx = torch.ones(2)\n")


def test_run_both_binds_each_library():
    reference, ported = run_both("import torch\nresults = {'name': [ord(c) for c in "
                                 "torch.__name__]}\n")
    assert bytes(reference["name"]) == b"torch" and bytes(ported["name"]) == b"minigrad"


def test_assert_same_catches_values_dtypes_and_keys():
    a = {"x": torch.tensor([1.0, 2.0])}
    with pytest.raises(AssertionError):
        assert_same(a, {"x": torch.tensor([1.0, 2.001])}, rtol=1e-6)
    with pytest.raises(AssertionError, match="dtype"):
        assert_same(a, {"x": torch.tensor([1.0, 2.0], dtype=torch.float64)}, rtol=1e-6)
    with pytest.raises(AssertionError):
        assert_same(a, {"y": a["x"]}, rtol=1e-6)
    with pytest.raises(AssertionError):
        assert_same({"s": {"w": np.ones(2)}}, {"s": {"v": np.ones(2)}}, rtol=1e-6)
    assert_same(a, {"x": torch.tensor([1.0, 2.0 + 1e-9])}, rtol=1e-6)
