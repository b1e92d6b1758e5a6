"""examples/train_digits.py on a small budget: it trains, saves, reloads, plots."""
import importlib.util
import os
from pathlib import Path

import pytest

EXTRA = "needs the examples extra: pip install 'minigrad[examples]'"
for _name in ("sklearn", "tqdm", "matplotlib"):
    pytest.importorskip(_name, reason=EXTRA)

SCRIPT = Path(__file__).resolve().parents[3] / "examples" / "train_digits.py"


def test_train_digits_small_budget(tmp_path):
    spec = importlib.util.spec_from_file_location("train_digits", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    accuracies = script.main(["--model", "mlp", "--epochs", "4", "--quiet",
                              "--out", str(tmp_path)])
    assert accuracies["mlp"] >= 0.9
    assert os.path.getsize(tmp_path / "digits_curves.png") > 1000
    assert (tmp_path / "digits_mlp_best.pt").exists()
