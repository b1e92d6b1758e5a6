"""minigrad.Size behaves as torch.Size (a tuple of ints); it prints as minigrad.Size."""
import io
import pickle

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _as_torch_text(value):
    return str(value).replace("minigrad.", "torch.")


@pytest.mark.parametrize("shape", [(2, 3), (), (0,), (4, 1, 5)])
def test_shape_and_size_are_sizes(shape):
    t, m = torch.zeros(shape), mg.zeros(shape)
    for got, want in [(m.shape, t.shape), (m.size(), t.size())]:
        assert type(got) is mg.Size and isinstance(got, tuple)
        assert got == want and tuple(got) == tuple(want)
        assert _as_torch_text(got) == str(want) and _as_torch_text(repr(got)) == repr(want)
        assert got.numel() == want.numel() == m.numel()
    assert [m.size(d) for d in range(m.dim())] == [t.size(d) for d in range(t.dim())]


def test_size_operations_match_torch():
    t, m = torch.Size([2, 3, 4]), mg.Size([2, 3, 4])
    cases = [lambda s: s[1:], lambda s: s[0], lambda s: s[-1], lambda s: s + (5,),
             lambda s: (1,) + s, lambda s: s * 2, lambda s: 2 * s, lambda s: s[::-1]]
    for case in cases:
        got, want = case(m), case(t)
        assert type(got).__name__ == type(want).__name__
        assert _as_torch_text(got) == str(want)
    assert m == (2, 3, 4) and hash(m) == hash((2, 3, 4))


def test_size_construction_and_refusals():
    assert mg.Size() == () and mg.Size([np.int64(2), 3]) == (2, 3)
    assert mg.zeros(mg.Size([2, 3])).shape == (2, 3)
    with pytest.raises(TypeError, match=r"takes an iterable of 'int' \(item 0 is 'float'\)"):
        mg.Size([2.0])
    with pytest.raises(TypeError):
        torch.Size([2.0])
    with pytest.raises(TypeError):
        mg.Size([2]) + [3]


def test_size_round_trips_through_pickle_and_save():
    s = mg.zeros(2, 3).shape
    assert type(pickle.loads(pickle.dumps(s))) is mg.Size
    buf = io.BytesIO()
    mg.save({"shape": s}, buf)
    buf.seek(0)
    loaded = mg.load(buf, weights_only=True)["shape"]
    assert type(loaded) is mg.Size and loaded == s


def test_shapes_drive_views_and_factories():
    x = mg.arange(6.0).reshape(2, 3)
    assert x.view(x.shape).shape == (2, 3)
    assert x.reshape(*x.shape[::-1]).shape == (3, 2)
    assert mg.ones(x.shape[1:]).shape == (3,)
