"""torch's top-level functions minigrad had lacked (torch.batch_norm, torch.dropout,
torch.asarray, torch.gradient, torch.hann_window ...) and the Tensor methods beside them,
against PyTorch: values, gradients, dtypes and errors."""
import numpy as np
import pytest

import minigrad as mg

from tests.same_error import assert_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 3, 3))
W = RNG.standard_normal(4)
B = RNG.standard_normal(4)
V = RNG.standard_normal((3, 5))
P = RNG.standard_normal((3, 5))
LOGITS = RNG.standard_normal((5, 2, 4))


def leaf(t, array, dtype=None):
    return t.tensor(array, dtype=dtype or t.float64, requires_grad=True)


def _nll(t):
    rm, rv = t.zeros(4, dtype=t.float64), t.ones(4, dtype=t.float64)
    return rm, rv


# each builds (leaves, output) with t = torch or minigrad
CALLS = {
    "batch_norm": lambda t, x, w, b: t.batch_norm(x, w, b, *_nll(t), True, 0.1, 1e-5, False),
    "batch_norm_eval": lambda t, x, w, b: t.batch_norm(x, w, b, *_nll(t), False, 0.1, 1e-5,
                                                       True),
    "instance_norm": lambda t, x, w, b: t.instance_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                        False),
    "layer_norm": lambda t, x, w, b: t.layer_norm(x, (3, 3)),
    "group_norm": lambda t, x, w, b: t.group_norm(x, 2, w, b, 1e-5, True),
    "rms_norm": lambda t, x, w, b: t.rms_norm(x, (3,)),
    "dropout_eval": lambda t, x, w, b: t.dropout(x, 0.5, False),
    "feature_dropout_eval": lambda t, x, w, b: t.feature_dropout(x, 0.3, False),
    "alpha_dropout_eval": lambda t, x, w, b: t.alpha_dropout(x, 0.3, False),
    "dropout_p0": lambda t, x, w, b: t.feature_alpha_dropout(x, 0.0, True),
    "pixel_shuffle": lambda t, x, w, b: t.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda t, x, w, b: t.pixel_unshuffle(x[:, :, :2, :2], 2),
    "channel_shuffle": lambda t, x, w, b: t.channel_shuffle(x, 2),
    "pdist": lambda t, x, w, b: t.pdist(x.reshape(8, 9), 3),
    "pairwise_distance": lambda t, x, w, b: t.pairwise_distance(x[0], x[1], 1.5),
    "cosine_similarity": lambda t, x, w, b: t.cosine_similarity(x[0], x[1], 0),
    "kl_div": lambda t, x, w, b: t.kl_div(x, x.sigmoid()),
    "kl_div_sum_log": lambda t, x, w, b: t.kl_div(x, x * 0.5, 2, log_target=True),
    "kl_div_mean": lambda t, x, w, b: t.kl_div(x, x.sigmoid(), 1),
    "celu": lambda t, x, w, b: t.celu(x, 0.7),
    "celu_": lambda t, x, w, b: t.celu_(x * 1, 0.7),
    "selu": lambda t, x, w, b: t.selu(x),
    "selu_": lambda t, x, w, b: t.selu_(x * 1),
    "rrelu_eval": lambda t, x, w, b: t.rrelu(x),
    "rrelu_": lambda t, x, w, b: t.rrelu_(x * 1, 0.1, 0.3),
    "threshold": lambda t, x, w, b: t.threshold(x, 0.2, -3.0),
    "threshold_": lambda t, x, w, b: t.threshold_(x * 1, 0.2, -3.0),
    "prelu": lambda t, x, w, b: t.prelu(x, w),
    "prelu_method": lambda t, x, w, b: x.prelu(w[:1]),
    "hardshrink": lambda t, x, w, b: t.hardshrink(x, 0.6),
    "hardshrink_method": lambda t, x, w, b: x.hardshrink(),
    "bilinear": lambda t, x, w, b: t.bilinear(x[0, 0], x[1, 1], x[:, :, 0, :].reshape(2, 4, 3)
                                              [:, :3], b[:2]),
    "bce_logits": lambda t, x, w, b: t.binary_cross_entropy_with_logits(
        x, x.sigmoid().detach(), None, w.reshape(4, 1, 1).abs().detach(), 1),
    "cosine_embedding_loss": lambda t, x, w, b: t.cosine_embedding_loss(
        x[0, 0], x[1, 0], t.tensor([1.0, -1.0, 1.0], dtype=t.float64), 0.1, 0),
    "hinge_embedding_loss": lambda t, x, w, b: t.hinge_embedding_loss(x, x.sign().detach()),
    "margin_ranking_loss": lambda t, x, w, b: t.margin_ranking_loss(x[0], x[1], x[0].sign(),
                                                                    0.2, 2),
    "triplet_margin_loss": lambda t, x, w, b: t.triplet_margin_loss(x[0, 0], x[1, 0], x[0, 1],
                                                                    1.0, 2, 1e-6, True, 0),
    "poisson_nll_loss": lambda t, x, w, b: t.poisson_nll_loss(x, x.abs().detach(), True, True,
                                                              1e-8, 1),
    "adaptive_max_pool1d": lambda t, x, w, b: t.adaptive_max_pool1d(x[0], 2)[0],
    "adaptive_max_pool1d_idx": lambda t, x, w, b: t.adaptive_max_pool1d(x[0], 2)[1],
    "constant_pad_nd": lambda t, x, w, b: t.constant_pad_nd(x, (1, 2, 0, 1), 2.5),
    "convolution": lambda t, x, w, b: t.convolution(x, x[:, :2, :2, :2], b[:2], (1, 1), (1, 0),
                                                    (1, 1), False, (0, 0), 2),
    "convolution_t": lambda t, x, w, b: t.convolution(x, x[:, :, :2, :2].transpose(0, 1), b[:2],
                                                      (2, 1), (0, 0), (1, 1), True, (1, 0), 1),
    "convolution_1d": lambda t, x, w, b: t.convolution(x[0], x[1, :2, :, 0].reshape(2, 3, 1),
                                                       None, (1,), (0,), (1,), False, (0,), 1),
    "grid_sampler": lambda t, x, w, b: t.grid_sampler(x, x[:, :2].permute(0, 2, 3, 1).tanh(),
                                                      0, 1, False),
    "grid_sampler_nearest": lambda t, x, w, b: t.grid_sampler(
        x, x[:, :2].permute(0, 2, 3, 1).tanh() * 0.9, 1, 2, True),
    "affine_grid_generator": lambda t, x, w, b: t.affine_grid_generator(
        x[:, 0, :2, :3], (2, 1, 4, 5), False),
    "embedding": lambda t, x, w, b: t.embedding(x[0, 0], t.tensor([[0, 2], [1, 1]]), 1),
    "embedding_bag_mean": lambda t, x, w, b: t.embedding_bag(
        x[0].reshape(12, 3), t.tensor([1, 2, 4, 5, 4, 3, 2, 9]), t.tensor([0, 3, 3, 5]),
        False, 1),
    "embedding_bag_max": lambda t, x, w, b: t.embedding_bag(
        x[0].reshape(12, 3), t.tensor([1, 2, 4, 5, 4, 3, 2, 9]), t.tensor([0, 3, 3, 5]),
        False, 2),
    "embedding_bag_sum": lambda t, x, w, b: t.embedding_bag(
        x[0].reshape(12, 3), t.tensor([1, 2, 4, 5]), t.tensor([0, 3]), False, 0, False,
        w.detach(), True),
    "embedding_bag_sum32": lambda t, x, w, b: t.embedding_bag(
        x[0].reshape(12, 3).float(), t.tensor([1, 2, 4, 5]), t.tensor([0, 3])),
    "ctc_loss": lambda t, x, w, b: t.ctc_loss(
        x.reshape(-1)[:40].reshape(5, 2, 4).log_softmax(2), t.tensor([[1, 2], [3, 3]]),
        [5, 4], [2, 2], 0, 2, False),
    "detach": lambda t, x, w, b: t.detach(x) * x,
    "fill": lambda t, x, w, b: t.fill(x, 2.5) + t.fill(x, w[0]) * w[1],
    "rsub": lambda t, x, w, b: t.rsub(x, w[0], alpha=3) + t.rsub(x, 2),
    "rsub_int": lambda t, x, w, b: t.rsub(t.tensor([1, 2]), 2.5),
    "split_with_sizes": lambda t, x, w, b: t.split_with_sizes(x, [1, 3], 1)[1],
    "unsafe_split": lambda t, x, w, b: t.unsafe_split(x, 2, 2)[1] * 2,
    "unsafe_chunk": lambda t, x, w, b: x.unsafe_chunk(3, 1)[1],
    "unsafe_split_with_sizes": lambda t, x, w, b: x.unsafe_split_with_sizes([2, 1], -1)[0],
    "trapz": lambda t, x, w, b: t.trapz(x, w[:3] * 2, dim=2),
    "trapz_dx": lambda t, x, w, b: t.trapz(x, dx=0.5),
    "cumulative_trapezoid": lambda t, x, w, b: t.cumulative_trapezoid(x),
    "cumulative_trapezoid_x": lambda t, x, w, b: t.cumulative_trapezoid(x, x * 2, dim=1),
    "cumulative_trapezoid_x1": lambda t, x, w, b: t.cumulative_trapezoid(x, w.cumsum(0), dim=1),
    "cumulative_trapezoid_dx": lambda t, x, w, b: t.cumulative_trapezoid(x, dx=3.0, dim=0),
    "cumulative_trapezoid_int": lambda t, x, w, b: t.cumulative_trapezoid(t.tensor([1, 2, 4])),
    "gradient": lambda t, x, w, b: t.gradient(x)[1],
    "gradient_int": lambda t, x, w, b: t.gradient(t.tensor([1, 2, 4, 8]))[0],
    "gradient_edge2": lambda t, x, w, b: t.gradient(x, spacing=2.0, dim=(1, 2),
                                                    edge_order=2)[1],
    "gradient_list": lambda t, x, w, b: t.gradient(x, spacing=[1.0, 2.0, 0.5, 3.0])[3],
    "gradient_coords": lambda t, x, w, b: t.gradient(
        x, spacing=[t.tensor([0.0, 1.0, 3.0], dtype=t.float64)], dim=2)[0],
    "gradient_coords2": lambda t, x, w, b: t.gradient(
        x, spacing=[t.tensor([0.0, 1.0, 3.0, 3.5], dtype=t.float64)], dim=1, edge_order=2)[0],
    "nonzero_static": lambda t, x, w, b: t.nonzero_static((x > 0.5)[0, 0], size=4),
    "nonzero_static_method": lambda t, x, w, b: (x > 0)[0, 0].nonzero_static(size=9,
                                                                           fill_value=7),
    "unravel_index": lambda t, x, w, b: t.stack(t.unravel_index(t.tensor([[4, 1], [7, -1]]),
                                                                (2, 3))),
    "unravel_index_0d": lambda t, x, w, b: t.unravel_index(t.tensor(5), (2, 3, 1))[1],
}


