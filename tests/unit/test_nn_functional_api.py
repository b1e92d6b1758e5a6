"""minigrad.nn.functional called as a PyTorch user calls torch.nn.functional.

Each case is one call written once for both libraries (``lib`` is ``minigrad`` or
``torch``, ``F`` its functional module).  With torch installed, values and gradients
are compared; without it, minigrad's own first and second derivatives are checked.
"""
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as MF
from minigrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(1234)


def U(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape)


def P(*shape, dim=1):
    """Rows of class probabilities."""
    e = np.exp(U(*shape))
    return e / e.sum(axis=dim, keepdims=True)


def I(values):
    return np.asarray(values, dtype=np.int64)


def C(array):
    """A constant (does not require grad)."""
    return ("const", np.asarray(array))


# (id, inputs, call): float arrays are leaves that require grad, C(...) and int arrays not.
CASES = [
    ("relu", [U(3, 4)], lambda lib, F, x: F.relu(x)),
    ("relu6", [U(3, 4, lo=-2, hi=8)], lambda lib, F, x: F.relu6(x)),
    ("leaky_relu", [U(3, 4)], lambda lib, F, x: F.leaky_relu(x, negative_slope=0.2)),
    ("elu", [U(3, 4)], lambda lib, F, x: F.elu(x, alpha=0.7)),
    ("selu", [U(3, 4)], lambda lib, F, x: F.selu(x)),
    ("gelu", [U(3, 4)], lambda lib, F, x: F.gelu(x)),
    ("gelu_tanh", [U(3, 4)], lambda lib, F, x: F.gelu(x, approximate="tanh")),
    ("silu", [U(3, 4)], lambda lib, F, x: F.silu(x)),
    ("mish", [U(3, 4)], lambda lib, F, x: F.mish(x)),
    ("softplus", [U(3, 4)], lambda lib, F, x: F.softplus(x)),
    ("softplus_beta", [U(3, 4)], lambda lib, F, x: F.softplus(x, beta=2, threshold=1.5)),
    ("hardtanh", [U(3, 4)], lambda lib, F, x: F.hardtanh(x, min_val=-0.5, max_val=0.8)),
    ("hardsigmoid", [U(3, 4, lo=-5, hi=5)], lambda lib, F, x: F.hardsigmoid(x)),
    ("hardswish", [U(3, 4, lo=-5, hi=5)], lambda lib, F, x: F.hardswish(x)),
    ("logsigmoid", [U(3, 4, lo=-30, hi=30)], lambda lib, F, x: F.logsigmoid(x)),
    ("sigmoid_tanh", [U(3, 4)], lambda lib, F, x: F.sigmoid(x) * F.tanh(x)),
    ("softsign", [U(3, 4)], lambda lib, F, x: F.softsign(x)),
    ("tanhshrink", [U(3, 4)], lambda lib, F, x: F.tanhshrink(x)),
    ("threshold", [U(3, 4)], lambda lib, F, x: F.threshold(x, 0.3, -2.0)),
    ("celu", [U(3, 4)], lambda lib, F, x: F.celu(x, alpha=0.6)),
    ("glu", [U(3, 4)], lambda lib, F, x: F.glu(x)),
    ("glu_dim0", [U(4, 3)], lambda lib, F, x: F.glu(x, 0)),
    ("prelu", [U(2, 3, 4), U(3)], lambda lib, F, x, w: F.prelu(x, w)),
    ("prelu_single", [U(3, 4), U(1)], lambda lib, F, x, w: F.prelu(x, w)),
    ("softmax", [U(3, 4)], lambda lib, F, x: F.softmax(x, dim=1)),
    ("softmax_dtype", [U(2, 3, 4)], lambda lib, F, x: F.softmax(x, dim=-1, dtype=lib.float64)),
    ("log_softmax", [U(3, 4)], lambda lib, F, x: F.log_softmax(x, dim=0)),
    ("softmin", [U(3, 4)], lambda lib, F, x: F.softmin(x, dim=1)),
    ("top_level_softmax", [U(3, 4)], lambda lib, F, x: lib.softmax(x, 1)),
    ("method_log_softmax", [U(3, 4)], lambda lib, F, x: x.log_softmax(-1)),
    ("linear", [U(5, 4), U(3, 4), U(3)], lambda lib, F, x, w, b: F.linear(x, w, b)),
    ("linear_no_bias", [U(2, 5, 4), U(3, 4)], lambda lib, F, x, w: F.linear(x, w)),
    ("layer_norm", [U(3, 4), U(4), U(4)],
     lambda lib, F, x, w, b: F.layer_norm(x, (4,), weight=w, bias=b, eps=1e-3)),
    ("layer_norm_2d", [U(2, 3, 4)], lambda lib, F, x: F.layer_norm(x, [3, 4])),
    ("batch_norm_train", [U(4, 3, 2), U(3), U(3)],
     lambda lib, F, x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    ("batch_norm_eval", [U(4, 3), C(U(3)), C(U(3, lo=0.5, hi=2)), U(3), U(3)],
     lambda lib, F, x, m, v, w, b: F.batch_norm(x, m, v, weight=w, bias=b, eps=1e-3)),
    ("group_norm", [U(2, 4, 3), U(4), U(4)],
     lambda lib, F, x, w, b: F.group_norm(x, 2, weight=w, bias=b)),
    ("rms_norm", [U(3, 4), U(4)], lambda lib, F, x, w: F.rms_norm(x, [4], weight=w)),
    ("rms_norm_eps", [U(2, 3, 4)], lambda lib, F, x: F.rms_norm(x, (3, 4), eps=1e-3)),
    ("instance_norm", [U(2, 3, 4), U(3), U(3)],
     lambda lib, F, x, w, b: F.instance_norm(x, weight=w, bias=b)),
    ("instance_norm_eval", [U(2, 3, 4), C(U(3)), C(U(3, lo=0.5, hi=2))],
     lambda lib, F, x, m, v: F.instance_norm(x, m, v, use_input_stats=False)),
    ("normalize", [U(3, 4)], lambda lib, F, x: F.normalize(x)),
    ("normalize_p1_dim0", [U(3, 4)], lambda lib, F, x: F.normalize(x, p=1.0, dim=0)),
    ("normalize_p3", [U(3, 4)], lambda lib, F, x: F.normalize(x, p=3, dim=-1)),
    ("cosine_similarity", [U(3, 4), U(3, 4)], lambda lib, F, a, b: F.cosine_similarity(a, b)),
    ("cosine_similarity_broadcast", [U(3, 4), U(4)],
     lambda lib, F, a, b: F.cosine_similarity(a, b, dim=-1, eps=1e-6)),
    ("pairwise_distance", [U(3, 4), U(3, 4)], lambda lib, F, a, b: F.pairwise_distance(a, b)),
    ("pairwise_distance_p1", [U(3, 4), U(3, 4)],
     lambda lib, F, a, b: F.pairwise_distance(a, b, p=1.0, keepdim=True)),
    ("mse_loss", [U(3, 4), U(3, 4)], lambda lib, F, x, t: F.mse_loss(x, t)),
    ("mse_loss_sum_weight", [U(3, 4), U(3, 4), C(U(3, 4, lo=0, hi=1))],
     lambda lib, F, x, t, w: F.mse_loss(x, t, reduction="sum", weight=w)),
    ("mse_loss_mean_weight", [U(3, 4), U(3, 4), C(U(3, 4, lo=0, hi=1))],
     lambda lib, F, x, t, w: F.mse_loss(x, t, weight=w)),
    ("l1_loss", [U(3, 4), U(3, 4)], lambda lib, F, x, t: F.l1_loss(x, t)),
    ("l1_loss_none", [U(3, 4), C(U(3, 4))], lambda lib, F, x, t: F.l1_loss(x, t, reduction="none")),
    ("smooth_l1_loss", [U(3, 4), U(3, 4)],
     lambda lib, F, x, t: F.smooth_l1_loss(x, t, beta=0.5)),
    ("smooth_l1_loss_beta0", [U(3, 4), U(3, 4)],
     lambda lib, F, x, t: F.smooth_l1_loss(x, t, reduction="sum", beta=0.0)),
    ("huber_loss", [U(3, 4), U(3, 4)], lambda lib, F, x, t: F.huber_loss(x, t, delta=0.7)),
    ("huber_loss_weight", [U(3, 4), U(3, 4), C(U(3, 4, lo=0, hi=1))],
     lambda lib, F, x, t, w: F.huber_loss(x, t, reduction="mean", delta=1.5, weight=w)),
    ("cross_entropy", [U(4, 5), I([0, 4, 2, 2])], lambda lib, F, x, t: F.cross_entropy(x, t)),
    ("cross_entropy_all_options", [U(4, 3), I([0, 1, 2, 1]), C(U(3, lo=0.5, hi=2))],
     lambda lib, F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=1,
                                             label_smoothing=0.1, reduction="sum")),
    ("cross_entropy_weight_mean", [U(4, 3), I([0, 1, 2, -100]), C(U(3, lo=0.5, hi=2))],
     lambda lib, F, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2)),
    ("cross_entropy_nd_none", [U(2, 3, 2, 2), I([[[0, 1], [2, 2]], [[1, 1], [0, 2]]])],
     lambda lib, F, x, t: F.cross_entropy(x, t, reduction="none")),
    ("cross_entropy_unbatched", [U(5), I(3)], lambda lib, F, x, t: F.cross_entropy(x, t)),
    ("cross_entropy_probs", [U(3, 4), P(3, 4)],
     lambda lib, F, x, t: F.cross_entropy(x, t, label_smoothing=0.3)),
    ("cross_entropy_probs_weight", [U(2, 3, 2), P(2, 3, 2), C(U(3, lo=0.5, hi=2))],
     lambda lib, F, x, t, w: F.cross_entropy(x, t, weight=w, reduction="sum")),
    ("nll_loss", [U(4, 3), I([0, 1, 2, 1]), C(U(3, lo=0.5, hi=2))],
     lambda lib, F, x, t, w: F.nll_loss(F.log_softmax(x, dim=1), t, weight=w, ignore_index=2)),
    ("nll_loss_none", [U(4, 3, 2), I([[0, 1], [2, 1], [1, 1], [0, 0]])],
     lambda lib, F, x, t: F.nll_loss(x, t, reduction="none")),
    ("binary_cross_entropy",
     [U(3, 4, lo=0.05, hi=0.95), U(3, 4, lo=0, hi=1), C(U(3, 4, lo=0, hi=2))],
     lambda lib, F, x, t, w: F.binary_cross_entropy(x, t, weight=w)),
    ("binary_cross_entropy_sigmoid", [U(3, 4), C(U(3, 4, lo=0, hi=1))],
     lambda lib, F, x, t: F.binary_cross_entropy(lib.sigmoid(x), t, reduction="sum")),
    ("bce_with_logits", [U(3, 4, lo=-30, hi=30), U(3, 4, lo=0, hi=1)],
     lambda lib, F, x, t: F.binary_cross_entropy_with_logits(x, t)),
    ("bce_with_logits_weights", [U(3, 4), U(3, 4, lo=0, hi=1), C(U(4, lo=0, hi=2)),
                                 C(U(4, lo=0.5, hi=3))],
     lambda lib, F, x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw,
                                                                    reduction="none")),
    ("poisson_nll_loss", [U(3, 4), C(U(3, 4, lo=0, hi=3))],
     lambda lib, F, x, t: F.poisson_nll_loss(x, t)),
    ("poisson_nll_loss_full", [U(3, 4, lo=0.1, hi=3), C(U(3, 4, lo=0, hi=3))],
     lambda lib, F, x, t: F.poisson_nll_loss(x, t, log_input=False, full=True, reduction="sum")),
    ("gaussian_nll_loss", [U(3, 4), U(3, 4), U(3, 4, lo=0.1, hi=2)],
     lambda lib, F, x, t, v: F.gaussian_nll_loss(x, t, v)),
    ("gaussian_nll_loss_homoscedastic", [U(3, 4), C(U(3, 4)), U(3, lo=0.1, hi=2)],
     lambda lib, F, x, t, v: F.gaussian_nll_loss(x, t, v, full=True, reduction="none")),
    ("margin_ranking_loss", [U(5), U(5), C([1.0, -1.0, 1.0, -1.0, 1.0])],
     lambda lib, F, a, b, t: F.margin_ranking_loss(a, b, t, margin=0.3)),
    ("hinge_embedding_loss", [U(3, 4), C(np.where(U(3, 4) > 0, 1.0, -1.0))],
     lambda lib, F, x, t: F.hinge_embedding_loss(x, t, margin=0.5)),
    ("soft_margin_loss", [U(3, 4), C(np.where(U(3, 4) > 0, 1.0, -1.0))],
     lambda lib, F, x, t: F.soft_margin_loss(x, t)),
    ("multilabel_soft_margin_loss", [U(3, 4), C(U(3, 4, lo=0, hi=1)), C(U(4, lo=0.5, hi=2))],
     lambda lib, F, x, t, w: F.multilabel_soft_margin_loss(x, t, weight=w, reduction="sum")),
    ("cosine_embedding_loss", [U(4, 3), U(4, 3), C([1.0, -1.0, -1.0, 1.0])],
     lambda lib, F, a, b, t: F.cosine_embedding_loss(a, b, t, margin=-0.5)),
    ("triplet_margin_loss", [U(3, 4), U(3, 4), U(3, 4)],
     lambda lib, F, a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0)),
    ("triplet_margin_loss_swap_p1", [U(3, 4), U(3, 4), U(3, 4)],
     lambda lib, F, a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, p=1, swap=True)),
    ("kl_div_batchmean", [U(3, 4), P(3, 4)],
     lambda lib, F, x, t: F.kl_div(F.log_softmax(x, dim=1), t, reduction="batchmean")),
    ("kl_div_log_target", [U(3, 4), U(3, 4)],
     lambda lib, F, x, t: F.kl_div(x, t, reduction="sum", log_target=True)),
    ("kl_div_none_zero_target", [U(3, 4), C(np.where(U(3, 4) > 0, P(3, 4), 0.0))],
     lambda lib, F, x, t: F.kl_div(x, t, reduction="none")),
]


