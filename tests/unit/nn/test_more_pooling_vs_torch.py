"""adaptive_max_pool1d/2d, lp_pool1d/2d/3d, local_response_norm, unfold/fold,
max_unpool1d/2d, the 3-d pools and conv3d against torch: values, indices, dtypes, first and
second order gradients, torch's exceptions in torch's order of checks, gradcheck and
gradgradcheck, the modules' reprs and state_dict keys, and minigrad.compile on new data."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck
from tests.unit.nn._torch_pair import compare
from tests.torch_spec import needs_spec_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(0)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _pooled(fn, x, *args):
    """(values, indices) of a torch max pool with return_indices, as numpy arrays."""
    values, indices = fn(torch.tensor(x), *args, return_indices=True)
    return values.numpy(), indices.numpy()


V2, I2 = _pooled(TF.max_pool2d, _x(2, 3, 6, 6), 2)
V2S, I2S = _pooled(TF.max_pool2d, _x(3, 5, 7, seed=1), 3, 2, 1)
V1, I1 = _pooled(TF.max_pool1d, _x(2, 3, 9), 3, 2)      # overlapping windows: repeats
V1B, I1B = _pooled(TF.max_pool1d, _x(3, 8), 2)            # distinct indices
COLS = TF.unfold(torch.tensor(_x(2, 3, 6, 7)), (2, 3), 2, 1, (1, 2)).numpy()

# name: (function name, inputs (float ones get gradients), keyword arguments)
CASES = {
    "adaptive_max_pool1d": ("adaptive_max_pool1d", [_x(2, 3, 10)], {"output_size": 4}),
    "adaptive_max_pool1d, indices, unbatched": (
        "adaptive_max_pool1d", [_x(3, 7)], {"output_size": [5], "return_indices": True}),
    "adaptive_max_pool1d, larger output": ("adaptive_max_pool1d", [_x(2, 2, 4)],
                                           {"output_size": 7, "return_indices": True}),
    "adaptive_max_pool2d": ("adaptive_max_pool2d", [_x(2, 3, 7, 9)],
                            {"output_size": (3, 4), "return_indices": True}),
    "adaptive_max_pool2d, None, unbatched": ("adaptive_max_pool2d", [_x(3, 5, 6)],
                                             {"output_size": (None, 4), "return_indices": True}),
    "adaptive_max_pool2d, int, larger": ("adaptive_max_pool2d", [_x(1, 2, 3, 4)],
                                         {"output_size": 5, "return_indices": True}),
    "adaptive_max_pool2d, empty batch": ("adaptive_max_pool2d", [_x(0, 2, 3, 4)],
                                         {"output_size": 2, "return_indices": True}),
    "lp_pool1d": ("lp_pool1d", [_x(2, 3, 9)], {"norm_type": 2, "kernel_size": 3}),
    "lp_pool1d, p=3, stride, ceil": ("lp_pool1d", [_x(3, 8)],
                                     {"norm_type": 3, "kernel_size": 3, "stride": 2,
                                      "ceil_mode": True}),
    "lp_pool2d": ("lp_pool2d", [_x(2, 3, 6, 7)], {"norm_type": 2.0, "kernel_size": (2, 3)}),
    "lp_pool2d, p=1.5 of |x|, ceil": ("lp_pool2d", [np.abs(_x(3, 7, 7)) + 0.1],
                                      {"norm_type": 1.5, "kernel_size": 3, "stride": 2,
                                       "ceil_mode": True}),
    "lp_pool2d, inf": ("lp_pool2d", [_x(2, 2, 6, 6)],
                       {"norm_type": float("inf"), "kernel_size": 2}),
    "lp_pool3d": ("lp_pool3d", [_x(1, 2, 4, 5, 4)], {"norm_type": 2, "kernel_size": 2}),
    "local_response_norm, 3-d": ("local_response_norm", [_x(2, 5, 7)], {"size": 3}),
    "local_response_norm, 4-d": ("local_response_norm", [_x(2, 6, 4, 5)],
                                 {"size": 4, "alpha": 0.1, "beta": 0.6, "k": 2.0}),
    "local_response_norm, 5-d": ("local_response_norm", [_x(2, 4, 3, 3, 2)], {"size": 2}),
    "unfold": ("unfold", [_x(2, 3, 6, 7)], {"kernel_size": 3}),
    "unfold, dilation, padding, stride": ("unfold", [_x(2, 3, 6, 7)],
                                          {"kernel_size": (2, 3), "dilation": 2, "padding": 1,
                                           "stride": (1, 2)}),
    "unfold, unbatched": ("unfold", [_x(2, 5, 5)], {"kernel_size": 2, "stride": 2,
                                                    "padding": (0, 1)}),
    "unfold, empty batch": ("unfold", [_x(0, 2, 4, 4)], {"kernel_size": 2}),
    "fold": ("fold", [COLS], {"output_size": (6, 7), "kernel_size": (2, 3), "dilation": 2,
                              "padding": 1, "stride": (1, 2)}),
    "fold, unbatched": ("fold", [_x(8, 9)], {"output_size": 4, "kernel_size": 2}),
    "fold, stride": ("fold", [_x(2, 12, 8)], {"output_size": (5, 7), "kernel_size": 2,
                                             "stride": 2, "padding": (0, 1)}),
    "max_unpool2d": ("max_unpool2d", [V2, I2], {"kernel_size": 2}),
    "max_unpool2d, output_size": ("max_unpool2d", [V2, I2],
                                  {"kernel_size": 2, "output_size": (7, 7)}),
    "max_unpool2d, unbatched, padding": ("max_unpool2d", [V2S, I2S],
                                         {"kernel_size": 3, "stride": 2, "padding": 1}),
    "max_unpool1d": ("max_unpool1d", [V1, I1], {"kernel_size": 3, "stride": 2}),
    "max_unpool1d, unbatched, output_size": ("max_unpool1d", [V1[0], I1[0]],
                                             {"kernel_size": 3, "stride": 2,
                                              "output_size": [10]}),
    "max_unpool1d, unbatched, kernel 2": ("max_unpool1d", [V1B, I1B], {"kernel_size": 2}),
    "max_pool3d": ("max_pool3d", [_x(2, 2, 4, 5, 4)], {"kernel_size": 2}),
    "max_pool3d, indices, ceil, dilation": (
        "max_pool3d", [_x(2, 5, 6, 5)], {"kernel_size": (3, 2, 2), "stride": (2, 1, 2),
                                         "padding": (1, 0, 1), "dilation": (1, 2, 1),
                                         "ceil_mode": True, "return_indices": True}),
    "avg_pool3d": ("avg_pool3d", [_x(2, 2, 4, 5, 4)], {"kernel_size": 2, "stride": 1}),
    "avg_pool3d, padding, ceil, no pad count": (
        "avg_pool3d", [_x(2, 5, 4, 5)], {"kernel_size": (3, 2, 2), "stride": 2,
                                         "padding": (1, 1, 0), "ceil_mode": True,
                                         "count_include_pad": False}),
    "avg_pool3d, divisor_override": ("avg_pool3d", [_x(1, 2, 4, 4, 4)],
                                     {"kernel_size": 2, "divisor_override": 3}),
    "adaptive_avg_pool3d": ("adaptive_avg_pool3d", [_x(2, 2, 5, 4, 3)],
                            {"output_size": (2, 3, 2)}),
    "adaptive_avg_pool3d, None, unbatched": ("adaptive_avg_pool3d", [_x(2, 4, 5, 3)],
                                             {"output_size": (None, 2, 1)}),
    "conv3d": ("conv3d", [_x(2, 2, 4, 5, 4), _x(4, 2, 2, 3, 2, seed=1), _x(4, seed=2)], {}),
    "conv3d, stride, padding, dilation, groups": (
        "conv3d", [_x(1, 4, 5, 5, 4), _x(2, 2, 2, 2, 2, seed=1)],
        {"stride": (2, 1, 1), "padding": 1, "dilation": (1, 2, 1), "groups": 2}),
    "conv3d, 'same', unbatched": ("conv3d", [_x(2, 4, 4, 3), _x(3, 2, 3, 2, 3, seed=1)],
                                  {"padding": "same"}),
    "conv_transpose3d": ("conv_transpose3d", [_x(1, 2, 3, 2, 3), _x(2, 3, 2, 2, 2, seed=1)],
                         {"stride": 2, "padding": 1, "output_padding": 1}),
}


def _call(lib, fns, name, arrays, kwargs, dtype):
    tensors = [lib.tensor(a.astype(dtype) if a.dtype.kind == "f" else a,
                          requires_grad=a.dtype.kind == "f") for a in arrays]
    out = getattr(fns, name)(*tensors, **kwargs)
    return tensors, out if isinstance(out, tuple) else (out,)


def _numpy(t):
    return t.detach().numpy()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_indices_and_gradients_as_torch(case, dtype):
    if case == "lp_pool2d, inf":
        needs_spec_torch(torch, "lp_pool2d with norm_type inf")
    name, arrays, kwargs = CASES[case]
    mine_in, mine = _call(mg, F, name, arrays, kwargs, dtype)
    their_in, theirs = _call(torch, TF, name, arrays, kwargs, dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-11
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=tol, atol=tol)
    weight = RNG.standard_normal(theirs[0].shape)
    mine_grads = mg.autograd.grad((mine[0] * mg.tensor(weight.astype(dtype))).sum(),
                                  [t for t in mine_in if t.requires_grad], create_graph=True)
    their_grads = torch.autograd.grad((theirs[0] * torch.tensor(weight.astype(dtype))).sum(),
                                      [t for t in their_in if t.requires_grad], create_graph=True)
    for a, b in zip(mine_grads, their_grads):
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=tol, atol=tol)
    # second order: differentiate <grads, u> once more
    us = [RNG.standard_normal(g.shape).astype(dtype) for g in their_grads]
    their_2 = [None] * len(us)
    if any(g.requires_grad for g in their_grads):
        their_2 = torch.autograd.grad(
            sum((g * torch.tensor(u)).sum() for g, u in zip(their_grads, us)),
            [t for t in their_in if t.requires_grad], allow_unused=True)
    if not any(g.requires_grad for g in mine_grads):
        # minigrad's graph ends where the gradient no longer depends on the inputs (max
        # pools, unfold, ...); torch's may go on, to zeros
        assert all(b is None or not b.any() for b in their_2)
        return
    mine_2 = mg.autograd.grad(sum((g * mg.tensor(u)).sum() for g, u in zip(mine_grads, us)),
                              [t for t in mine_in if t.requires_grad], allow_unused=True)
    for a, b in zip(mine_2, their_2):
        if b is None:
            assert a is None or not np.any(_numpy(a))
        else:
            a = np.zeros(b.shape) if a is None else _numpy(a)
            np.testing.assert_allclose(a, _numpy(b), rtol=tol * 10, atol=tol * 10)


def test_adaptive_max_pool_picks_the_first_of_tied_maxima_as_torch():
    x = np.array([[[[1.0, 3.0, 3.0], [3.0, 0.0, 3.0], [2.0, 3.0, 1.0]]]])
    mine = F.adaptive_max_pool2d(mg.tensor(x), 2, return_indices=True)[1]
    theirs = TF.adaptive_max_pool2d(torch.tensor(x), 2, return_indices=True)[1]
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_lp_pool_gradient_is_zero_where_the_window_sums_to_zero_as_torch():
    x = np.zeros((1, 2, 4, 4))
    x[0, 0, :2, :2] = [[1.0, -2.0], [0.5, 3.0]]
    mine = mg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    F.lp_pool2d(mine, 2, 2).sum().backward()
    TF.lp_pool2d(theirs, 2, 2).sum().backward()
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
    assert not np.isnan(mine.grad.numpy()).any()


@pytest.mark.parametrize("case", ["adaptive_max_pool1d", "adaptive_max_pool2d",
                                  "lp_pool1d, p=3, stride, ceil", "lp_pool2d",
                                  "local_response_norm, 3-d", "local_response_norm, 5-d",
                                  "unfold, dilation, padding, stride", "fold, stride",
                                  "max_unpool2d", "max_unpool1d, unbatched, kernel 2",
                                  "max_pool3d", "avg_pool3d, padding, ceil, no pad count",
                                  "adaptive_avg_pool3d"])
def test_gradcheck_and_gradgradcheck(case):
    name, arrays, kwargs = CASES[case]
    kwargs = {k: v for k, v in kwargs.items() if k != "return_indices"}
    small = [a[:1] if a.ndim > 2 and a.shape[0] > 1 else a for a in arrays]
    if name.startswith("lp_pool"):   # positive window sums: x^(1/p) is smooth there
        small = [np.abs(a) + 0.1 for a in small]
    inputs = [mg.tensor(a, requires_grad=a.dtype.kind == "f") for a in small]

    def fn(*tensors):
        return getattr(F, name)(*tensors, **kwargs)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def _error(call):
    try:
        call()
    except Exception as error:   # noqa: BLE001 - the exception itself is compared
        return type(error).__name__, str(error)
    return None, None


X4 = _x(2, 3, 5, 6)


def _bad(indices, value):
    """``indices`` with one entry (in the middle) set to ``value``."""
    out = indices.copy().reshape(-1)
    out[out.size // 2] = value
    return out.reshape(indices.shape)


BAD = {
    "amp1 4-d": lambda L, f: f.adaptive_max_pool1d(L.tensor(X4), 3),
    "amp1 two sizes": lambda L, f: f.adaptive_max_pool1d(L.tensor(X4[0]), (3, 2)),
    "amp1 None": lambda L, f: f.adaptive_max_pool1d(L.tensor(X4[0]), None),
    "amp1 empty length": lambda L, f: f.adaptive_max_pool1d(L.zeros(2, 3, 0), 2),
    "amp1 int": lambda L, f: f.adaptive_max_pool1d(L.ones(2, 3, 5, dtype=L.int64), 2),
    "amp1 negative size": lambda L, f: f.adaptive_max_pool1d(L.tensor(X4[0]), -1),
    "amp2 2-d": lambda L, f: f.adaptive_max_pool2d(L.tensor(X4[0, 0]), 3),
    "amp2 5-d": lambda L, f: f.adaptive_max_pool2d(L.tensor(X4[None]), 3),
    "amp2 three sizes": lambda L, f: f.adaptive_max_pool2d(L.tensor(X4), (1, 2, 3)),
    "amp2 too few dims": lambda L, f: f.adaptive_max_pool2d(L.tensor(X4[0, 0, 0]), (1, 2)),
    "amp2 empty H": lambda L, f: f.adaptive_max_pool2d(L.zeros(2, 3, 0, 4), 2),
    "amp2 bool": lambda L, f: f.adaptive_max_pool2d(L.ones(2, 3, 4, 4, dtype=L.bool), 2),
    "amp2 negative": lambda L, f: f.adaptive_max_pool2d(L.tensor(X4), (-1, 2)),
    "lrn 2-d": lambda L, f: f.local_response_norm(L.tensor(X4[0, 0]), 2),
    "unfold 2-d": lambda L, f: f.unfold(L.tensor(X4[0, 0]), 2),
    "unfold 5-d": lambda L, f: f.unfold(L.tensor(X4[None]), 2),
    "unfold 3 kernel sizes": lambda L, f: f.unfold(L.tensor(X4), (2, 3, 4)),
    "unfold kernel 0": lambda L, f: f.unfold(L.tensor(X4), 0, dilation=0),
    "unfold dilation 0": lambda L, f: f.unfold(L.tensor(X4), 2, dilation=0, padding=-1),
    "unfold padding -1": lambda L, f: f.unfold(L.tensor(X4), 2, padding=-1, stride=0),
    "unfold stride 0": lambda L, f: f.unfold(L.tensor(X4), 2, stride=0),
    "unfold empty C": lambda L, f: f.unfold(L.zeros(2, 0, 5, 6), 2),
    "unfold kernel too big": lambda L, f: f.unfold(L.tensor(X4), (5, 7)),
    "unfold int": lambda L, f: f.unfold(L.ones(2, 3, 4, 4, dtype=L.int64), 2),
    "fold 4-d": lambda L, f: f.fold(L.tensor(COLS[None]), (6, 7), 2),
    "fold 1-d": lambda L, f: f.fold(L.tensor(COLS[0, 0]), (6, 7), 2),
    "fold empty L": lambda L, f: f.fold(L.zeros(2, 12, 0), (5, 6), 2),
    "fold 3 output sizes": lambda L, f: f.fold(L.tensor(COLS), (6, 7, 1), 2),
    "fold stride 0 before dilation": lambda L, f: f.fold(L.tensor(COLS), (6, 7), 2, dilation=0,
                                                         stride=0),
    "fold dilation 0 before padding": lambda L, f: f.fold(L.tensor(COLS), (6, 7), 2,
                                                          dilation=0, padding=-1),
    "fold not divisible": lambda L, f: f.fold(L.zeros(2, 11, 20), (5, 6), 2),
    "fold wrong block count": lambda L, f: f.fold(L.zeros(2, 12, 20), (5, 7), 2),
    "fold too small": lambda L, f: f.fold(L.zeros(2, 12, 4), (1, 1), 4),
    "fold int": lambda L, f: f.fold(L.ones(2, 12, 20, dtype=L.int64), (5, 6), 2),
    "unpool float indices": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(I2).float(), 2),
    "unpool 2-d": lambda L, f: f.max_unpool2d(L.tensor(V2[0, 0]), L.tensor(I2[0, 0]), 2),
    "unpool shapes": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(I2[:1]), 2),
    # one bad index: torch's threads each report the last bad index of their share
    "unpool index too large": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(_bad(I2, 40)), 2),
    "unpool negative index": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(_bad(I2, -3)), 2),
    "unpool padding too large": lambda L, f: f.max_unpool2d(
        L.ones(1, 1, 2, 2), L.tensor([[[[0, 1], [2, 7]]]]), 2, padding=1),
    "unpool bad output_size": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(I2), 2,
                                                          output_size=(9, 7)),
    "unpool output_size of 3": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(I2), 2,
                                                           output_size=(9, 7, 1)),
    "unpool negative default size": lambda L, f: f.max_unpool2d(L.tensor(V2), L.tensor(I2), 1,
                                                                padding=2),
    "unpool empty C": lambda L, f: f.max_unpool2d(L.zeros(2, 0, 2, 3),
                                                  L.zeros(2, 0, 2, 3, dtype=L.int64), 2),
    "unpool int input": lambda L, f: f.max_unpool2d(L.tensor(I2), L.tensor(I2), 2),
    "unpool1d 4-d": lambda L, f: f.max_unpool1d(L.tensor(V1[None]), L.tensor(I1[None]), 3, 2),
    "unpool1d index too large": lambda L, f: f.max_unpool1d(L.tensor(V1), L.tensor(_bad(I1, 9)),
                                                            3, 2),
    "unpool1d bad output_size": lambda L, f: f.max_unpool1d(L.tensor(V1), L.tensor(I1), 3, 2,
                                                            output_size=[3]),
    "conv3d bool": lambda L, f: f.conv3d(L.ones(1, 2, 3, 3, 3, dtype=L.bool),
                                         L.ones(2, 2, 2, 2, 2, dtype=L.bool)),
    "conv_transpose3d int32": lambda L, f: f.conv_transpose3d(
        L.ones(1, 2, 3, 3, 3, dtype=L.int32), L.ones(2, 2, 2, 2, 2, dtype=L.int32)),
    "max_pool3d bool": lambda L, f: f.max_pool3d(L.ones(1, 2, 3, 3, 3, dtype=L.bool), 2),
    "avg_pool3d int32": lambda L, f: f.avg_pool3d(L.ones(1, 2, 3, 3, 3, dtype=L.int32), 2),
    "adaptive_avg_pool3d int": lambda L, f: f.adaptive_avg_pool3d(
        L.ones(1, 2, 3, 3, 3, dtype=L.int64), 2),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_torchs_error(case):
    if case == "unpool negative default size":
        needs_spec_torch(torch, "max_unpool's error for a negative default size")
    theirs = _error(lambda: BAD[case](torch, TF))
    assert theirs[0] is not None
    assert _error(lambda: BAD[case](mg, F)) == theirs


MODULES = {
    "AdaptiveMaxPool1d": lambda L: L.nn.AdaptiveMaxPool1d(3),
    "AdaptiveMaxPool2d": lambda L: L.nn.AdaptiveMaxPool2d((2, None), return_indices=True),
    "LPPool1d": lambda L: L.nn.LPPool1d(2, 3),
    "LPPool2d": lambda L: L.nn.LPPool2d(2.0, (2, 3), stride=1, ceil_mode=True),
    "LPPool3d": lambda L: L.nn.LPPool3d(3, 2),
    "LocalResponseNorm": lambda L: L.nn.LocalResponseNorm(3),
    "Unfold": lambda L: L.nn.Unfold(2, padding=1),
    "Fold": lambda L: L.nn.Fold((4, 5), 2),
    "MaxUnpool1d": lambda L: L.nn.MaxUnpool1d(2),
    "MaxUnpool2d": lambda L: L.nn.MaxUnpool2d((2, 3), stride=1, padding=1),
    "MaxPool3d": lambda L: L.nn.MaxPool3d(2, padding=1, return_indices=True),
    "AvgPool3d": lambda L: L.nn.AvgPool3d(2, stride=1),
    "AdaptiveAvgPool3d": lambda L: L.nn.AdaptiveAvgPool3d((1, None, 2)),
    "BatchNorm3d": lambda L: L.nn.BatchNorm3d(3),
    "Conv3d": lambda L: L.nn.Conv3d(2, 4, 3, padding=1, groups=2, bias=False),
    "ConvTranspose3d": lambda L: L.nn.ConvTranspose3d(2, 4, 2, stride=2),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_repr_and_state_dict_as_torchs(name):
    if name == "BatchNorm3d":
        needs_spec_torch(torch, "BatchNorm's bias= argument")
    mine, theirs = MODULES[name](mg), MODULES[name](torch)
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        assert tuple(mine.state_dict()[key].shape) == tuple(value.shape)


@pytest.mark.parametrize("name, x", [("AdaptiveMaxPool2d", _x(2, 3, 5, 6)),
                                     ("LPPool2d", _x(2, 3, 5, 6)),
                                     ("LocalResponseNorm", _x(2, 5, 4, 3)),
                                     ("Unfold", _x(2, 3, 5, 6)),
                                     ("Fold", _x(2, 8, 12)),
                                     ("MaxPool3d", _x(1, 2, 4, 5, 3)),
                                     ("BatchNorm3d", _x(2, 3, 3, 4, 2)),
                                     ("Conv3d", _x(2, 2, 3, 4, 3)),
                                     ("ConvTranspose3d", _x(1, 2, 2, 3, 2))])
def test_modules_forward_and_backward_as_torchs(name, x):
    compare(MODULES[name](mg).double(), MODULES[name](torch).double(), [x], rtol=1e-10,
            atol=1e-12)


def test_max_unpool_to_an_empty_plane_checks_no_index_as_torch():
    mine = F.max_unpool2d(mg.ones(1, 1, 1, 1), mg.tensor([[[[5]]]]), 2, padding=1)
    theirs = TF.max_unpool2d(torch.ones(1, 1, 1, 1), torch.tensor([[[[5]]]]), 2, padding=1)
    assert tuple(mine.shape) == tuple(theirs.shape) == (1, 1, 0, 0)


def test_max_unpool_modules_invert_max_pool_as_torchs():
    x = _x(2, 3, 6, 6)
    for lib in (mg, torch):
        pool, unpool = lib.nn.MaxPool2d(2, return_indices=True), lib.nn.MaxUnpool2d(2)
        values, indices = pool(lib.tensor(x))
        out = unpool(values, indices, output_size=(7, 6))
        if lib is mg:
            mine = out.numpy()
    np.testing.assert_array_equal(mine, out.numpy())


# compile: shape-derived index tables are constants; argmaxes and max_unpool's index check
# follow each call's data
COMPILED = {
    "adaptive_max_pool2d": lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True)[0]
    * 1.0,
    "adaptive_max_pool1d": lambda x: F.adaptive_max_pool1d(x[0], 3),
    "lp_pool2d": lambda x: F.lp_pool2d(x, 2, 2, ceil_mode=True),
    "local_response_norm": lambda x: F.local_response_norm(x, 3),
    "unfold then fold": lambda x: F.fold(F.unfold(x, 2, padding=1), (5, 6), 2, padding=1),
    "max_pool then unpool": lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True),
                                                     2, output_size=(5, 6)),
    "max_pool3d": lambda x: F.max_pool3d(x, 2, return_indices=True)[0],
}


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled_as_eager_on_two_inputs(name):
    fn = COMPILED[name]
    compiled = mg.compile(fn)
    for seed in (1, 2):
        results = []
        for f in (compiled, fn):
            x = mg.tensor(_x(2, 3, 5, 6, seed=seed), requires_grad=True)
            out = f(x)
            (out * out).sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy()))
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-12)


def test_compiled_max_unpool_checks_the_indices_on_every_call():
    compiled = mg.compile(lambda v, i: F.max_unpool2d(v, i, 2))
    compiled(mg.tensor(V2), mg.tensor(I2))
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        compiled(mg.tensor(V2), mg.tensor(I2 + 100))


def _forward_backward(name, arrays, kwargs, device):
    tensors = [mg.tensor(a).to(device).requires_grad_(a.dtype.kind == "f") for a in arrays]
    out = getattr(F, name)(*tensors, **kwargs)
    out = out if isinstance(out, tuple) else (out,)
    (out[0] * out[0]).sum().backward()
    assert all(t.is_cuda == (device == "cuda") for t in tensors + list(out))
    return [o.cpu().detach().numpy() for o in out] + [t.grad.cpu().numpy() for t in tensors
                                                      if t.requires_grad]


@pytest.mark.parametrize("case", sorted(CASES))
def test_on_the_fake_gpu_as_on_the_cpu(case, fake_gpu):
    """Index tables and zeros go to the input's device (CuPy refuses numpy arrays)."""
    name, arrays, kwargs = CASES[case]
    for a, b in zip(_forward_backward(name, arrays, kwargs, "cuda"),
                    _forward_backward(name, arrays, kwargs, "cpu")):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("output_size", [1, 2])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_avg_pool_refuses_integers_as_torch(nd, output_size, dtype):
    """An output of all ones goes through torch's mean(), others to its pooling kernel."""
    def call(L, f):
        x = L.ones((1, 2) + (3,) * nd, dtype=getattr(L, dtype))
        return getattr(f, f"adaptive_avg_pool{nd}d")(x, output_size)
    theirs = _error(lambda: call(torch, TF))
    assert theirs[0] is not None
    assert _error(lambda: call(mg, F)) == theirs
