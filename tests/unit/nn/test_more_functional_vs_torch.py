"""nn/_more_functional.py and nn/modules/more.py against torch: values, gradients (first
and second order), dtypes, torch's exceptions in torch's order of checks, the modules'
reprs and state; the deterministic functions compiled against eager on new data; the
random ones (rrelu in training, the alpha dropouts, gumbel_softmax) by their structure,
statistics and seeds (minigrad's stream is not torch's); embedding's max_norm renorm."""
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck
from tests.unit.nn._torch_pair import raised

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
# boundaries of the shrinks (+-0.5), of rrelu (0), signed zeros and non-finite values; 64 of
# them, so that torch runs its vectorized kernels on all (its scalar loop, for the tail of
# a tensor, differs from them on a NaN's gradient)
SPECIAL = np.resize([-2.0, -0.5, -0.0, 0.0, 0.5, 0.7, -0.2, np.nan, np.inf, -np.inf], 64)
ROWS = np.array([[0.0, 1.0], [0.0, 1.0], [2.0, 3.0], [1.0, -1.0], [1.5, 3.0]])   # ties
A, P, N = (RNG.standard_normal((6, 3)) for _ in range(3))


def _cosine_distance(lib):
    return lambda u, v: 1 - lib.nn.functional.cosine_similarity(u, v)


# name: (call(lib, functional, *tensors), arrays; every float array gets a gradient)
CASES = {
    "softshrink": (lambda L, f, x: f.softshrink(x), [X]),
    "softshrink 1.2": (lambda L, f, x: f.softshrink(x, 1.2), [X]),
    "softshrink 0": (lambda L, f, x: f.softshrink(x, 0), [X]),
    "softshrink special": (lambda L, f, x: f.softshrink(x), [SPECIAL]),
    "hardshrink": (lambda L, f, x: f.hardshrink(x), [X]),
    "hardshrink 1.2": (lambda L, f, x: f.hardshrink(x, 1.2), [X]),
    "hardshrink -1": (lambda L, f, x: f.hardshrink(x, -1.0), [X]),
    "hardshrink inf": (lambda L, f, x: f.hardshrink(x, float("inf")), [SPECIAL]),
    "hardshrink special": (lambda L, f, x: f.hardshrink(x), [SPECIAL]),
    "rrelu eval": (lambda L, f, x: f.rrelu(x), [X]),
    "rrelu eval bounds": (lambda L, f, x: f.rrelu(x, 0.1, 0.6), [X]),
    "rrelu eval special": (lambda L, f, x: f.rrelu(x), [SPECIAL]),
    "rrelu training, equal bounds": (lambda L, f, x: f.rrelu(x, 0.2, 0.2, True), [X]),
    "rrelu_ eval": (lambda L, f, x: f.rrelu_(x * 1, 0.1, 0.3), [X]),
    "threshold_": (lambda L, f, x: f.threshold_(x * 1, 0.1, 20.0), [X]),
    "selu_": (lambda L, f, x: f.selu_(x * 1), [X]),
    "celu_": (lambda L, f, x: f.celu_(x * 1, 1.5), [X]),
    "alpha_dropout eval": (lambda L, f, x: f.alpha_dropout(x, 0.5), [X]),
    "alpha_dropout p=0": (lambda L, f, x: f.alpha_dropout(x, 0.0, True), [X]),
    "alpha_dropout p=1": (lambda L, f, x: f.alpha_dropout(x, 1.0, True), [X]),
    "alpha_dropout p=1 in place": (lambda L, f, x: f.alpha_dropout(x * 1, 1.0, True, True), [X]),
    "feature_alpha_dropout p=1": (lambda L, f, x: f.feature_alpha_dropout(x, 1.0, True), [X]),
    "feature_alpha_dropout 1-d p=1": (lambda L, f, x: f.feature_alpha_dropout(x, 1.0, True),
                                      [X[0, 0]]),
    "channel_shuffle 2": (lambda L, f, x: f.channel_shuffle(x.reshape(2, 6, 5), 2), [X]),
    "channel_shuffle 3, 4-d": (lambda L, f, x: f.channel_shuffle(x.reshape(1, 6, 2, 5), 3), [X]),
    "channel_shuffle 1": (lambda L, f, x: f.channel_shuffle(x, 1), [X]),
    "channel_shuffle C": (lambda L, f, x: f.channel_shuffle(x, 4), [X]),
    "softmax2d": (lambda L, f, x: L.nn.Softmax2d()(x), [X]),
    "softmax2d 4-d": (lambda L, f, x: L.nn.Softmax2d()(x.reshape(1, 3, 4, 5)), [X]),
    "triplet": (lambda L, f, a, p, n: f.triplet_margin_with_distance_loss(a, p, n), [A, P, N]),
    "triplet swap, sum": (lambda L, f, a, p, n: f.triplet_margin_with_distance_loss(
        a, p, n, swap=True, margin=2.0, reduction="sum"), [A, P, N]),
    "triplet cosine, none": (lambda L, f, a, p, n: f.triplet_margin_with_distance_loss(
        a, p, n, distance_function=_cosine_distance(L), reduction="none"), [A, P, N]),
    "triplet 1-d": (lambda L, f, a, p, n: f.triplet_margin_with_distance_loss(a[0], p[0], n[0]),
                    [A, P, N]),
    "triplet module": (lambda L, f, a, p, n: L.nn.TripletMarginWithDistanceLoss(
        distance_function=L.nn.PairwiseDistance(p=1), swap=True)(a, p, n), [A, P, N]),
}
for _p in (0, 0.5, 1, 1.5, 2, 3, np.inf):
    CASES[f"pdist p={_p}"] = (lambda L, f, x, p=_p: f.pdist(x, p), [X[0]])
    CASES[f"pdist p={_p}, ties"] = (lambda L, f, x, p=_p: f.pdist(x, p), [ROWS])
