"""A dim out of range raises PyTorch's IndexError, message and all, whatever the op."""
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CALLS = {
    "gather": lambda L: L.zeros(3).gather(1, L.tensor([0])),
    "scatter": lambda L: L.zeros(3).scatter(1, L.tensor([0]), 1.0),
    "scatter into 0-d": lambda L: L.zeros(()).scatter(1, L.tensor(0), 1.0),
    "index_select": lambda L: L.zeros(3).index_select(2, L.tensor([0])),
    "sum": lambda L: L.zeros(3).sum(2),
    "softmax": lambda L: L.zeros(3).softmax(3),
    "unsqueeze": lambda L: L.zeros(3).unsqueeze(3),
    "transpose": lambda L: L.zeros(3, 2).transpose(0, 4),
    "cumsum": lambda L: L.zeros(3).cumsum(2),
    "flip": lambda L: L.zeros(3).flip(2),
    "narrow": lambda L: L.zeros(3).narrow(1, 0, 1),
    "squeeze": lambda L: L.zeros(3).squeeze(2),
    "max over a dim": lambda L: L.zeros(3).max(2),
    "argmax": lambda L: L.zeros(3).argmax(2),
    "sort": lambda L: L.zeros(3).sort(2),
    "topk": lambda L: L.zeros(3).topk(1, 2),
    "stack": lambda L: L.stack([L.zeros(3)], 3),
    "cat": lambda L: L.cat([L.zeros(3)], 2),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_dim_out_of_range_as_torch(name):
    with pytest.raises(IndexError) as theirs:
        CALLS[name](torch)
    with pytest.raises(IndexError) as mine:
        CALLS[name](mg)
    assert str(mine.value) == str(theirs.value)