def _outputs(result):
    results = result if isinstance(result, tuple) else (result,)
    return [r for r in results if isinstance(r, (torch.Tensor, mg.Tensor))]


def _build(t, name):
    leaves = [leaf(t, X), leaf(t, W), leaf(t, B)]
    outs = _outputs(CALLS[name](t, *leaves))
    wrt = [leaf_ for leaf_ in leaves]
    differentiable = [o for o in outs if o.requires_grad]
    grads = []
    if differentiable:
        total = sum((o * (1 + t.arange(o.numel(), dtype=o.dtype).reshape(o.shape) % 3)).sum()
                    for o in differentiable)
        grads = t.autograd.grad(total, wrt, allow_unused=True)
    return outs, grads


@pytest.mark.parametrize("name", CALLS)
def test_values_grads_dtypes(name):
    torch.manual_seed(0)
    mg.manual_seed(0)
    got, expected = _build(mg, name), _build(torch, name)
    assert len(got[0]) == len(expected[0])
    for g, e in zip(got[0], expected[0]):
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-7,
                                   atol=1e-10)
    assert len(got[1]) == len(expected[1])
    for g, e in zip(got[1], expected[1]):
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-7, atol=1e-10)


def test_batch_norm_updates_running_stats():
    def run(t):
        rm, rv = t.zeros(4, dtype=t.float64), t.ones(4, dtype=t.float64)
        t.batch_norm(t.tensor(X), None, None, rm, rv, True, 0.3, 1e-5, True)
        return rm, rv
    for g, e in zip(run(mg), run(torch)):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["dropout", "feature_dropout", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_dropouts_in_training(name):
    x = mg.ones(200, 50, 1, dtype=mg.float64, requires_grad=True)
    out = getattr(mg, name)(x, 0.4, True)
    kept = out.detach().numpy() == out.detach().numpy().max()
    assert 0.5 < kept.mean() < 0.7
    if name.startswith("feature"):   # whole channels are kept or dropped
        assert (kept == kept[:, :, :1]).all()
    out.sum().backward()
    assert x.grad.shape == x.shape
    y = mg.ones(200, 50, 1, dtype=mg.float64)
    assert getattr(mg, name + "_")(y, 0.4, True) is y
    assert not (y.numpy() == 1).all()


def test_asarray_shares_or_copies_as_torch():
    a = np.arange(4.0)
    shared, converted, copied = mg.asarray(a), mg.asarray(a, dtype=mg.float32), \
        mg.asarray(a, copy=True)
    a[0] = 9
    assert shared[0].item() == 9 and converted[0].item() == 0 and copied[0].item() == 0
    assert shared.dtype == mg.float64 and converted.dtype == mg.float32
    b = mg.ones(3, requires_grad=True)
    assert mg.asarray(b) is b
    assert type(mg.asarray(b, dtype=mg.float64).grad_fn).__name__ == "ToCopyBackward0"
    assert not mg.asarray(b, copy=True).is_leaf
    r = mg.asarray(mg.ones(2), requires_grad=True)
    assert r.requires_grad and r.is_leaf
    for data in ([1, 2], [1.0, 2], 3.0, np.float64(2.0), np.array(True), [[1, 2]]):
        g, e = mg.asarray(data), torch.asarray(data)
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        np.testing.assert_array_equal(g.numpy(), e.numpy())
    assert mg.asarray([[1, 2]], dtype=mg.float16).dtype == mg.float16


def test_asarray_refuses_an_alias_it_cannot_make():
    assert_same_error(lambda t: t.asarray(np.arange(4.0), dtype=t.float32, copy=False), torch)
    assert_same_error(lambda t: t.asarray(t.ones(2, dtype=t.int64), dtype=t.float32,
                                          copy=False), torch)


def test_frombuffer_shares_the_buffer():
    buffer = bytearray(16)
    view = mg.frombuffer(buffer, dtype=mg.float32, count=2, offset=4)
    view[0] = 1
    assert buffer == bytearray(torch.tensor([0, 1, 0, 0], dtype=torch.float32).numpy()
                               .tobytes())
    g = mg.frombuffer(b"\x01\x00\x00\x00\x02\x00\x00\x00", dtype=mg.int32)
    assert g.tolist() == [1, 2] and g.dtype == mg.int32


FROMBUFFER_ERRORS = {
    "ragged": lambda t: t.frombuffer(bytearray(3), dtype=t.float32),
    "empty": lambda t: t.frombuffer(bytearray(0), dtype=t.float32),
    "offset": lambda t: t.frombuffer(bytearray(8), dtype=t.float32, offset=9),
    "count": lambda t: t.frombuffer(bytearray(8), dtype=t.float32, count=5),
}

ERRORS = dict(FROMBUFFER_ERRORS, **{
    "kl_div_str_reduction": lambda t: t.kl_div(t.ones(3), t.ones(3), "mean"),
    "fill_1d": lambda t: t.fill(t.ones(3), t.ones(2)),
    "rsub_bool": lambda t: t.rsub(t.tensor([True]), True),
    "split_with_sizes": lambda t: t.split_with_sizes(t.arange(5), [2, 2]),
    "unravel_float": lambda t: t.unravel_index(t.tensor([1.0]), (2, 3)),
    "unravel_negative_shape": lambda t: t.unravel_index(t.tensor([1]), (2, -3)),
    "nonzero_static_size": lambda t: t.nonzero_static(t.tensor([1]), size=-1),
    "gradient_edge_order": lambda t: t.gradient(t.ones(3), edge_order=3),
    "gradient_short": lambda t: t.gradient(t.ones(2), edge_order=2),
    "gradient_spacing": lambda t: t.gradient(t.ones(3, 4), spacing=[1.0, 2.0, 3.0]),
    "cumulative_trapezoid_bool": lambda t: t.cumulative_trapezoid(t.tensor([True, False])),
    "cumulative_trapezoid_x": lambda t: t.cumulative_trapezoid(t.ones(2, 3), t.ones(2)),
    "resize_requires_grad": lambda t: t.ones(2, requires_grad=True).resize_(3),
    "resize_non_leaf": lambda t: (t.ones(2, requires_grad=True) * 2).resize_(2),
    "resize_negative": lambda t: t.ones(2, 3).resize_(2, -2),
    "new_float_data": lambda t: t.ones(2, dtype=t.int32).new(2.5),
    "new_negative": lambda t: t.ones(2).new(-1),
    "window_negative": lambda t: t.hann_window(-1),
    "window_int_dtype": lambda t: t.kaiser_window(3, dtype=t.int32),
    "window_float_length": lambda t: t.hann_window(2.5),
    "feature_dropout_1d": lambda t: t.feature_dropout(t.ones(3), 0.5, True),
    "dropout_p": lambda t: t.dropout(t.ones(3), 1.5, True),
})


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    assert_same_error(ERRORS[name], torch, 
                      lambda message: message.replace("torch.float", "minigrad.float"))


def test_constants_and_typename():
    assert (mg.pi, mg.e, mg.inf, mg.newaxis) == (torch.pi, torch.e, torch.inf, torch.newaxis)
    assert np.isnan(mg.nan)
    assert mg.typename(mg.ones(1, dtype=mg.int64)) == "minigrad.LongTensor"
    for obj in (3, np.ones(2), np.ndarray, "s"):
        assert mg.typename(obj) == torch.typename(obj)


@pytest.mark.parametrize("start,shape", [((6,), (2, 3)), ((6,), (2, 2)), ((4,), (3, 2)),
                                         ((2, 3), (6,))])
def test_resize(start, shape):
    def run(t):
        x = t.arange(float(np.prod(start))).reshape(start)
        y = x.resize_(*shape)
        assert y is x
        return x[:2] if np.prod(shape) > np.prod(start) else x
    got, expected = run(mg), run(torch)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_resize_reads_storage_and_resize_as():
    def run(t):
        x = t.arange(6.0).reshape(2, 3).t()
        x.resize_(3, 2)
        z = t.arange(4.0)
        t.resize_as_(z, t.ones(2, 2))
        return x, z, z.resize_as_(t.ones(1))
    for g, e in zip(run(mg), run(torch)):
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_new_and_new_empty_strided():
    for t in (mg, torch):
        x = t.ones(2, 3, dtype=t.int32)
        assert x.new(2, 2).dtype == t.int32 and tuple(x.new(2, 2).shape) == (2, 2)
        assert x.new([1, 2]).tolist() == [1, 2] and x.new([1.5]).tolist() == [1]
        assert tuple(x.new().shape) == (0,) and x.new((2, 3)).tolist() == [2, 3]
        assert tuple(x.new(t.Size([2, 3])).shape) == (2, 3)
        other = t.tensor([1, 2], dtype=t.int32)
        x.new(other)[0] = 5   # an alias
        assert other.tolist() == [5, 2]
        strided = x.new_empty_strided((2, 3), (1, 2))
        assert strided.stride() == (1, 2) and strided.dtype == t.int32
        assert x.new_empty_strided((2,), (1,), dtype=t.float64).dtype == t.float64


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, length, periodic):
    got, expected = getattr(mg, name)(length, periodic), getattr(torch, name)(length, periodic)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-6)