CASES["pdist default"] = (lambda L, f, x: f.pdist(x), [X[1]])
CASES["pdist one row"] = (lambda L, f, x: f.pdist(x), [X[1, :1]])
CASES["pdist no columns"] = (lambda L, f, x: f.pdist(x), [X[1, :, :0]])


def _run(lib, fns, case, dtype):
    call, arrays = CASES[case]
    inputs = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    return inputs, call(lib, fns, *inputs)


def _same_dtype(mine, theirs):
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_value_gradient_and_dtype_as_torch(case, dtype):
    mine_in, mine = _run(mg, F, case, dtype)
    their_in, theirs = _run(torch, TF, case, dtype)
    _same_dtype(mine, theirs)
    assert tuple(mine.shape) == tuple(theirs.shape)
    tol = 2e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                               atol=tol)
    weights = RNG.standard_normal(tuple(theirs.shape)).astype(dtype)
    (mine * mg.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for a, b in zip(mine_in, their_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


SECOND_ORDER = ["softshrink", "hardshrink 1.2", "rrelu eval", "rrelu training, equal bounds",
                "threshold_", "selu_", "celu_", "channel_shuffle 2", "softmax2d",
                "triplet swap, sum", "triplet cosine, none", "alpha_dropout p=1"]


@pytest.mark.parametrize("case", SECOND_ORDER)
def test_second_order_as_torch(case):
    """The gradient of <grad, v> with respect to the input and to the output weights."""
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        inputs, out = _run(lib, fns, case, np.float64)
        weights = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)),
                             requires_grad=True)
        grads = lib.autograd.grad((out * weights).sum(), inputs, create_graph=True)
        v = [lib.tensor(np.random.default_rng(2).standard_normal(tuple(g.shape))) for g in grads]
        total = sum((g * w).sum() for g, w in zip(grads, v))
        second = lib.autograd.grad(total, inputs + [weights], allow_unused=True,
                                   materialize_grads=True)
        results.append([s.detach().numpy() for s in second])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)


def _seeded(fn):
    """``fn`` drawing the same random numbers on every call (for gradcheck)."""
    def call(*args):
        mg.manual_seed(5)
        return fn(*args)
    return call


GRADCHECKED = {
    "softshrink": lambda x: F.softshrink(x, 0.3),
    "hardshrink": lambda x: F.hardshrink(x, 0.3),
    "rrelu eval": lambda x: F.rrelu(x),
    "rrelu training": _seeded(lambda x: F.rrelu(x, 0.1, 0.5, training=True)),
    "alpha_dropout": _seeded(lambda x: F.alpha_dropout(x, 0.3, True)),
    "feature_alpha_dropout": _seeded(lambda x: F.feature_alpha_dropout(x, 0.3, True)),
    "gumbel_softmax": _seeded(lambda x: F.gumbel_softmax(x, tau=0.7)),
    "channel_shuffle": lambda x: F.channel_shuffle(x.reshape(1, 4, 6), 2),
    "softmax2d": lambda x: mg.nn.Softmax2d()(x.reshape(2, 2, 6)),
    "celu_": lambda x: F.celu_(x * 1, 0.7),
    "triplet": lambda x: F.triplet_margin_with_distance_loss(x[:2], x[2:], x[1:3], swap=True),
}


