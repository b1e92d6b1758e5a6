"""minigrad.nn.functional conv / pooling / pad / embedding, called as a PyTorch user would.

The torch comparisons skip when torch is not installed; the hard-coded cases below
them check the same behaviour without it.
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import grad as mg_grad


def rand(*shape, seed=0, distinct=False):
    rng = np.random.default_rng(seed)
    if distinct:  # no ties, for max pooling
        n = int(np.prod(shape))
        return rng.permutation(np.linspace(-2, 2, n)).reshape(shape)
    return rng.standard_normal(shape)


def compare_with_torch(mg_fn, torch_fn, arrays, second_order=True, atol=1e-10):
    """Values, gradients and (optionally) second derivatives of fn(*arrays) match torch's."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(123)
    xs = [mg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, tout = mg_fn(*xs), torch_fn(*ts)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), atol=atol)
    cot = rng.standard_normal(out.shape)
    grads = mg_grad(out, xs, mg.tensor(cot), create_graph=second_order, allow_unused=True)
    tgrads = torch.autograd.grad(tout, ts, torch.tensor(cot), create_graph=second_order,
                                 allow_unused=True)
    for g, tg in zip(grads, tgrads):
        if tg is None:
            assert g is None or not np.any(g.detach().numpy())
        else:
            np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), atol=atol)
    if not second_order:
        return
    # second order: d/d inputs of sum(grad_i * v_i) for a random v_i
    # (a gradient that does not depend on the inputs -- pooling, pad -- has no graph)
    used = [(g, tg) for g, tg in zip(grads, tgrads)
            if tg is not None and tg.requires_grad and g is not None and g.requires_grad]
    if not used:
        return
    vs = [rng.standard_normal(tg.shape) for _, tg in used]
    total = sum(((g * mg.tensor(v)).sum() for (g, _), v in zip(used, vs)), mg.tensor(0.0))
    ttotal = sum((tg * torch.tensor(v)).sum() for (_, tg), v in zip(used, vs))
    second = mg_grad(total, xs, allow_unused=True)
    tsecond = torch.autograd.grad(ttotal, ts, allow_unused=True)
    for g, tg in zip(second, tsecond):
        if tg is None:
            assert g is None or not np.any(g.detach().numpy())
        else:
            np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), atol=atol)


def tF():
    return pytest.importorskip("torch").nn.functional