def _build(lib, arrays):
    leaves, args = [], []
    for a in arrays:
        const = isinstance(a, tuple)
        a = a[1] if const else np.asarray(a)
        t = lib.tensor(a.copy())
        if a.dtype.kind == "f" and not const:
            t.requires_grad_()
            leaves.append(t)
        args.append(t)
    return args, leaves


def _run(lib, F, arrays, call):
    args, leaves = _build(lib, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = call(lib, F, *args)
    weights = lib.tensor(np.random.default_rng(7).uniform(0.5, 1.5, tuple(out.shape)))
    (out * weights).sum().backward()
    return out.detach().numpy(), [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("arrays, call", [pytest.param(a, c, id=n) for n, a, c in CASES])
def test_matches_torch(arrays, call):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    value, grads = _run(minigrad, MF, arrays, call)
    expected_value, expected_grads = _run(torch, TF, arrays, call)
    np.testing.assert_allclose(value, expected_value, rtol=1e-7, atol=1e-9)
    for got, want in zip(grads, expected_grads):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("arrays, call", [pytest.param(a, c, id=n) for n, a, c in CASES])
def test_first_and_second_order(arrays, call):
    args, leaves = _build(minigrad, arrays)
    positions = [i for i, a in enumerate(args) if any(a is leaf for leaf in leaves)]

    def fn(*new_leaves):
        call_args = list(args)
        for i, leaf in zip(positions, new_leaves):
            call_args[i] = leaf
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(minigrad, MF, *call_args)
    assert gradcheck(fn, leaves)
    assert gradgradcheck(fn, leaves)


# ------------------------------------------------------------------ dropout
def test_dropout_masks_scales_and_reuses_the_mask_in_backward():
    minigrad.manual_seed(0)
    x = minigrad.tensor(U(50, 40) + 3.0, requires_grad=True)
    y = MF.dropout(x, p=0.25)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(y.detach().numpy()[kept], x.detach().numpy()[kept] / 0.75)
    assert abs(kept.mean() - 0.75) < 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), kept / 0.75)