@pytest.mark.parametrize("case", sorted(GRADCHECKED))
def test_first_and_second_order_pass_gradcheck(case):
    x = mg.tensor(RNG.standard_normal((4, 6)) + 0.05, requires_grad=True)   # off the kinks
    assert gradcheck(GRADCHECKED[case], (x,))
    assert gradgradcheck(GRADCHECKED[case], (x,))


@pytest.mark.parametrize("p", [0.5, 1, 1.5, 2, 3, np.inf])
def test_pdist_first_and_second_order_pass_gradcheck(p):
    """torch's pdist has no second derivative ("the derivative for '_pdist_backward' is not
    implemented"); minigrad's, a composition, is checked against finite differences
    (docs/divergences.md, pdist-second-order)."""
    x = mg.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    assert gradcheck(lambda t: F.pdist(t, p), (x,))
    assert gradgradcheck(lambda t: F.pdist(t, p), (x,))


def _leaf(L):
    return L.ones(3, requires_grad=True)


BAD = {
    "softshrink negative": lambda L, f: f.softshrink(L.tensor(X), -1.0),
    "softshrink negative, float32": lambda L, f: f.softshrink(L.tensor(X).float(), -0.25),
    "softshrink nan": lambda L, f: f.softshrink(L.tensor(X), float("nan")),
    "softshrink inf": lambda L, f: f.softshrink(L.tensor(X), float("inf")),
    "softshrink over float32's range": lambda L, f: f.softshrink(L.tensor(X).float(), 1e39),
    "softshrink int": lambda L, f: f.softshrink(L.tensor([1, 2])),
    "softshrink int, negative": lambda L, f: f.softshrink(L.tensor([1, 2]), -1),
    "softshrink bool": lambda L, f: f.softshrink(L.tensor([True])),
    "softshrink list": lambda L, f: f.softshrink([1.0]),
    "softshrink str lambd": lambda L, f: f.softshrink(L.tensor(X), "a"),
    "hardshrink int": lambda L, f: f.hardshrink(L.tensor([1, 2])),
    "hardshrink str lambd": lambda L, f: f.hardshrink(L.tensor(X), "a"),
    "threshold_ bool": lambda L, f: f.threshold_(L.tensor([True]), 1, 2),
    "threshold_ list": lambda L, f: f.threshold_([1.0], 1, 2),
    "channel_shuffle list": lambda L, f: f.channel_shuffle([1.0], 2),
    "pdist list": lambda L, f: f.pdist([[1.0]]),
    "selu_ int": lambda L, f: f.selu_(L.tensor([1, 2])),
    "celu_ alpha 0": lambda L, f: f.celu_(L.tensor(X), 0.0),
    "celu_ int, alpha 0": lambda L, f: f.celu_(L.tensor([1, 2]), 0.0),
    "celu_ int": lambda L, f: f.celu_(L.tensor([1, 2])),
    "rrelu bounds": lambda L, f: f.rrelu(L.tensor(X), 0.5, 0.2),
    "rrelu bounds, training": lambda L, f: f.rrelu(L.tensor(X), 0.5, 0.2, True),
    "rrelu bounds, int": lambda L, f: f.rrelu(L.tensor([1, -2]), 0.5, 0.2, True),
    "rrelu bounds, empty": lambda L, f: f.rrelu(L.zeros(0), 0.5, 0.2),
    "rrelu int": lambda L, f: f.rrelu(L.tensor([1, -2])),
    "rrelu list, bounds": lambda L, f: f.rrelu([1.0], 0.5, 0.2),
    "rrelu int, training": lambda L, f: f.rrelu(L.tensor([1, -2]), training=True),
    "rrelu bool, training": lambda L, f: f.rrelu(L.tensor([True]), training=True),
    "alpha_dropout p": lambda L, f: f.alpha_dropout(L.tensor(X), 1.5, True),
    "alpha_dropout negative p": lambda L, f: f.alpha_dropout(L.tensor(X), -0.5),
    "alpha_dropout int": lambda L, f: f.alpha_dropout(L.tensor([1, 2]), 0.5, True),
    "alpha_dropout int32": lambda L, f: f.alpha_dropout(L.tensor([1, 2]).int(), 0.5, True),
    "alpha_dropout uint8": lambda L, f: f.alpha_dropout(L.tensor([1, 2]).byte(), 0.5, True),
    "alpha_dropout bool": lambda L, f: f.alpha_dropout(L.tensor([True]), 0.5, True),
    "alpha_dropout list": lambda L, f: f.alpha_dropout([1.0], 0.5, True),
    "feature_alpha_dropout 1-d": lambda L, f: f.feature_alpha_dropout(L.ones(3), 0.5, True),
    "feature_alpha_dropout 0-d": lambda L, f: f.feature_alpha_dropout(L.tensor(1.0), 0.5, True),
    "feature_alpha_dropout int 1-d": lambda L, f: f.feature_alpha_dropout(L.tensor([1, 2]), 0.5,
                                                                          True),
    "feature_alpha_dropout int": lambda L, f: f.feature_alpha_dropout(L.tensor([[1, 2]]), 0.5,
                                                                      True),
    "channel_shuffle 2-d": lambda L, f: f.channel_shuffle(L.ones(4, 2), 2),
    "channel_shuffle 1-d": lambda L, f: f.channel_shuffle(L.ones(8), 2),
    "channel_shuffle 2-d, groups 0": lambda L, f: f.channel_shuffle(L.ones(4, 2), 0),
    "channel_shuffle groups 0": lambda L, f: f.channel_shuffle(L.ones(1, 4, 2), 0),
    "channel_shuffle groups -2": lambda L, f: f.channel_shuffle(L.ones(1, 4, 2), -2),
    "channel_shuffle not dividing": lambda L, f: f.channel_shuffle(L.ones(1, 4, 2), 3),
    "channel_shuffle more groups": lambda L, f: f.channel_shuffle(L.ones(2, 6, 1), 7),
    "channel_shuffle float groups": lambda L, f: f.channel_shuffle(L.ones(1, 4, 2), 2.0),
    "pdist 1-d": lambda L, f: f.pdist(L.ones(3)),
    "pdist 3-d": lambda L, f: f.pdist(L.ones(3, 2, 1)),
    "pdist int": lambda L, f: f.pdist(L.tensor([[1, 2], [3, 4]])),
    "pdist negative p": lambda L, f: f.pdist(L.ones(3, 2), -1),
    "pdist nan p": lambda L, f: f.pdist(L.ones(3, 2), float("nan")),
    "pdist int, negative p": lambda L, f: f.pdist(L.tensor([[1, 2], [3, 4]]), -1),
    "pdist 1-d, negative p": lambda L, f: f.pdist(L.ones(3), -1),
    "gumbel_softmax int": lambda L, f: f.gumbel_softmax(L.tensor([1, 2])),
    "gumbel_softmax list": lambda L, f: f.gumbel_softmax([1.0, 2.0]),
    "gumbel_softmax dim": lambda L, f: f.gumbel_softmax(L.ones(2), dim=1),
    "gumbel_softmax dim, 0-d": lambda L, f: f.gumbel_softmax(L.tensor(1.0), dim=2),
    "gumbel_softmax hard, empty dim": lambda L, f: f.gumbel_softmax(L.ones(2, 0), hard=True),
    "triplet reduction": lambda L, f: f.triplet_margin_with_distance_loss(
        L.tensor(A), L.tensor(P), L.tensor(N), reduction="batchmean"),
    "triplet margin": lambda L, f: f.triplet_margin_with_distance_loss(
        L.tensor(A), L.tensor(P), L.tensor(N), margin=0),
    "triplet margin and reduction": lambda L, f: f.triplet_margin_with_distance_loss(
        L.tensor(A), L.tensor(P), L.tensor(N), margin=-1, reduction="bad"),
    "triplet dims": lambda L, f: f.triplet_margin_with_distance_loss(
        L.tensor(A), L.tensor(P), L.tensor(N[0])),
    "triplet positional margin": lambda L, f: f.triplet_margin_with_distance_loss(
        L.tensor(A), L.tensor(P), L.tensor(N), 1.0),
    "TripletMarginWithDistanceLoss margin": lambda L, f: L.nn.TripletMarginWithDistanceLoss(
        margin=0),
    "Softmax2d 2-d": lambda L, f: L.nn.Softmax2d()(L.ones(2, 3)),
    "Softmax2d 5-d": lambda L, f: L.nn.Softmax2d()(L.ones(1, 2, 3, 4, 5)),
    "AlphaDropout p": lambda L, f: L.nn.AlphaDropout(1.5),
    "FeatureAlphaDropout 1-d": lambda L, f: L.nn.FeatureAlphaDropout()(L.ones(3)),
    "embedding max_norm, 3-d weight": lambda L, f: f.embedding(L.tensor([1]), L.ones(5, 3, 2),
                                                               max_norm=1.0),
    "embedding max_norm, 1-d weight": lambda L, f: f.embedding(L.tensor([1]), L.ones(5),
                                                               max_norm=1.0),
    "embedding max_norm, float indices": lambda L, f: f.embedding(L.tensor([1.0]), L.ones(5, 3),
                                                                  max_norm=1.0),
    "embedding max_norm, index 7": lambda L, f: f.embedding(L.tensor([1, 7]), L.ones(5, 3),
                                                            max_norm=1.0),
    "embedding max_norm, index -7": lambda L, f: f.embedding(L.tensor([-7, 9]), L.ones(5, 3),
                                                             max_norm=1.0),
    "embedding max_norm, int weight": lambda L, f: f.embedding(
        L.tensor([1]), L.ones(5, 3, dtype=L.int32), max_norm=1.0),
    "embedding padding_idx": lambda L, f: f.embedding(L.tensor([1]), L.ones(5, 3), padding_idx=5),
    "embedding padding_idx -6": lambda L, f: f.embedding(L.tensor([1]), L.ones(5, 3),
                                                         padding_idx=-6, max_norm=1.0),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_torchs_error(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = raised(lambda: BAD[case](mg, F))
        theirs = raised(lambda: BAD[case](torch, TF))
    assert theirs[0] is not None
    assert mine == theirs


LEAF_IN_PLACE = {
    "threshold_": lambda L, f: f.threshold_(_leaf(L), 0.1, 2.0),
    "selu_": lambda L, f: f.selu_(_leaf(L)),
    "celu_": lambda L, f: f.celu_(_leaf(L)),
    "rrelu_": lambda L, f: f.rrelu_(_leaf(L)),
    "rrelu_ training": lambda L, f: f.rrelu_(_leaf(L), training=True),
    "alpha_dropout in place": lambda L, f: f.alpha_dropout(_leaf(L), 0.5, True, True),
    "alpha_dropout p=1 in place": lambda L, f: f.alpha_dropout(_leaf(L), 1.0, True, True),
}


@pytest.mark.parametrize("case", sorted(LEAF_IN_PLACE))
def test_in_place_on_a_leaf_that_requires_grad_raises_torchs_error(case):
    """(minigrad's message goes on with a hint: how to update parameters)"""
    mine = raised(lambda: LEAF_IN_PLACE[case](mg, F))
    theirs = raised(lambda: LEAF_IN_PLACE[case](torch, TF))
    assert mine[0] is theirs[0] is RuntimeError
    assert mine[1].startswith(theirs[1])


# ------------------------------------------------------------------ modules
def _modules(L):
    return [L.nn.Softshrink(), L.nn.Softshrink(1.5), L.nn.Hardshrink(0.3), L.nn.RReLU(),
            L.nn.RReLU(0.1, 0.3, inplace=True), L.nn.AlphaDropout(),
            L.nn.AlphaDropout(0.2, inplace=True), L.nn.FeatureAlphaDropout(0.3),
            L.nn.Softmax2d(), L.nn.ChannelShuffle(3), L.nn.TripletMarginWithDistanceLoss(),
            L.nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: a - b,
                                               margin=2.0, swap=True, reduction="sum"),
            L.nn.TripletMarginWithDistanceLoss(distance_function=L.nn.CosineSimilarity())]


def test_the_modules_repr_and_state_as_torchs():
    for mine, theirs in zip(_modules(mg), _modules(torch)):
        assert repr(mine) == repr(theirs)
        assert list(mine.state_dict()) == list(theirs.state_dict())
        assert [n for n, _ in mine.named_modules()] == [n for n, _ in theirs.named_modules()]


def test_the_modules_compute_as_torchs():
    x = X.reshape(1, 6, 2, 5)
    pairs = [(mg.nn.Softshrink(0.3), torch.nn.Softshrink(0.3)),
             (mg.nn.Hardshrink(0.3), torch.nn.Hardshrink(0.3)),
             (mg.nn.RReLU(0.1, 0.4).eval(), torch.nn.RReLU(0.1, 0.4).eval()),
             (mg.nn.AlphaDropout().eval(), torch.nn.AlphaDropout().eval()),
             (mg.nn.FeatureAlphaDropout().eval(), torch.nn.FeatureAlphaDropout().eval()),
             (mg.nn.ChannelShuffle(3), torch.nn.ChannelShuffle(3)),
             (mg.nn.Softmax2d(), torch.nn.Softmax2d())]
    for mine, theirs in pairs:
        np.testing.assert_allclose(mine(mg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(),
                                   rtol=1e-12, atol=1e-12)
    loss = mg.nn.TripletMarginWithDistanceLoss(reduction="none")
    expected = torch.nn.TripletMarginWithDistanceLoss(reduction="none")
    np.testing.assert_allclose(loss(*map(mg.tensor, (A, P, N))).numpy(),
                               expected(*map(torch.tensor, (A, P, N))).numpy(), rtol=1e-12)


def test_eval_mode_and_p_0_return_the_input_itself_as_torch():
    x = mg.tensor(X)
    assert F.alpha_dropout(x, 0.5) is x
    assert F.alpha_dropout(x, 0.0, True) is x
    assert F.feature_alpha_dropout(mg.ones(3), 0.5) is not None   # no dim check when not training
    assert mg.nn.AlphaDropout().eval()(x) is x
    empty = mg.zeros(0, 3)
    assert F.feature_alpha_dropout(empty, 0.5, True) is empty


def test_in_place_variants_write_into_their_input_as_torch():
    for name, args in (("threshold_", (0.1, 20.0)), ("selu_", ()), ("celu_", (0.5,)),
                       ("rrelu_", (0.1, 0.3))):
        mine, theirs = mg.tensor(X), torch.tensor(X)
        assert getattr(F, name)(mine, *args) is mine
        getattr(TF, name)(theirs, *args)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
    x = mg.tensor(X)
    assert F.rrelu(x, training=True, inplace=True) is x
    assert F.alpha_dropout(x, 0.5, True, inplace=True) is x
    assert F.feature_alpha_dropout(x, 0.5, True, inplace=True) is x


def test_channel_shuffle_returns_a_new_tensor_as_torch():
    x = mg.tensor(X)
    for groups in (1, 4):
        out = F.channel_shuffle(x, groups)
        out.add_(1)
        np.testing.assert_array_equal(x.numpy(), X)


# ------------------------------------------------------------------ compiled
COMPILED = {
    "softshrink": lambda x: F.softshrink(x, 0.4),
    "hardshrink": lambda x: F.hardshrink(x, 0.4),
    "rrelu eval": lambda x: F.rrelu(x, 0.1, 0.3),
    "alpha_dropout eval": lambda x: F.alpha_dropout(x * 2, 0.5),
    "channel_shuffle": lambda x: F.channel_shuffle(x.reshape(2, 6, 5), 3),
    "softmax2d": lambda x: mg.nn.Softmax2d()(x),
    "pdist": lambda x: F.pdist(x[0]),
    "pdist p=1": lambda x: F.pdist(x[0], 1),
    "pdist p=0": lambda x: F.pdist(x[0], 0),
    "pdist p=0.5": lambda x: F.pdist(x[0], 0.5),
    "pdist p=inf": lambda x: F.pdist(x[0], float("inf")),
    "triplet": lambda x: F.triplet_margin_with_distance_loss(x[0], x[1], x[2], swap=True),
}


def _compiled_input(seed):
    """A new input for each seed, with entries at the kinks: 0, +-0.4 and ties."""
    x = np.random.default_rng(seed).standard_normal((3, 4, 5))
    x.flat[::7] = [0.0, 0.4, -0.4][seed % 3]
    x[0, seed % 4] = x[0, (seed + 1) % 4]
    return x


def _value_and_gradient(fn, array):
    x = mg.tensor(array, requires_grad=True)
    out = fn(x)
    (out * mg.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))).sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("case", sorted(COMPILED))
