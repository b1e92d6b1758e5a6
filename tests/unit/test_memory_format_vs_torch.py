"""memory_format arguments as PyTorch takes them (optimizers write
``zeros_like(p, memory_format=torch.preserve_format)``), half-precision softmax rounding
once, and size(dim)'s errors, against PyTorch."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

X = np.arange(24.0).reshape(1, 2, 3, 4)
FORMATS = ["preserve_format", "contiguous_format", "channels_last"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("build", [
    lambda t, f: t.zeros_like(t.tensor(X), memory_format=f),
    lambda t, f: t.ones_like(t.tensor(X), memory_format=f),
    lambda t, f: t.full_like(t.tensor(X), 2.5, memory_format=f),
    lambda t, f: t.empty_like(t.tensor(X), memory_format=f).shape,
    lambda t, f: t.tensor(X).clone(memory_format=f),
    lambda t, f: t.clone(t.tensor(X), memory_format=f),
    lambda t, f: t.tensor(X).contiguous(memory_format=f) if f != "preserve_format" else t.tensor(X),
    lambda t, f: t.tensor(X).to(memory_format=f),
])
def test_memory_formats_are_taken(fmt, build):
    got, expected = build(mg, getattr(mg, fmt)), build(torch, getattr(torch, fmt))
    if isinstance(expected, torch.Size):
        assert tuple(got) == tuple(expected)
    else:
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


def test_memory_format_names_and_refusal():
    assert repr(mg.preserve_format) == "minigrad.preserve_format"
    with pytest.raises(TypeError) as expected:
        torch.zeros(2).clone(memory_format="x")
    with pytest.raises(TypeError) as got:
        mg.zeros(2).clone(memory_format="x")
    assert str(got.value) == str(expected.value).replace("torch.", "minigrad.")


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_half_softmax_computes_in_float(name):
    """float16 in, float16 out, computed in float: within PyTorch's rounding (its kernels
    round their sums differently per dim, so not always bit for bit)."""
    data = (np.random.default_rng(0).standard_normal((8, 33)) * 4).astype(np.float16)
    got = getattr(mg.tensor(data), name)(1)
    expected = getattr(torch.tensor(data), name)(1)
    assert got.dtype == mg.float16
    np.testing.assert_allclose(got.numpy().astype(np.float32),
                               expected.numpy().astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("shape, dim", [((), 0), ((), -1), ((2, 3), 2), ((2, 3), -3)])
def test_size_errors(shape, dim):
    with pytest.raises(IndexError) as expected:
        torch.zeros(shape).size(dim)
    with pytest.raises(IndexError) as got:
        mg.zeros(shape).size(dim)
    assert str(got.value) == str(expected.value)