def test_window_options():
    pairs = [(lambda t: t.hamming_window(7, True, 0.5, 0.4, dtype=t.float64)),
             (lambda t: t.kaiser_window(6, False, 5.0, dtype=t.float64)),
             (lambda t: t.blackman_window(9, dtype=t.float64, requires_grad=True))]
    for build in pairs:
        got, expected = build(mg), build(torch)
        assert got.dtype == mg.float64 and got.requires_grad == expected.requires_grad
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-12, atol=1e-15)


SIGNAL_WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {"tau": 2.0},
    "gaussian": {"std": 1.5}, "general_cosine": {"a": [0.5, 0.3, 0.2]},
    "general_hamming": {"alpha": 0.6}, "hamming": {}, "hann": {}, "kaiser": {"beta": 4.0},
    "nuttall": {},
}


@pytest.mark.parametrize("name", SIGNAL_WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 7])
@pytest.mark.parametrize("sym", [True, False])
def test_signal_windows(name, length, sym):
    def build(t):
        window = getattr(t.signal.windows, name)(length, sym=sym, dtype=t.float64,
                                                 requires_grad=True, **SIGNAL_WINDOWS[name])
        return window, window.requires_grad
    (got, got_grad), (expected, expected_grad) = build(mg), build(torch)
    assert got.dtype == mg.float64 and got_grad == expected_grad
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    assert getattr(mg.signal.windows, name)(length, sym=sym, **SIGNAL_WINDOWS[name]).dtype \
        == mg.float32