def test_compiled_follows_each_calls_data_as_eager(case):
    fn = COMPILED[case]
    compiled = mg.compile(fn, fullgraph=True)
    for seed in (1, 2):
        got, got_grad = _value_and_gradient(compiled, _compiled_input(seed))
        want, want_grad = _value_and_gradient(fn, _compiled_input(seed))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12, atol=1e-12)


def test_compiled_embedding_renormalizes_on_every_call():
    compiled = mg.compile(lambda i, w: F.embedding(i, w, max_norm=1.0))
    for rows in ([0, 1], [2, 3]):
        weight = mg.tensor(np.full((4, 3), 2.0))
        out = compiled(mg.tensor(rows), weight)
        norms = np.linalg.norm(weight.numpy(), axis=1)
        np.testing.assert_allclose(norms[rows], 1.0, rtol=1e-6)
        np.testing.assert_allclose(np.linalg.norm(out.numpy(), axis=1), 1.0, rtol=1e-6)


# ------------------------------------------------------------------ random ones
RANDOM = {
    "rrelu training": lambda x: F.rrelu(x, training=True),
    "alpha_dropout": lambda x: F.alpha_dropout(x, 0.5, True),
    "feature_alpha_dropout": lambda x: F.feature_alpha_dropout(x, 0.5, True),
    "gumbel_softmax": lambda x: F.gumbel_softmax(x),
    "gumbel_softmax hard": lambda x: F.gumbel_softmax(x, hard=True),
}


