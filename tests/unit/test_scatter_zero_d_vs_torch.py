"""scatter and scatter_add into a 0-d tensor, as PyTorch: one element along dim 0 (or -1),
the index 0-d or of one element, the result 0-d; values, gradients and errors."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CASES = {
    "scatter, 0-d index and src": lambda L, x, s: x.scatter(0, L.tensor(0), s),
    "scatter, dim -1, 1-element index": lambda L, x, s: x.scatter(-1, L.tensor([0]), s.reshape(1)),
    "scatter, a number": lambda L, x, s: x.scatter(0, L.tensor(0), 5.0) * s,
    "scatter_add": lambda L, x, s: x.scatter_add(0, L.tensor(0), s),
    "scatter_add, repeated index": lambda L, x, s: x.scatter_add(0, L.tensor([0, 0]), s.expand(2)),
    "scatter, empty index": lambda L, x, s: x.scatter(0, L.tensor([], dtype=L.int64), s),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_as_torch(case):
    results = []
    for lib in (mg, torch):
        x = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        s = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
        out = CASES[case](lib, x, s)
        out.backward()
        results.append((out.item(), tuple(out.shape), x.grad.item(), s.grad.item()))
    assert results[0] == results[1]


@pytest.mark.parametrize("call", [lambda L: L.zeros(()).scatter(0, L.tensor(1), L.tensor(2.0)),
                                  lambda L: L.zeros(()).scatter_add(0, L.tensor([3]), L.tensor([2.0]))])
def test_an_index_out_of_range_raises_torchs_error(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as mine:
        call(mg)
    assert str(mine.value) == str(theirs.value)
