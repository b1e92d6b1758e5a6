"""F.interpolate, F.pixel_shuffle / pixel_unshuffle and their modules against torch: values,
gradients and dtypes for every supported mode and sizing rule; reprs; PyTorch's error texts."""
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional

R = np.random.default_rng(0)

SHAPES = {"linear": (2, 3, 5), "bilinear": (1, 2, 4, 5), "trilinear": (1, 1, 3, 4, 5)}
CASES = [(mode, SHAPES[mode]) for mode in SHAPES]
CASES += [("nearest", s) for s in SHAPES.values()] + [("nearest-exact", SHAPES["bilinear"])]
CASES += [("bicubic", SHAPES["bilinear"])] + [("area", s) for s in SHAPES.values()]
SIZINGS = [dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=0.6),
           dict(size=7), dict(size=3), dict(size=1), dict(scale_factor=2.5,
                                                           recompute_scale_factor=True),
           "per-dim scales", "per-dim sizes"]


def _sizing(sizing, dim):
    if sizing == "per-dim scales":
        return dict(scale_factor=tuple([1.5, 3.0, 0.5][:dim]))
    if sizing == "per-dim sizes":
        return dict(size=tuple([6, 2, 9][:dim]))
    return sizing


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sizing", SIZINGS, ids=str)
@pytest.mark.parametrize("mode,shape", CASES, ids=lambda c: str(c))
def test_interpolate_matches_torch(mode, shape, sizing, dtype):
    kwargs = _sizing(sizing, len(shape) - 2)
    tol = 1e-12 if dtype == np.float64 else 2e-6
    for align_corners in ([None] if "nearest" in mode or mode == "area" else [False, True]):
        a = R.standard_normal(shape).astype(dtype)
        t, m = torch.tensor(a, requires_grad=True), mg.tensor(a, requires_grad=True)
        expected = TF.interpolate(t, mode=mode, align_corners=align_corners, **kwargs)
        actual = F.interpolate(m, mode=mode, align_corners=align_corners, **kwargs)
        assert actual.dtype == getattr(mg, str(expected.dtype).split(".")[-1])
        np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(),
                                   rtol=tol, atol=tol)
        g = R.standard_normal(tuple(expected.shape)).astype(dtype)
        (expected * torch.tensor(g)).sum().backward()
        (actual * mg.tensor(g)).sum().backward()
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=tol, atol=10 * tol)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_pixel_shuffle_round_trip_matches_torch(r):
    a = R.standard_normal((2, 3, 2 * r * r, 4, 5))
    m = mg.tensor(a, requires_grad=True)
    out = F.pixel_shuffle(m, r)
    np.testing.assert_array_equal(out.detach().numpy(),
                                  TF.pixel_shuffle(torch.tensor(a), r).numpy())
    np.testing.assert_array_equal(F.pixel_unshuffle(out, r).detach().numpy(), a)
    out.sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), np.ones_like(a))


def test_module_reprs_and_forward_match_torch():
    x = R.standard_normal((1, 4, 4, 6))
    for name, args, kwargs in [("Upsample", (), dict(scale_factor=2, mode="bilinear")),
                               ("Upsample", ((3, 4),), {}),
                               ("Upsample", (), dict(scale_factor=(2, 1.5))),
                               ("UpsamplingNearest2d", (), dict(scale_factor=2)),
                               ("UpsamplingBilinear2d", (5,), {}),
                               ("PixelShuffle", (2,), {}), ("PixelUnshuffle", (2,), {})]:
        t_mod = getattr(torch.nn, name)(*args, **kwargs)
        m_mod = getattr(nn, name)(*args, **kwargs)
        assert repr(m_mod) == repr(t_mod)
        np.testing.assert_allclose(m_mod(mg.tensor(x)).numpy(),
                                   t_mod(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-12)


def test_deprecated_aliases_warn_like_torch():
    x = R.standard_normal((1, 1, 2, 3))
    for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
        with pytest.warns(UserWarning) as t_rec:
            expected = getattr(TF, name)(torch.tensor(x), scale_factor=2)
        with pytest.warns(UserWarning) as m_rec:
            actual = getattr(F, name)(mg.tensor(x), scale_factor=2)
        assert [str(w.message) for w in m_rec] == [str(w.message) for w in t_rec]
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-12)


BAD_CALLS = [
    ((1, 1, 4, 4), dict(scale_factor=2, mode="nearest", align_corners=True)),
    ((1, 1, 4, 4), dict(size=3, scale_factor=2)),
    ((1, 1, 4, 4), dict()),
    ((1, 1, 4, 4), dict(size=(3,))),
    ((1, 1, 4, 4), dict(size=(3, 2.5))),
    ((1, 1, 4, 4), dict(scale_factor=(2, 2, 2))),
    ((1, 1, 4, 4), dict(size=3, recompute_scale_factor=True)),
    ((1, 1, 4, 4), dict(scale_factor=2, mode="linear")),
    ((1, 1, 4), dict(scale_factor=2, mode="bilinear")),
    ((1, 4), dict(scale_factor=2)),
    ((1, 1, 4, 4), dict(scale_factor=2, mode="bicubc")),
    ((1, 1, 4, 4), dict(scale_factor=2, antialias=True)),
]


@pytest.mark.parametrize("shape,kwargs", BAD_CALLS, ids=str)
def test_interpolate_errors_are_torchs(shape, kwargs):
    with pytest.raises(Exception) as expected:
        TF.interpolate(torch.zeros(shape), **kwargs)
    with pytest.raises(type(expected.value)) as actual:
        F.interpolate(mg.zeros(shape), **kwargs)
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("fn,shape,factor", [
    ("pixel_shuffle", (2, 3), 2), ("pixel_shuffle", (1, 5, 2, 2), 2),
    ("pixel_shuffle", (1, 4, 2, 2), 0), ("pixel_unshuffle", (1, 1, 3, 4), 2),
    ("pixel_unshuffle", (1, 1, 4, 3), 2), ("pixel_unshuffle", (4, 4), 2),
    ("pixel_unshuffle", (1, 1, 4, 4), -1)])
def test_pixel_shuffle_errors_are_torchs(fn, shape, factor):
    with pytest.raises(RuntimeError) as expected:
        getattr(TF, fn)(torch.zeros(shape), factor)
    with pytest.raises(RuntimeError) as actual:
        getattr(F, fn)(mg.zeros(shape), factor)
    assert str(actual.value) == str(expected.value)


def test_unsupported_modes_say_so():
    with pytest.raises(NotImplementedError, match="not supported by minigrad"):
        F.interpolate(mg.zeros(1, 1, 4, 4), scale_factor=2, mode="lanczos")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.interpolate(mg.zeros(1, 1, 4, 4), scale_factor=2)


def test_bicubic_of_a_3d_input_is_torchs_error():
    with pytest.raises(NotImplementedError) as expected:
        TF.interpolate(torch.zeros(1, 1, 4), scale_factor=2, mode="bicubic")
    with pytest.raises(NotImplementedError) as actual:
        F.interpolate(mg.zeros(1, 1, 4), scale_factor=2, mode="bicubic")
    assert str(actual.value) == str(expected.value)