@pytest.mark.parametrize("case", sorted(RANDOM))
def test_compiled_random_ones_draw_anew_on_every_call_as_eager(case):
    """A draw is a graph break: the compiled function draws from minigrad's generator on
    each call, the numbers eager mode draws after the same seed."""
    compiled = mg.compile(RANDOM[case])
    x = mg.tensor(-np.abs(X), requires_grad=True)
    mg.manual_seed(11)
    draws = [compiled(x) for _ in range(3)]
    mg.manual_seed(11)
    eager = [RANDOM[case](x) for _ in range(3)]
    for got, want in zip(draws, eager):
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert not np.array_equal(draws[1].detach().numpy(), draws[2].detach().numpy())

def test_rrelu_training_draws_slopes_within_its_bounds():
    mg.manual_seed(0)
    x = mg.tensor(RNG.standard_normal(10000), requires_grad=True)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    out.sum().backward()
    data, values, grad = x.detach().numpy(), out.detach().numpy(), x.grad.numpy()
    negative = data < 0
    slopes = values[negative] / data[negative]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and slopes.std() > 0.05   # uniform, not constant
    np.testing.assert_array_equal(values[~negative], data[~negative])
    np.testing.assert_allclose(grad[negative], slopes, rtol=1e-12)
    np.testing.assert_array_equal(grad[~negative], 1.0)


