"""In-place methods come only from `inplace: true` entries, and only where torch has them."""
import os

import pytest

import minigrad
from codegen.load import load_registry, method_names
from minigrad._generated.methods import INPLACE_METHODS
from tests.conftest import ROOT


def test_generated_in_place_methods_are_exactly_the_declared_ones():
    registry = load_registry(os.path.join(ROOT, "derivatives.yaml"), ROOT)
    declared = {name for name, (_, key) in method_names(registry.ops).items() if key == "inplace"}
    assert set(INPLACE_METHODS) == declared


def test_every_in_place_method_is_one_torch_has():
    torch = pytest.importorskip("torch")
    missing = sorted(name for name in INPLACE_METHODS if not hasattr(torch.Tensor, name))
    assert not missing, f"in-place methods torch.Tensor does not have: {missing}"


def test_ops_without_an_in_place_variant_have_none():
    x = minigrad.ones((2, 3))
    for name in ("sum_", "mean_", "maximum_", "softmax_", "matmul_"):
        assert not hasattr(x, name), name
    assert x.exp_() is x and x.add_(1.0) is x
