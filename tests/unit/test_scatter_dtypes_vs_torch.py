"""The scatter family does not promote: a source of another dtype is PyTorch's error,
not a silent cast (a common slip in GNN code: float64 messages into a float32 buffer)."""
import pytest

import minigrad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("op", [
    lambda x, i, s: x.scatter_add(0, i, s),
    lambda x, i, s: x.scatter_add_(0, i, s),
    lambda x, i, s: x.scatter(0, i, s),
    lambda x, i, s: x.index_add_(0, i, s),
    lambda x, i, s: x.index_add(0, i, s),
    lambda x, i, s: x.scatter_reduce(0, i, s, "sum"),
    lambda x, i, s: x.scatter_reduce(0, i, s, "amax", include_self=False),
])
def test_scatters_refuse_a_source_of_another_dtype_as_torch(op):
    def error(lib):
        with pytest.raises(RuntimeError) as info:
            op(lib.zeros(3), lib.tensor([0, 2]), lib.ones(2, dtype=lib.float64))
        return str(info.value)
    assert error(minigrad) == error(torch)


def test_scatter_of_a_number_still_casts_it_as_torch():
    for lib in (minigrad, torch):
        out = lib.zeros(3, dtype=lib.int64).scatter_(0, lib.tensor([1]), 2.5)
        assert out.tolist() == [0, 2, 0]