def test_rrelu_module_is_random_in_training_and_the_mean_slope_in_eval():
    module = mg.nn.RReLU(0.1, 0.3)
    x = mg.tensor(-np.ones(1000))
    mg.manual_seed(3)
    first = module(x).numpy()
    mg.manual_seed(3)
    np.testing.assert_array_equal(module(x).numpy(), first)   # the same seed, the same slopes
    assert len(np.unique(first)) > 900
    np.testing.assert_allclose(module.eval()(x).numpy(), -0.2)


def _alpha_values(p):
    """(kept scale, kept shift, dropped value) of alpha dropout with probability p."""
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    return a, alpha * a * p, alpha * a * (p - 1)


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_alpha_dropout_keeps_a_standard_normal_standard(p):
    mg.manual_seed(0)
    x = mg.tensor(RNG.standard_normal(200000), requires_grad=True)
    out = F.alpha_dropout(x, p, training=True)
    out.sum().backward()
    values, data = out.detach().numpy(), x.detach().numpy()
    assert abs(values.mean()) < 0.01 and abs(values.std() - 1) < 0.01
    scale, shift, dropped = _alpha_values(p)
    kept = x.grad.numpy() != 0
    assert abs(1 - kept.mean() - p) < 0.005
    np.testing.assert_allclose(values[kept], data[kept] * scale + shift, rtol=1e-12)
    np.testing.assert_allclose(values[~kept], dropped, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy()[kept], scale, rtol=1e-12)