def test_dropout_follows_manual_seed():
    x = minigrad.ones(6, 7)
    minigrad.manual_seed(3)
    a = MF.dropout(x).detach().numpy()
    minigrad.manual_seed(3)
    b = MF.dropout(x, 0.5, True).detach().numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, MF.dropout(x).detach().numpy())


def test_dropout_eval_p0_p1_and_errors():
    x = minigrad.tensor(U(3, 4), requires_grad=True)
    assert MF.dropout(x, p=0.5, training=False) is x
    np.testing.assert_array_equal(MF.dropout(x, p=0.0).detach().numpy(), x.detach().numpy())
    y = MF.dropout(x, p=1.0)
    np.testing.assert_array_equal(y.detach().numpy(), np.zeros((3, 4)))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="between 0 and 1"):
        MF.dropout(x, p=1.5)


def test_dropout_second_order():
    minigrad.manual_seed(5)
    x = minigrad.tensor(U(3, 4), requires_grad=True)
    mask_seed = 11

    def fn(x):
        minigrad.manual_seed(mask_seed)
        return MF.dropout(x * x, p=0.3)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name, shape, lead", [("dropout1d", (4, 6, 5), 2),
                                               ("dropout1d", (6, 5), 1),
                                               ("dropout2d", (3, 4, 2, 5), 2),
                                               ("dropout3d", (5, 2, 2, 3), 1)])
