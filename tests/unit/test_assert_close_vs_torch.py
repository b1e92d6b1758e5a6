"""minigrad.testing.assert_close: torch.testing.assert_close's tolerances and messages."""
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _cases(L):
    check = L.testing.assert_close
    return [lambda: check(L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.5, 3.0])),
            lambda: check(L.tensor([1, 2]), L.tensor([1, 3])),
            lambda: check(L.ones(2), L.ones(3)),
            lambda: check(L.tensor([0.0, 1.0]), L.tensor([1e-6, 0.0])),
            lambda: check(L.tensor([float("nan")]), L.tensor([float("nan")])),
            lambda: check(L.tensor([float("nan")]), L.tensor([float("nan")]), equal_nan=True),
            lambda: check(L.ones(2), L.ones(2, dtype=L.float64), check_dtype=False),
            lambda: check(L.ones(2), L.ones(2, dtype=L.float64)),
            lambda: check(L.ones(2), L.ones(2) * 1.1, rtol=0.2, atol=0),
            lambda: check(L.ones(2), L.ones(2), rtol=0.2),
            lambda: check([L.ones(2), L.zeros(1)], [L.ones(2), L.ones(1)]),
            lambda: check({"a": L.ones(1)}, {"a": L.zeros(1)}),
            lambda: check(1.0, 1.0 + 1e-9), lambda: check(1.0, 1.1),
            lambda: check(L.tensor(1), L.tensor(2)),
            lambda: check(L.ones(2, 2), L.tensor([[1.0, 1.0], [1.0, 3.0]]), msg="custom"),
            lambda: check(L.ones(2), [1.0, 1.0]),
            lambda: check(L.ones(2, 3), L.ones(2, 3) + 1e-6),
            lambda: check(L.ones(2, dtype=L.float64), L.ones(2, dtype=L.float64) + 1e-6)]


def _outcome(case):
    try:
        case()
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error)
    return None


@pytest.mark.parametrize("case", range(len(_cases(mg))))
def test_assert_close_as_torch(case):
    theirs = _outcome(_cases(torch)[case])
    expected = theirs and (theirs[0], theirs[1].replace("torch", "minigrad"))
    assert _outcome(_cases(mg)[case]) == expected