SIGNAL_ERRORS = {
    "negative": lambda t: t.signal.windows.hann(-1),
    "int_dtype": lambda t: t.signal.windows.cosine(3, dtype=t.int64),
    "tau": lambda t: t.signal.windows.exponential(3, tau=0.0),
    "center": lambda t: t.signal.windows.exponential(3, center=1.0),
    "std": lambda t: t.signal.windows.gaussian(3, std=-1.0),
    "beta": lambda t: t.signal.windows.kaiser(3, beta=-1.0),
    "coefficients": lambda t: t.signal.windows.general_cosine(3, a=[]),
    "coefficients_type": lambda t: t.signal.windows.general_cosine(3, a=0.5),
}


@pytest.mark.parametrize("name", SIGNAL_ERRORS)
def test_signal_window_errors(name):
    assert_same_error(SIGNAL_ERRORS[name], torch)


def test_rrelu_draws_its_slopes_from_the_generator_given():
    x = mg.randn(1000, dtype=mg.float64)
    first = mg.rrelu(x, training=True, generator=mg.Generator().manual_seed(3))
    again = mg.rrelu(x, training=True, generator=mg.Generator().manual_seed(3))
    assert (first == again).all()
    slopes = (first / x)[x < 0]
    assert ((slopes >= 1 / 8) & (slopes <= 1 / 3)).all()
    mg.manual_seed(0)
    default = mg.rrelu(x, training=True)
    assert not (default == first).all()   # the default generator is another stream
    in_place = x.clone()
    mg.rrelu_(in_place, training=True, generator=mg.Generator().manual_seed(3))
    assert (in_place == first).all()


@pytest.mark.parametrize("split", [
    lambda L, t: L.unsafe_split(t, 3), lambda L, t: L.unsafe_chunk(t, 2),
    lambda L, t: t.unsafe_split_with_sizes([3, 3])])
def test_unsafe_split_pieces_share_memory_untracked_as_torch(split):
    def run(L):
        x = L.arange(6.0)
        a, _ = split(L, x)
        a[0] = 100.0   # writes into x, bumping only the piece's version
        w = L.arange(6.0, dtype=L.float64, requires_grad=True)
        y = w * 2
        p, q = split(L, y)
        p.mul_(3)   # autograd does not see that this changes y too
        (p.sum() + q.sum() + y.sum()).backward()
        return x.tolist(), x._version, a._version, y.tolist(), w.grad.tolist()
    assert run(mg) == run(torch)