# ------------------------------------------------------------------ against torch
@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(stride=2, padding=1, dilation=1, groups=2),
    dict(stride=(2, 1), padding=(0, 2), dilation=(1, 2)),
    dict(padding="same"),
    dict(padding="same", dilation=2, groups=2),
    dict(padding="valid", stride=2),
])
def test_conv2d_matches_torch(kwargs):
    x, w, b = rand(2, 4, 6, 5), rand(4, 4 // kwargs.get("groups", 1), 3, 2, seed=1), rand(4, seed=2)
    compare_with_torch(lambda x, w, b: F.conv2d(x, w, b, **kwargs),
                       lambda x, w, b: tF().conv2d(x, w, b, **kwargs), [x, w, b])


@pytest.mark.parametrize("kwargs", [
    dict(padding=1), dict(stride=2, dilation=2, groups=4), dict(stride=(1, 3), padding=(2, 0)),
])
def test_conv2d_float32_layer_sized_matches_torch(kwargs):
    """A layer-sized float32 conv (as tools/bench_nn.py runs it): values and gradients."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8, 13, 12)).astype(np.float32)
    w = rng.standard_normal((16, 8 // kwargs.get("groups", 1), 3, 3)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    xs = [mg.tensor(a, requires_grad=True) for a in (x, w, b)]
    ts = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    out, tout = F.conv2d(*xs, **kwargs), tF().conv2d(*ts, **kwargs)
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-4)
    cot = rng.standard_normal(out.shape).astype(np.float32)
    out.backward(mg.tensor(cot))
    tout.backward(torch.tensor(cot))
    for m, t in zip(xs, ts):
        assert m.grad.dtype == mg.float32
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_conv2d_positional_args_and_no_bias_match_torch():
    x, w = rand(2, 4, 5, 5), rand(4, 2, 3, 3, seed=1)
    compare_with_torch(lambda x, w: F.conv2d(x, w, None, 2, 1, 1, 2),
                       lambda x, w: tF().conv2d(x, w, None, 2, 1, 1, 2), [x, w])


def test_conv2d_unbatched_input_matches_torch():
    x, w, b = rand(3, 5, 5), rand(2, 3, 3, 3, seed=1), rand(2, seed=2)
    compare_with_torch(lambda x, w, b: F.conv2d(x, w, b, padding=1),
                       lambda x, w, b: tF().conv2d(x, w, b, padding=1), [x, w, b])


@pytest.mark.parametrize("kwargs", [
    dict(), dict(stride=2, padding=2, dilation=2, groups=3), dict(padding="same"),
])
def test_conv1d_matches_torch(kwargs):
    x, w, b = rand(2, 3, 9), rand(6, 3 // kwargs.get("groups", 1), 4, seed=1), rand(6, seed=2)
    compare_with_torch(lambda x, w, b: F.conv1d(x, w, b, **kwargs),
                       lambda x, w, b: tF().conv1d(x, w, b, **kwargs), [x, w, b])


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(stride=2, padding=1, output_padding=1, groups=2),
    dict(stride=(2, 3), padding=(1, 0), output_padding=(0, 2), dilation=(2, 1)),
    dict(stride=1, output_padding=1, dilation=2),
    dict(stride=3, padding=3, dilation=2),  # padding past the dilated kernel: crops rows
])
def test_conv_transpose2d_matches_torch(kwargs):
    x, w, b = rand(2, 4, 3, 4), rand(4, 3, 3, 2, seed=1), rand(3 * kwargs.get("groups", 1), seed=2)
    compare_with_torch(lambda x, w, b: F.conv_transpose2d(x, w, b, **kwargs),
                       lambda x, w, b: tF().conv_transpose2d(x, w, b, **kwargs), [x, w, b])


def test_conv_transpose1d_matches_torch():
    x, w, b = rand(2, 4, 5), rand(4, 1, 3, seed=1), rand(2, seed=2)
    compare_with_torch(lambda x, w, b: F.conv_transpose1d(x, w, b, 2, 1, 1, 2),
                       lambda x, w, b: tF().conv_transpose1d(x, w, b, 2, 1, 1, 2), [x, w, b])


@pytest.mark.parametrize("args, kwargs", [
    ((2,), {}),
    ((3, 2, 1), {}),
    ((3,), dict(stride=2, padding=1, dilation=1, ceil_mode=True)),
    (((3, 2),), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
])
def test_max_pool2d_matches_torch(args, kwargs):
    x = rand(2, 3, 7, 6, distinct=True)
    compare_with_torch(lambda x: F.max_pool2d(x, *args, **kwargs),
                       lambda x: tF().max_pool2d(x, *args, **kwargs), [x])
    out, idx = F.max_pool2d(mg.tensor(x), *args, return_indices=True, **kwargs)
    tout, tidx = tF().max_pool2d(pytest.importorskip("torch").tensor(x), *args,
                                 return_indices=True, **kwargs)
    np.testing.assert_array_equal(idx.detach().numpy(), tidx.detach().numpy())
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy())


def test_max_pool1d_and_top_level_match_torch():
    torch = pytest.importorskip("torch")
    x = rand(2, 3, 9, distinct=True)
    compare_with_torch(lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True),
                       lambda x: tF().max_pool1d(x, 3, 2, 1, ceil_mode=True), [x])
    compare_with_torch(lambda x: mg.max_pool2d(x, 2), lambda x: torch.max_pool2d(x, 2),
                       [rand(2, 2, 4, 5, distinct=True)])
    out, idx = F.max_pool1d(mg.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(idx.detach().numpy(), tF().max_pool1d(torch.tensor(x), 2, return_indices=True)[1])


def test_max_pool_with_indices_gradient_flows_through_values_only():
    x = mg.tensor(rand(1, 2, 4, 4, distinct=True), requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.requires_grad and not idx.requires_grad
    (out * out).sum().backward()
    expected = np.zeros((1, 2, 4, 4))
    np.put_along_axis(expected.reshape(1, 2, 16), idx.detach().numpy().reshape(1, 2, 4),
                      2 * out.detach().numpy().reshape(1, 2, 4), axis=-1)
    np.testing.assert_allclose(x.grad.detach().numpy(), expected)


@pytest.mark.parametrize("args, kwargs", [
    ((2,), {}),
    ((3, 2, 1), dict(ceil_mode=True)),
    ((3, 2, 1), dict(ceil_mode=True, count_include_pad=False)),
    (((3, 2), (2, 1), (1, 1)), dict(count_include_pad=False)),
    ((3, 2), dict(divisor_override=5)),
])
def test_avg_pool2d_matches_torch(args, kwargs):
    compare_with_torch(lambda x: F.avg_pool2d(x, *args, **kwargs),
                       lambda x: tF().avg_pool2d(x, *args, **kwargs), [rand(2, 3, 7, 6)])


def test_avg_pool1d_matches_torch():
    compare_with_torch(lambda x: F.avg_pool1d(x, 3, 2, 1, True, False),
                       lambda x: tF().avg_pool1d(x, 3, 2, 1, True, False), [rand(2, 3, 8)])


@pytest.mark.parametrize("size", [1, 3, (2, 4), (None, 3), (7, 5)])
def test_adaptive_avg_pool2d_matches_torch(size):
    compare_with_torch(lambda x: F.adaptive_avg_pool2d(x, size),
                       lambda x: tF().adaptive_avg_pool2d(x, size), [rand(2, 3, 7, 5)])


def test_adaptive_avg_pool1d_matches_torch():
    compare_with_torch(lambda x: F.adaptive_avg_pool1d(x, 4),
                       lambda x: tF().adaptive_avg_pool1d(x, 4), [rand(2, 3, 7)])


@pytest.mark.parametrize("pad, kwargs", [
    ((1, 2), {}),
    ((1, 2, 0, 1), dict(value=-1.5)),
    ((2, -1, 1, 1, 0, 1), dict(mode="constant", value=3.0)),
    ((1, 2, 0, 0), dict(mode="reflect")),
    ((2, 1, 1, 2), dict(mode="reflect")),
    ((3, 1, 0, 2), dict(mode="replicate")),
    ((1, 2, 2, 1), dict(mode="circular")),
])
def test_pad_matches_torch(pad, kwargs):
    compare_with_torch(lambda x: F.pad(x, pad, **kwargs), lambda x: tF().pad(x, pad, **kwargs),
                       [rand(2, 3, 4, 5)])


def test_embedding_matches_torch_with_padding_idx_and_freq_scaling():
    torch = pytest.importorskip("torch")
    idx = np.array([[0, 2, 1, 2], [4, 1, 1, 0]])
    w = rand(5, 3)
    for kwargs in [dict(), dict(padding_idx=1), dict(padding_idx=-1, scale_grad_by_freq=True)]:
        compare_with_torch(lambda w: F.embedding(mg.tensor(idx), w, **kwargs),
                           lambda w: tF().embedding(torch.tensor(idx), w, **kwargs), [w])


# ------------------------------------------------------------------ without torch
def test_conv2d_hand_computed():
    x = mg.tensor(np.arange(16.0).reshape(1, 1, 4, 4), requires_grad=True)
    w = mg.tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
    b = mg.tensor(np.array([0.5]), requires_grad=True)  # float64, as x and w (torch refuses a mix)
    y = F.conv2d(x, w, b, stride=2)
    np.testing.assert_allclose(y.detach().numpy(), [[[[10.5, 18.5], [42.5, 50.5]]]])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), np.ones((1, 1, 4, 4)))
    np.testing.assert_allclose(w.grad.detach().numpy(), [[[[20.0, 24.0], [36.0, 40.0]]]])
    np.testing.assert_allclose(b.grad.detach().numpy(), [4.0])


def test_conv2d_groups_and_same_padding_shapes():
    x = mg.randn(2, 4, 5, 5)
    assert F.conv2d(x, mg.randn(6, 2, 3, 3), None, 1, 1, 1, 2).shape == (2, 6, 5, 5)
    assert F.conv2d(x, mg.randn(6, 4, 2, 3), padding="same").shape == (2, 6, 5, 5)
    assert F.conv2d(x, mg.randn(6, 4, 3, 3), padding="valid").shape == (2, 6, 3, 3)
    assert mg.conv2d(x, mg.randn(6, 4, 3, 3), stride=2, padding=1).shape == (2, 6, 3, 3)
    assert F.conv_transpose2d(x, mg.randn(4, 3, 3, 3), stride=2, output_padding=1).shape == (2, 3, 12, 12)


def test_conv_transpose_is_the_adjoint_of_conv():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 2, 3, 3))
    y = F.conv2d(mg.tensor(x), mg.tensor(w), stride=2, padding=1, groups=2)
    g = rng.standard_normal(y.shape)
    back = F.conv_transpose2d(mg.tensor(g), mg.tensor(w), stride=2, padding=1, output_padding=(0, 1),
                              groups=2)
    assert back.shape == x.shape
    np.testing.assert_allclose(np.sum(y.detach().numpy() * g), np.sum(x * back.detach().numpy()))


def test_conv2d_gradient_can_be_differentiated_again():
    x = mg.tensor(rand(1, 2, 4, 4), requires_grad=True)
    w = mg.tensor(rand(2, 2, 3, 3, seed=1), requires_grad=True)
    y = F.conv2d(x, w, padding=1)
    (gx,) = mg_grad((y * y).sum(), [x], create_graph=True)
    gw, = mg_grad(gx.sum(), [w])
    assert gw.shape == w.shape and np.any(gw.detach().numpy())


def test_max_pool2d_hand_computed():
    x = mg.tensor(np.array([[[[1.0, 5.0, 2.0, 0.0],
                              [3.0, 4.0, 8.0, 6.0],
                              [0.5, 9.0, 7.0, 1.5],
                              [2.5, 3.5, 4.5, 5.5]]]]), requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_allclose(out.detach().numpy(), [[[[5.0, 8.0], [9.0, 7.0]]]])
    np.testing.assert_array_equal(idx.detach().numpy(), [[[[1, 6], [9, 10]]]])
    F.max_pool2d(x, 2).sum().backward()
    expected = np.zeros(16)
    expected[[1, 6, 9, 10]] = 1
    np.testing.assert_allclose(x.grad.detach().numpy().reshape(-1), expected)
    # overlapping windows: one element that is the max of several windows gets each gradient
    y = mg.tensor(np.array([[[0.0, 3.0, 1.0, 2.0]]]), requires_grad=True)
    F.max_pool1d(y, 2, stride=1).sum().backward()
    np.testing.assert_allclose(y.grad.detach().numpy(), [[[0.0, 2.0, 0.0, 1.0]]])


def test_avg_pool_hand_computed():
    x = mg.tensor(np.arange(1.0, 6.0).reshape(1, 1, 5), requires_grad=True)
    np.testing.assert_allclose(F.avg_pool1d(x, 2).detach().numpy(), [[[1.5, 3.5]]])
    np.testing.assert_allclose(F.avg_pool1d(x, 2, padding=1).detach().numpy(), [[[0.5, 2.5, 4.5]]])
    np.testing.assert_allclose(F.avg_pool1d(x, 2, padding=1, count_include_pad=False).detach().numpy(),
                               [[[1.0, 2.5, 4.5]]])
    np.testing.assert_allclose(F.avg_pool1d(x, 2, ceil_mode=True).detach().numpy(), [[[1.5, 3.5, 5.0]]])
    F.avg_pool1d(x, 2, ceil_mode=True).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [[[0.5, 0.5, 0.5, 0.5, 1.0]]])
    y = mg.tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    np.testing.assert_allclose(F.avg_pool2d(y, 2).detach().numpy(), [[[[2.5, 4.5], [10.5, 12.5]]]])
    np.testing.assert_allclose(F.avg_pool2d(y, 2, divisor_override=1).detach().numpy(),
                               [[[[10.0, 18.0], [42.0, 50.0]]]])


def test_adaptive_avg_pool_hand_computed():
    x = mg.tensor(np.arange(1.0, 6.0).reshape(1, 5), requires_grad=True)
    out = F.adaptive_avg_pool1d(x, 3)         # windows [0,2) [1,4) [3,5)
    np.testing.assert_allclose(out.detach().numpy(), [[1.5, 3.0, 4.5]])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [[0.5, 0.5 + 1 / 3, 1 / 3, 1 / 3 + 0.5, 0.5]])
    y = mg.tensor(np.arange(6.0).reshape(1, 2, 3))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(y, 1).detach().numpy(), [[[2.5]]])
    np.testing.assert_allclose(F.adaptive_avg_pool2d(y, (None, 1)).detach().numpy(), [[[1.0], [4.0]]])


def test_pad_hand_computed():
    x = mg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    np.testing.assert_allclose(F.pad(x, (1, 2)).detach().numpy(), [[0, 1, 2, 3, 0, 0]])
    np.testing.assert_allclose(F.pad(x, (1, 0, 1, 0), value=9.0).detach().numpy(),
                               [[9, 9, 9, 9], [9, 1, 2, 3]])
    np.testing.assert_allclose(F.pad(x, (1, 2), mode="reflect").detach().numpy(), [[2, 1, 2, 3, 2, 1]])
    np.testing.assert_allclose(F.pad(x, (2, 1), mode="replicate").detach().numpy(), [[1, 1, 1, 2, 3, 3]])
    np.testing.assert_allclose(F.pad(x, (1, 1), mode="circular").detach().numpy(), [[3, 1, 2, 3, 1]])
    np.testing.assert_allclose(F.pad(x, (-1, 0)).detach().numpy(), [[2, 3]])
    F.pad(x, (1, 2), mode="reflect").sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [[2.0, 3.0, 1.0]])


def test_embedding_hand_computed_padding_idx_gets_zero_grad():
    w = mg.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
    idx = mg.tensor(np.array([[1, 0, 1], [3, 1, 0]]))
    out = F.embedding(idx, w, padding_idx=0)
    np.testing.assert_allclose(out.detach().numpy()[0], [[2, 3], [0, 1], [2, 3]])  # row 0 still looked up
    out.sum().backward()
    np.testing.assert_allclose(w.grad.detach().numpy(), [[0, 0], [3, 3], [0, 0], [1, 1]])
    w.grad = None
    F.embedding(idx, w, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w.grad.detach().numpy(), [[1, 1], [1, 1], [0, 0], [1, 1]])


def test_float32_stays_float32():
    x = mg.tensor(rand(1, 2, 5, 5).astype(np.float32), requires_grad=True)
    w = mg.tensor(rand(2, 2, 3, 3, seed=1).astype(np.float32), requires_grad=True)
    y = F.avg_pool2d(F.max_pool2d(F.conv2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), w), 2,
                                  stride=1), 2)
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float32


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("call, error, match", [
    (lambda: F.conv2d(mg.randn(1, 3, 5, 5), mg.randn(2, 2, 3, 3)), RuntimeError, "channels"),
    (lambda: F.conv2d(mg.randn(1, 2, 5, 5), mg.randn(2, 2, 3, 3), stride=2, padding="same"),
     RuntimeError, "strided"),
    (lambda: F.conv2d(mg.randn(1, 2, 5, 5), mg.randn(2, 2, 3, 3), padding="full"),
     RuntimeError, "valid"),
    (lambda: F.conv2d(mg.randn(5, 5), mg.randn(2, 2, 3, 3)), RuntimeError, "3D"),
    (lambda: F.conv_transpose2d(mg.randn(1, 2, 1, 1), mg.randn(2, 2, 3, 3), padding=2),
     RuntimeError, "too small"),
    (lambda: F.max_pool2d(mg.randn(1, 1, 4, 4), 2, padding=2), RuntimeError, "half"),
    (lambda: F.avg_pool2d(mg.randn(1, 1, 2, 2), 3), RuntimeError, "too small"),
    (lambda: F.pad(mg.randn(1, 3), (3, 0), mode="reflect"), RuntimeError, "less than"),
    (lambda: F.pad(mg.randn(1, 3), (1,)), RuntimeError, "divisible by 2"),
    (lambda: F.pad(mg.randn(1, 3), (1, 1), mode="wrap"), NotImplementedError,
     "Unrecognised padding mode wrap"),
    (lambda: F.embedding(mg.tensor([0, 3]), mg.randn(3, 2)), IndexError, "out of range"),
    (lambda: F.embedding(mg.tensor([0.0, 1.0]), mg.randn(3, 2)), RuntimeError,
     "scalar types: Long, Int"),
])
def test_errors_say_what_to_do(call, error, match):
    with pytest.raises(error, match=match):
        call()


CONV_DTYPE_MIXES = [
    lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3, dtype=L.float64), L.ones(1, 1, 2, 2), L.ones(1)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3, dtype=L.float64), L.ones(1, 1, 2, 2),
                                     L.ones(1, dtype=L.float64)),
    lambda L: L.nn.functional.conv1d(L.ones(1, 1, 3), L.ones(1, 1, 2, dtype=L.float64)),
    lambda L: L.nn.functional.conv1d(L.ones(1, 1, 3, dtype=L.long), L.ones(1, 1, 2)),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 1, 3, 3, dtype=L.float64), L.ones(1, 1, 2, 2)),
    lambda L: L.nn.Conv2d(1, 2, 3)(L.ones(1, 1, 4, 4, dtype=L.float64)),  # a numpy batch, float32 model
]


@pytest.mark.parametrize("case", range(len(CONV_DTYPE_MIXES)))
def test_conv_refuses_mixed_dtypes_as_torch(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        CONV_DTYPE_MIXES[case](torch)
    with pytest.raises(RuntimeError) as ours:
        CONV_DTYPE_MIXES[case](mg)
    assert str(ours.value) == str(theirs.value)