def test_feature_dropout_drops_whole_channels(name, shape, lead):
    minigrad.manual_seed(2)
    x = minigrad.tensor(U(*shape) + 3.0, requires_grad=True)
    y = getattr(MF, name)(x, p=0.4)
    kept = (y.detach().numpy() != 0).reshape(shape[:lead] + (-1,))
    assert np.all(kept.all(axis=-1) | ~kept.any(axis=-1))  # a channel is kept or dropped whole
    assert kept.any() and not kept.all()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), (y.detach().numpy() != 0) / 0.6)


def test_feature_dropout_rejects_wrong_dims():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        MF.dropout1d(minigrad.ones(2, 3, 4, 5))


def test_inplace_activation():
    x = minigrad.tensor(U(3, 4), requires_grad=True)
    y = x * 1.0
    out = MF.relu(y, inplace=True)
    assert out is y
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), (x.detach().numpy() > 0) * 1.0)


# ------------------------------------------------------------------ batch_norm
def test_batch_norm_updates_running_stats_like_torch():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    x = U(5, 3, 2)
    results = []
    for lib, F in ((minigrad, MF), (torch, TF)):
        rm, rv = lib.tensor(np.zeros(3)), lib.tensor(np.ones(3))
        out = F.batch_norm(lib.tensor(x), rm, rv, training=True, momentum=0.3)
        results.append((out.numpy(), rm.numpy(), rv.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_instance_norm_updates_running_stats_like_torch():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    x = U(3, 2, 4)
    results = []
    for lib, F in ((minigrad, MF), (torch, TF)):
        rm, rv = lib.tensor(np.zeros(2)), lib.tensor(np.ones(2))
        out = F.instance_norm(lib.tensor(x), rm, rv, momentum=0.2)
        results.append((out.numpy(), rm.numpy(), rv.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_batch_norm_running_stats_not_recorded():
    x = minigrad.tensor(U(4, 3), requires_grad=True)
    rm, rv = minigrad.zeros(3, dtype=minigrad.float64), minigrad.ones(3, dtype=minigrad.float64)
    MF.batch_norm(x, rm, rv, training=True).sum().backward()
    assert rm.grad_fn is None and not rm.requires_grad
    np.testing.assert_allclose(rm.detach().numpy(), 0.1 * x.detach().numpy().mean(axis=0))


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        MF.batch_norm(minigrad.ones(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean"):
        MF.batch_norm(minigrad.ones(2, 3), None, None)
    with pytest.raises(RuntimeError, match="should contain 3 elements"):
        MF.batch_norm(minigrad.ones(2, 3), minigrad.zeros(4), minigrad.ones(3))


# ------------------------------------------------------------------ one_hot, errors
def test_one_hot_matches_torch():
    torch = pytest.importorskip("torch")
    idx = I([[0, 3], [2, 1]])
    got = MF.one_hot(minigrad.tensor(idx), num_classes=5)
    assert got.dtype == np.int64 and not got.requires_grad
    np.testing.assert_array_equal(got.numpy(), torch.nn.functional.one_hot(torch.tensor(idx), 5))
    np.testing.assert_array_equal(MF.one_hot(minigrad.tensor(idx)).numpy(),
                                  torch.nn.functional.one_hot(torch.tensor(idx)).numpy())


def test_one_hot_errors():
    with pytest.raises(RuntimeError, match="LongTensor"):
        MF.one_hot(minigrad.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        MF.one_hot(minigrad.tensor([0, 3]), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        MF.one_hot(minigrad.tensor([-1, 0]))


def test_loss_argument_errors():
    x = minigrad.tensor(U(3, 4), requires_grad=True)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        MF.mse_loss(x, x.detach(), reduction="avg")
    with pytest.raises(ValueError, match="Expected input batch_size"):
        MF.cross_entropy(x, minigrad.tensor(I([0, 1])))
    with pytest.raises(IndexError, match="out of bounds"):
        MF.cross_entropy(x, minigrad.tensor(I([0, 1, 4])))
    with pytest.raises(RuntimeError, match="label_smoothing"):
        MF.cross_entropy(x, minigrad.tensor(I([0, 1, 2])), label_smoothing=1.5)
    with pytest.raises(ValueError, match="same size"):
        MF.binary_cross_entropy(minigrad.sigmoid(x), minigrad.tensor(U(4)))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        MF.binary_cross_entropy(x * 10, minigrad.tensor(U(3, 4, lo=0, hi=1)))
    with pytest.raises(RuntimeError, match="normalized_shape"):
        MF.layer_norm(x, (3,))
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        MF.group_norm(minigrad.tensor(U(2, 4, 3)), 3)


def test_legacy_size_average_and_reduce():
    x, t = minigrad.tensor(U(3, 4)), minigrad.tensor(U(3, 4))
    with pytest.warns(UserWarning, match="size_average and reduce"):
        summed = MF.mse_loss(x, t, size_average=False)
    np.testing.assert_allclose(summed.item(), MF.mse_loss(x, t, reduction="sum").item())
    with pytest.warns(UserWarning):
        none = MF.l1_loss(x, t, reduce=False)
    assert none.shape == (3, 4)


def test_cross_entropy_all_ignored_mean_is_nan_like_torch():
    x = minigrad.tensor(U(2, 3), requires_grad=True)
    loss = MF.cross_entropy(x, minigrad.tensor(I([-100, -100])))
    assert np.isnan(loss.item())


def test_implicit_softmax_dim_warns():
    x = minigrad.tensor(U(3, 4))
    with pytest.warns(UserWarning, match="Implicit dimension"):
        y = MF.softmax(x)
    np.testing.assert_allclose(y.detach().numpy().sum(axis=1), np.ones(3))


def test_masked_logits_give_finite_losses_and_gradients():
    logits = U(3, 4)
    logits[:, 3] = -np.inf
    target = I([0, 2, 1])
    x = minigrad.tensor(logits, requires_grad=True)
    loss = MF.cross_entropy(x, minigrad.tensor(target))
    loss.backward()
    assert np.isfinite(loss.item()) and np.all(np.isfinite(x.grad.detach().numpy()))
    assert np.all(x.grad.detach().numpy()[:, 3] == 0)
    z = minigrad.tensor(logits, requires_grad=True)
    nll = MF.nll_loss(MF.log_softmax(z, dim=1), minigrad.tensor(target))
    nll.backward()
    np.testing.assert_allclose(nll.item(), loss.item())
    np.testing.assert_allclose(z.grad.detach().numpy(), x.grad.detach().numpy())
    torch = pytest.importorskip("torch")
    expected = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(target))
    np.testing.assert_allclose(loss.item(), expected.item())
