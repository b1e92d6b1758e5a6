"""Tensors print as PyTorch 2.13 prints them (with minigrad's name for dtypes)."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)

ARRAYS = {
    "randn_2x3": rng.standard_normal((2, 3)).astype(np.float32),
    "scalar": np.array(3.5, dtype=np.float32),
    "scalar_int": np.array(7),
    "ints": np.arange(-3, 12),
    "int_matrix": np.arange(24).reshape(2, 3, 4) * 1000,
    "int32": np.array([1, -2, 3], dtype=np.int32),
    "bools": np.array([[True, False], [False, True]]),
    "whole_floats": np.array([1.0, -2.0, 30.0], dtype=np.float32),
    "sci_small": np.array([1e-5, 1.0, 2.5], dtype=np.float32),
    "sci_big": np.array([1e9, 1.0], dtype=np.float32),
    "whole_spread": np.array([1.0, 2000.0], dtype=np.float32),
    "nonfinite": np.array([np.nan, np.inf, -np.inf, 1.5], dtype=np.float32),
    "whole_nonfinite": np.array([np.nan, 2.0, -np.inf], dtype=np.float32),
    "zeros": np.zeros((2, 2), dtype=np.float32),
    "float64": rng.standard_normal(4),
    "float16": np.array([0.5, 1.25], dtype=np.float16),
    "empty": np.zeros((0,), dtype=np.float32),
    "empty_2d": np.zeros((2, 0), dtype=np.float32),
    "empty_int": np.zeros((0,), dtype=np.int64),
    "large": rng.standard_normal((100, 100)).astype(np.float32),
    "large_1d": np.arange(2000.0, dtype=np.float32),
    "large_3d": rng.standard_normal((12, 10, 11)).astype(np.float32),
    "wide": rng.standard_normal((3, 30)).astype(np.float32),
    "wide_int": np.arange(60).reshape(2, 30) * 12345,
    "negative_zero": np.array([-0.0, 0.0, 1.5], dtype=np.float32),
}


def _torch_text(text):
    return text.replace("minigrad.", "torch.")


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_repr_matches_torch(name):
    a = ARRAYS[name]
    assert _torch_text(repr(mg.tensor(a))) == repr(torch.tensor(a))
    assert _torch_text(str(mg.tensor(a))) == str(torch.tensor(a))


@pytest.mark.parametrize("name", ["randn_2x3", "scalar", "float64", "large", "wide"])
def test_autograd_suffixes_match_torch(name):
    a = ARRAYS[name]
    m, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    assert _torch_text(repr(m)) == repr(t)
    assert _torch_text(repr(m * 2)) == repr(t * 2)
    assert _torch_text(repr((m * 2).sum())) == repr((t * 2).sum())


@pytest.mark.parametrize("options", [
    {"precision": 2}, {"precision": 8}, {"threshold": 5}, {"edgeitems": 1, "threshold": 10},
    {"linewidth": 40}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"},
    {"profile": "full"}, {"edgeitems": 0, "threshold": 5},
])
def test_printoptions_match_torch(options):
    try:
        mg.set_printoptions(**options)
        torch.set_printoptions(**options)
        for name in ["randn_2x3", "ints", "sci_small", "large_1d", "wide", "int_matrix", "scalar"]:
            a = ARRAYS[name]
            assert _torch_text(repr(mg.tensor(a))) == repr(torch.tensor(a)), name
    finally:
        mg.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="profile"):
        mg.set_printoptions(profile="long")
