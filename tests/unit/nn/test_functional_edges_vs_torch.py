"""nn.functional's less trodden options against PyTorch: circular padding with negative
pads (crop, then wrap), pad's refusals, uint8 images through nearest interpolation,
cross_entropy with probabilities of another dtype, and the messages of one_hot,
embedding and cosine_similarity."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error, torch_result_or_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((2, 3, 7))
X4 = RNG.standard_normal((2, 3, 5, 6))
IMAGE = RNG.integers(0, 256, (2, 3, 5, 6))


def _grads(t, build, *arrays):
    xs = [t.tensor(a, requires_grad=True) for a in arrays]
    y = build(t, *xs)
    w = t.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    return [y, *t.autograd.grad((y * w).sum(), xs)]


@pytest.mark.parametrize("pad", [(-1, 2), (1, -2), (-2, -1), (0, 3), (2, 1, -1, 1)])
def test_circular_pad_crops_then_wraps(pad):
    x = X3 if len(pad) == 2 else X4
    build = lambda t, a: t.nn.functional.pad(a, pad, mode="circular")   # noqa: E731
    for got, expected in zip(_grads(mg, build, x), _grads(torch, build, x)):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6), (3, 5), (1, 2, 3, 5, 6)])
def test_nearest_interpolation_of_uint8(mode, shape):
    image = RNG.integers(0, 256, shape)
    size = {2: 9, 4: (7, 4), 5: (2, 7, 4)}.get(len(shape), 9)
    data = image if len(shape) != 2 else image[None]
    got = mg.nn.functional.interpolate(mg.tensor(data).to(mg.uint8), size=size, mode=mode)
    expected = torch.nn.functional.interpolate(torch.tensor(data).to(torch.uint8), size=size,
                                               mode=mode)
    assert got.dtype == mg.uint8
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_cross_entropy_probabilities_promote():
    logits, probs = RNG.standard_normal((4, 5)), RNG.dirichlet(np.ones(5), 4)

    def build(t, a, p):
        return t.nn.functional.cross_entropy(a.float(), p, label_smoothing=0.1)
    got, expected = _grads(mg, build, logits, probs), _grads(torch, build, logits, probs)
    assert got[0].dtype == mg.float64 and got[1].dtype == mg.float64
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-5)


def F(t):
    return t.nn.functional


ERRORS = {
    "pad_odd": lambda t: F(t).pad(t.tensor(X3), (1,)),
    "pad_too_long": lambda t: F(t).pad(t.tensor(X3), (1,) * 8),
    "pad_reflect_too_big": lambda t: F(t).pad(t.tensor(X3), (7, 0), mode="reflect"),
    "pad_circular_twice": lambda t: F(t).pad(t.tensor(X3), (8, 0), mode="circular"),
    "pad_circular_empty": lambda t: F(t).pad(t.tensor(X3), (-5, -3), mode="circular"),
    "pad_value": lambda t: F(t).pad(t.tensor(X3), (1, 1), mode="reflect", value=1.0),
    "pad_mode": lambda t: F(t).pad(t.tensor(X3), (1, 1), mode="foo"),
    "pad_size_for_4d": lambda t: F(t).pad(t.tensor(X4), (1, 2), mode="reflect"),
    "pad_size_for_1d": lambda t: F(t).pad(t.tensor(X3[0, 0]), (1, 1), mode="replicate"),
    "interp_int64_nearest": lambda t: F(t).interpolate(t.tensor(IMAGE), size=3),
    "interp_int64_1d": lambda t: F(t).interpolate(t.tensor(IMAGE[0]), size=3),
    "interp_int64_linear": lambda t: F(t).interpolate(t.tensor(IMAGE[0]), size=3, mode="linear"),
    "interp_int64_bicubic": lambda t: F(t).interpolate(t.tensor(IMAGE), size=3, mode="bicubic"),
    "interp_int8_area": lambda t: F(t).interpolate(t.tensor(IMAGE).to(t.int8), size=3,
                                                  mode="area"),
    "one_hot_dtype": lambda t: F(t).one_hot(t.tensor([0.0, 1.0])),
    "one_hot_negative": lambda t: F(t).one_hot(t.tensor([-1, 0])),
    "one_hot_too_large": lambda t: F(t).one_hot(t.tensor([0, 4]), 3),
    "one_hot_empty": lambda t: F(t).one_hot(t.tensor([], dtype=t.int64)),
    "embedding_range": lambda t: F(t).embedding(t.tensor([6]), t.tensor(X4[0, 0])),
    "embedding_negative": lambda t: F(t).embedding(t.tensor([-1]), t.tensor(X4[0, 0])),
    "embedding_float": lambda t: F(t).embedding(t.tensor([1.0]), t.tensor(X4[0, 0])),
    "embedding_1d_weight": lambda t: F(t).embedding(t.tensor([1]), t.tensor(X3[0, 0])),
    "cosine_shapes": lambda t: F(t).cosine_similarity(t.tensor(X4[0, 0]),
                                                      t.tensor(X4[0, 0, :, :3])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name], torch, message=lambda m: m.replace("torch.", "minigrad."))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64"])
@pytest.mark.parametrize("data", [[[1, 2], [3, 5]], [[1.0, 2.0], [3.0, 5.0]], [[True, False]]])
def test_softmax_converts_to_dtype_first(name, dtype, data):
    def call(t):
        return getattr(t, name)(t.tensor(data), 1, dtype=None if dtype is None
                                else getattr(t, dtype))
    expected = torch_result_or_same_error(call, torch, NotImplementedError)
    if expected is None:
        return
    got = call(mg)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