def test_alpha_dropout_float32_stays_float32_with_torchs_two_values():
    mg.manual_seed(0)
    out = F.alpha_dropout(mg.ones(1000), 0.5, training=True)
    torch.manual_seed(0)
    theirs = TF.alpha_dropout(torch.ones(1000), 0.5, training=True)
    assert out.dtype == mg.float32
    np.testing.assert_array_equal(np.unique(out.numpy()), np.unique(theirs.numpy()))


def test_feature_alpha_dropout_drops_whole_channels():
    mg.manual_seed(1)
    x = mg.tensor(RNG.standard_normal((50, 40, 3, 2)))
    out = F.feature_alpha_dropout(x, 0.3, training=True).numpy()
    scale, shift, dropped = _alpha_values(0.3)
    channels = out.reshape(50, 40, 6)
    dropped_channels = np.isclose(channels, dropped, rtol=1e-12).all(axis=2)
    kept = np.isclose(channels, x.numpy().reshape(50, 40, 6) * scale + shift, rtol=1e-12)
    assert np.all(dropped_channels | kept.all(axis=2))
    assert abs(dropped_channels.mean() - 0.3) < 0.05


def test_alpha_dropouts_repeat_with_the_seed_and_differ_without():
    for fn in (F.alpha_dropout, F.feature_alpha_dropout):
        mg.manual_seed(7)
        first = fn(mg.ones(20, 30), 0.5, True).numpy()
        second = fn(mg.ones(20, 30), 0.5, True).numpy()
        mg.manual_seed(7)
        np.testing.assert_array_equal(fn(mg.ones(20, 30), 0.5, True).numpy(), first)
        assert not np.array_equal(first, second)


def test_gumbel_softmax_soft_and_hard_samples():
    logits = mg.tensor(RNG.standard_normal((200, 5)), requires_grad=True)
    mg.manual_seed(2)
    soft = F.gumbel_softmax(logits, tau=0.5)
    mg.manual_seed(2)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    np.testing.assert_allclose(soft.detach().numpy().sum(1), 1.0, rtol=1e-12)
    assert np.all(hard.detach().numpy().sum(1) == 1) and set(np.unique(hard.detach().numpy())) \
        == {0.0, 1.0}
    np.testing.assert_array_equal(hard.detach().numpy().argmax(1), soft.detach().numpy().argmax(1))
    weights = mg.tensor(RNG.standard_normal((200, 5)))
    soft_grad = mg.autograd.grad((soft * weights).sum(), logits)[0]
    hard_grad = mg.autograd.grad((hard * weights).sum(), logits)[0]
    np.testing.assert_allclose(hard_grad.numpy(), soft_grad.numpy(), rtol=1e-12, atol=1e-14)


