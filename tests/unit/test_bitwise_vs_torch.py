"""&, |, ^, ~ and torch.bitwise_*: bit by bit on integers, logical on bools, refused on
floats, with PyTorch's promotion, values and errors."""
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CASES = [
    lambda L: L.tensor([1, 2]) & L.tensor([3, 1]),
    lambda L: L.tensor([1, 6]) | L.tensor([3, 1]),
    lambda L: L.tensor([1, 6]) ^ L.tensor([3, 1]),
    lambda L: ~L.tensor([1, 2]),
    lambda L: 3 & L.tensor([1, 2]),
    lambda L: L.tensor([True]) & 2,
    lambda L: L.tensor([1, 2], dtype=L.int32) & L.tensor([1], dtype=L.int64),
    lambda L: L.tensor([True, False]) | L.tensor([1, 0]),
    lambda L: L.tensor([True, False]) ^ True,
    lambda L: ~(L.tensor([1.0, 2.0]) > 1),
    lambda L: L.bitwise_and(L.tensor([5, 4], dtype=L.int16), 6),
    lambda L: L.tensor([5]).bitwise_xor(1),
    lambda L: L.bitwise_not(L.tensor([0, 7], dtype=L.uint8)),
    lambda L: L.tensor([1.0, 2.0]) & L.tensor([1.0, 0.0]),
    lambda L: L.tensor([1, 2]) | 1.5,
    lambda L: ~L.tensor([1.0]),
    lambda L: L.bitwise_not(L.tensor([1.0])),
    lambda L: L.tensor([1, 2]) & L.tensor([1, 2, 3]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_bitwise_ops_as_torch(case):
    def run(lib):
        try:
            return CASES[case](lib), None
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return None, error
    (ours, our_error), (theirs, their_error) = run(mg), run(torch)
    if their_error is not None:
        assert type(our_error) is type(their_error) and str(our_error) == str(their_error)
        return
    assert our_error is None
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert ours.tolist() == theirs.tolist()
