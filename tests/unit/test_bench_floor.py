"""tools/bench_floor.py times a bare tape as the floor for bench.py's small workloads:
its time only means something if it computes the same gradients as minigrad."""
import numpy as np
import pytest

from tools import bench_floor


def test_bare_tape_matches_minigrad_gradients():
    bench_floor.check_gradients()


def test_gradient_check_catches_a_wrong_derivative(monkeypatch):
    monkeypatch.setattr(bench_floor.Sin, "apply", lambda self, g: (g * np.sin(self.saved),))
    with pytest.raises(AssertionError):
        bench_floor.check_gradients()