def test_gumbel_softmax_samples_the_softmax_of_its_logits():
    mg.manual_seed(4)
    logits = np.log([0.1, 0.2, 0.3, 0.4])
    hard = F.gumbel_softmax(mg.tensor(np.tile(logits, (40000, 1))), hard=True).numpy()
    np.testing.assert_allclose(hard.mean(0), [0.1, 0.2, 0.3, 0.4], atol=0.01)


def test_gumbel_softmax_warns_of_eps_and_keeps_the_dtype():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        out = F.gumbel_softmax(mg.zeros(2, 3), eps=1e-3)
    assert out.dtype == mg.float32
    assert F.gumbel_softmax(mg.zeros(2, 3, dtype=mg.float64), hard=True, dim=0).dtype == mg.float64
    assert F.gumbel_softmax(mg.tensor(1.0), hard=True).item() == 1.0


# ------------------------------------------------------------------ embedding max_norm
WEIGHT = RNG.standard_normal((6, 3)) * 2
INDICES = np.array([[0, 2, 2], [5, 0, 1]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, np.inf, 0.0])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_max_norm_renormalizes_the_rows_it_picks_as_torch(norm_type, dtype,
                                                                    padding_idx):
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        weight = lib.tensor(WEIGHT.astype(dtype), requires_grad=True)
        version = weight._version
        out = fns.embedding(lib.tensor(INDICES), weight, padding_idx, max_norm=1.5,
                            norm_type=norm_type)
        (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)))).sum().backward()
        results.append((out.detach().numpy(), weight.detach().numpy(), weight.grad.numpy(),
                        weight._version - version))
    tol = 1e-6 if dtype == np.float32 else 1e-12
    for mine, theirs in zip(*results[:2]):
        np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol)
    assert results[0][1].dtype == dtype


def test_embedding_module_with_max_norm_as_torchs():
    mine = mg.nn.Embedding(6, 3, max_norm=1.0, padding_idx=0)
    theirs = torch.nn.Embedding(6, 3, max_norm=1.0, padding_idx=0)
    mine.load_state_dict({"weight": mg.tensor(WEIGHT)})
    theirs.load_state_dict({"weight": torch.tensor(WEIGHT)})
    assert repr(mine) == repr(theirs)
    mine(mg.tensor(INDICES)).sum().backward()
    theirs(torch.tensor(INDICES)).sum().backward()
    np.testing.assert_allclose(mine.weight.detach().numpy(), theirs.weight.detach().numpy(),
                               rtol=1e-6)   # (float32 weights)
    np.testing.assert_allclose(mine.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6)


def test_embedding_max_norm_changes_the_weight_in_place_as_torch():
    """A weight saved for backward before the renorm is stale after it, as in torch (the
    write happens even where no row is renormalized); rows before an out-of-range index
    are renormalized before the error."""
    for lib, fns in ((mg, F), (torch, TF)):
        weight = lib.tensor(WEIGHT * 0.01, requires_grad=True)
        square = (weight * weight).sum()
        fns.embedding(lib.tensor([1]), weight, max_norm=1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            square.backward()
    weights = []
    for lib, fns in ((mg, F), (torch, TF)):
        weight = lib.tensor(WEIGHT)
        with pytest.raises(IndexError):
            fns.embedding(lib.tensor([4, 1, 9, 2]), weight, max_norm=1.0)
        weights.append(weight.numpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-12)


@pytest.mark.parametrize("name", ["dropout", "dropout1d", "dropout2d", "dropout3d"])
def test_dropout_with_p_0_returns_the_input_itself_as_torch(name):
    """No draw and no node (so a compiled model with dropout=0.0 has no graph break)."""
    shape = {"dropout": (2, 3), "dropout1d": (2, 3, 4), "dropout2d": (2, 3, 4, 5),
             "dropout3d": (2, 3, 4, 5, 6)}[name]
    theirs = torch.ones(shape, requires_grad=True)
    assert getattr(torch.nn.functional, name)(theirs, 0.0, True) is theirs
    mine = mg.ones(shape, requires_grad=True)
    assert getattr(F, name)(mine, 0.0, True) is mine
    whole = mg.tensor([1, 2, 3])   # an integral tensor too: nothing to scale
    assert F.dropout(whole, 0.0, True) is whole
