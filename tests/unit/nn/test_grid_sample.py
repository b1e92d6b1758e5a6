"""F.affine_grid and F.grid_sample against torch: values and gradients of both orders for
every mode, padding and align_corners, on grids with points far outside [-1, 1] (several
reflections); finite differences; forward mode; minigrad.compile; PyTorch's warnings and
errors; a Spatial Transformer Network's training steps."""
import itertools
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

from tests.unit.nn._torch_pair import load_from_torch, raised
from tests.torch_spec import needs_spec_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (input shape, grid shape): 4-D and 5-D, with a one-pixel dimension in each
SHAPES = {4: [((2, 3, 4, 5), (2, 3, 6, 2)), ((1, 2, 1, 4), (1, 2, 3, 2))],
          5: [((2, 2, 3, 4, 5), (2, 2, 3, 2, 3)), ((1, 1, 2, 1, 3), (1, 2, 2, 2, 3))]}
CASES = [(mode, padding, align, dims)
         for mode, padding, align, dims in itertools.product(
             ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"),
             (False, True), (4, 5))
         if not (mode == "bicubic" and dims == 5)]
TOLERANCE = {np.float64: 1e-12, np.float32: 2e-5}


def _ids(case):
    return "-".join(str(c) for c in case)


def _data(input_shape, grid_shape, dtype, seed=0):
    """Input, and a grid with a third of its points within [-1, 1], the rest up to 3.5
    away (past the border, and reflected more than once)."""
    rng = np.random.default_rng(seed)
    grid = rng.uniform(-1, 1, grid_shape)
    far = rng.random(grid_shape) < 2 / 3
    grid[far] *= 3.5
    return rng.standard_normal(input_shape).astype(dtype), grid.astype(dtype)


def _pair(arrays, requires_grad=True):
    return ([torch.tensor(a, requires_grad=requires_grad) for a in arrays],
            [mg.tensor(a, requires_grad=requires_grad) for a in arrays])


def _close(actual, expected, tol):
    expected = expected.detach().numpy() if hasattr(expected, "detach") else expected
    np.testing.assert_allclose(actual.detach().numpy(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_grid_sample_values_and_gradients_match_torch(case, dtype):
    mode, padding, align, dims = case
    tol = TOLERANCE[dtype]
    for input_shape, grid_shape in SHAPES[dims]:
        (t_x, t_g), (m_x, m_g) = _pair(_data(input_shape, grid_shape, dtype))
        expected = TF.grid_sample(t_x, t_g, mode, padding, align)
        actual = F.grid_sample(m_x, m_g, mode, padding, align)
        assert actual.dtype == m_x.dtype and tuple(actual.shape) == tuple(expected.shape)
        _close(actual, expected, tol)
        w = np.random.default_rng(1).standard_normal(tuple(expected.shape)).astype(dtype)
        (expected * torch.tensor(w)).sum().backward()
        (actual * mg.tensor(w)).sum().backward()
        _close(m_x.grad, t_x.grad, tol)
        _close(m_g.grad, t_g.grad, 20 * tol)   # (sums of values times pixel scales)


def _second_order(lib, functional, x, g, mode, padding, align, u, v):
    """Gradients of <grad_x, u> + <grad_grid, v>, where grad_* are the gradients of
    <grid_sample(x, g), w> (w = the output itself, detached)."""
    out = functional.grid_sample(x, g, mode, padding, align)
    gx, gg = lib.autograd.grad((out * out.detach()).sum(), [x, g], create_graph=True)
    total = (gx * lib.tensor(u)).sum() + (gg * lib.tensor(v)).sum()
    if not total.requires_grad:
        return [np.zeros(x.shape), np.zeros(g.shape)]
    grads = lib.autograd.grad(total, [x, g], allow_unused=True)
    return [np.zeros(t.shape) if d is None else d.detach().numpy() for d, t in zip(grads, [x, g])]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_grid_sample_second_order_matches_torch(case):
    needs_spec_torch(torch, "grid_sample's double backward")
    mode, padding, align, dims = case
    input_shape, grid_shape = SHAPES[dims][0]
    x, g = _data(input_shape, grid_shape, np.float64, seed=2)
    rng = np.random.default_rng(3)
    u, v = rng.standard_normal(x.shape), rng.standard_normal(g.shape)
    (t_x, t_g), (m_x, m_g) = _pair([x, g])
    expected = _second_order(torch, TF, t_x, t_g, mode, padding, align, u, v)
    actual = _second_order(mg, F, m_x, m_g, mode, padding, align, u, v)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("mode,padding", list(itertools.product(
    ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"))))
def test_grid_sample_gradcheck_and_gradgradcheck(mode, padding):
    x, g = _data((1, 1, 3, 4), (1, 2, 2, 2), np.float64, seed=4)
    inputs = (mg.tensor(x, requires_grad=True), mg.tensor(g, requires_grad=True))

    def fn(x, g):
        return F.grid_sample(x, g, mode, padding, align_corners=False)

    assert mg.autograd.gradcheck(fn, inputs)
    assert mg.autograd.gradgradcheck(fn, inputs)


def test_trilinear_gradcheck_and_gradgradcheck():
    x, g = _data((1, 1, 2, 3, 2), (1, 2, 1, 2, 3), np.float64, seed=5)
    inputs = (mg.tensor(x, requires_grad=True), mg.tensor(g, requires_grad=True))

    def fn(x, g):
        return F.grid_sample(x, g, "bilinear", "reflection", align_corners=True)

    assert mg.autograd.gradcheck(fn, inputs)
    assert mg.autograd.gradgradcheck(fn, inputs)


def test_clipped_points_have_torchs_zero_gradient_at_the_border():
    # on the border itself ATen's clip gives gradient 0 (clamp would pass it)
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    g = np.array([[[[-1.0, 0.2], [1.0, -0.3], [0.4, 1.0], [-1.2, 2.0]]]])
    (t_x, t_g), (m_x, m_g) = _pair([x, g])
    for padding in ("border", "reflection"):
        t_g.grad = None
        m_g.grad = None
        TF.grid_sample(t_x, t_g, "bilinear", padding, True).sum().backward()
        F.grid_sample(m_x, m_g, "bilinear", padding, True).sum().backward()
        np.testing.assert_allclose(m_g.grad.numpy(), t_g.grad.numpy(), atol=1e-12)


def test_nearest_gives_the_grid_a_zero_gradient():
    (t_x, t_g), (m_x, m_g) = _pair(_data((1, 2, 3, 4), (1, 2, 2, 2), np.float64))
    expected = torch.autograd.grad(TF.grid_sample(t_x, t_g, "nearest", align_corners=False)
                                   .sum(), t_g)[0]
    actual = mg.autograd.grad(F.grid_sample(m_x, m_g, "nearest", align_corners=False)
                              .sum(), m_g)[0]
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode,padding", list(itertools.product(
    ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"))))
def test_nan_infinite_and_huge_grid_points_match_torch(mode, padding, dtype):
    # ATen's clip takes NaN to the first pixel; indices of such points must not overflow
    inf, nan = float("inf"), float("nan")
    grid = [[[[nan, 0.3], [0.2, inf], [-inf, 0.1], [1e30, 0.2], [0.3, -1e30], [nan, nan]]]]
    x = np.arange(20.0).reshape(1, 1, 4, 5)
    expected = TF.grid_sample(torch.tensor(x, dtype=getattr(torch, dtype)),
                              torch.tensor(grid, dtype=getattr(torch, dtype)), mode, padding,
                              align_corners=False)
    actual = F.grid_sample(mg.tensor(x, dtype=getattr(mg, dtype)),
                           mg.tensor(grid, dtype=getattr(mg, dtype)), mode, padding,
                           align_corners=False)
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("shapes", [((0, 2, 3, 4), (0, 2, 2, 2)), ((2, 0, 3, 4), (2, 2, 2, 2)),
                                    ((2, 3, 3, 4), (2, 0, 2, 2))])
def test_empty_batch_channels_and_grid_match_torch(shapes):
    (t_x, t_g), (m_x, m_g) = _pair(_data(*shapes, np.float64))
    expected = TF.grid_sample(t_x, t_g, align_corners=False)
    actual = F.grid_sample(m_x, m_g, align_corners=False)
    assert tuple(actual.shape) == tuple(expected.shape)
    actual.sum().backward()
    assert m_x.grad.shape == m_x.shape and m_g.grad.shape == m_g.shape


def test_forward_mode_agrees_with_reverse_mode():
    # (torch has no forward AD for grid_sampler; minigrad's composite has one)
    x, g = _data((1, 2, 3, 4), (1, 3, 2, 2), np.float64, seed=6)
    rng = np.random.default_rng(7)
    dx, dg = rng.standard_normal(x.shape), rng.standard_normal(g.shape)

    def fn(x, g):
        return F.grid_sample(x, g, "bicubic", "reflection", align_corners=False)

    _, tangent = mg.func.jvp(fn, (mg.tensor(x), mg.tensor(g)), (mg.tensor(dx), mg.tensor(dg)))
    w = rng.standard_normal(tuple(tangent.shape))
    m_x, m_g = mg.tensor(x, requires_grad=True), mg.tensor(g, requires_grad=True)
    gx, gg = mg.autograd.grad((fn(m_x, m_g) * mg.tensor(w)).sum(), [m_x, m_g])
    reverse = (gx.numpy() * dx).sum() + (gg.numpy() * dg).sum()
    np.testing.assert_allclose((tangent.numpy() * w).sum(), reverse, rtol=1e-12)


# ---- affine_grid

AFFINE = [((3, 2, 4, 5), (3, 2, 3)), ((2, 1, 1, 6), (2, 2, 3)),
          ((2, 1, 3, 4, 5), (2, 3, 4)), ((1, 2, 2, 1, 3), (1, 3, 4))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size,theta_shape", AFFINE, ids=str)
def test_affine_grid_values_and_gradients_match_torch(size, theta_shape, align, dtype):
    theta = np.random.default_rng(8).standard_normal(theta_shape).astype(dtype)
    (t_theta,), (m_theta,) = _pair([theta])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (the unit-size warning: tested below)
        expected = TF.affine_grid(t_theta, size, align_corners=align)
        actual = F.affine_grid(m_theta, size, align_corners=align)
    assert actual.dtype == m_theta.dtype
    _close(actual, expected, TOLERANCE[dtype])
    w = np.random.default_rng(9).standard_normal(tuple(expected.shape)).astype(dtype)
    (expected * torch.tensor(w)).sum().backward()
    (actual * mg.tensor(w)).sum().backward()
    _close(m_theta.grad, t_theta.grad, 10 * TOLERANCE[dtype])


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(1, 1, 5, 7), (1, 1, 3, 4, 6)], ids=str)
def test_identity_affine_grid_is_torchs_bit_for_bit_in_float32(size, align):
    eye = np.eye(len(size) - 2, len(size) - 1, dtype=np.float32)[None]
    expected = TF.affine_grid(torch.tensor(eye), size, align_corners=align)
    actual = F.affine_grid(mg.tensor(eye), size, align_corners=align)
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())


def test_affine_grid_then_grid_sample_second_order_matches_torch():
    needs_spec_torch(torch, "grid_sample's double backward")
    rng = np.random.default_rng(10)
    x, theta = rng.standard_normal((2, 2, 5, 4)), rng.standard_normal((2, 2, 3))
    results = []
    for lib, functional in ((torch, TF), (mg, F)):
        t_x, t_theta = lib.tensor(x, requires_grad=True), lib.tensor(theta, requires_grad=True)
        grid = functional.affine_grid(t_theta, (2, 2, 3, 3), align_corners=False)
        out = functional.grid_sample(t_x, grid, "bicubic", "border", align_corners=False)
        g_theta, = lib.autograd.grad(out.pow(2).sum(), t_theta, create_graph=True)
        results.append([d.detach().numpy() for d in
                        lib.autograd.grad(g_theta.pow(2).sum(), [t_x, t_theta])])
    for a, e in zip(*reversed(results)):
        np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-9)


# ---- warnings and errors

def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, str(w.message), w.filename) for w in caught]


@pytest.mark.parametrize("call", [
    lambda L, F: F.grid_sample(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 1, 2)),
    lambda L, F: F.affine_grid(L.zeros(1, 2, 3), (1, 1, 2, 2)),
    lambda L, F: F.affine_grid(L.zeros(1, 2, 3), (1, 1, 1, 2), align_corners=True),
    lambda L, F: F.grid_sample(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 1, 2), align_corners=True),
], ids=["grid_sample default", "affine_grid default", "affine_grid unit size", "none"])
def test_warnings_match_torch_and_point_at_the_caller(call):
    expected = _warnings_of(lambda: call(torch, TF))
    actual = _warnings_of(lambda: call(mg, F))
    assert actual == expected
    assert all(filename == __file__ for _, _, filename in actual)


def _x(L, *shape, dtype=None):
    return L.zeros(*shape, dtype=dtype or L.float32)


ERRORS = {
    "mode": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 2), mode="area"),
    "mode None": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 2), mode=None),
    "padding": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 2),
                                          padding_mode="circular"),
    "input not a tensor": lambda L, F: F.grid_sample(np.zeros((1, 1, 2, 2)), _x(L, 1, 1, 1, 2),
                                                     align_corners=False),
    "grid not a tensor": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), [[0.0, 0.0]],
                                                    align_corners=False),
    "align_corners int": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 2),
                                                    align_corners=1),
    "0-d input": lambda L, F: F.grid_sample(L.tensor(1.0), _x(L, 1, 1, 1, 2),
                                            align_corners=False),
    "batch": lambda L, F: F.grid_sample(_x(L, 2, 1, 2, 2), _x(L, 1, 1, 1, 2),
                                        align_corners=False),
    "grid last dim": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 3),
                                                align_corners=False),
    "empty spatial": lambda L, F: F.grid_sample(_x(L, 1, 1, 0, 2), _x(L, 1, 1, 1, 2),
                                                align_corners=False),
    "3-D input": lambda L, F: F.grid_sample(_x(L, 1, 1, 2), _x(L, 1, 1, 1), align_corners=False),
    "6-D input": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2, 2, 2), _x(L, 1, 1, 1, 1, 1, 4),
                                            align_corners=False),
    "grid dims": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 1, 2),
                                            align_corners=False),
    "bicubic 5-D": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2, 2), _x(L, 1, 1, 1, 1, 3),
                                              mode="bicubic", align_corners=False),
    "int input": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2, dtype=L.int32),
                                            _x(L, 1, 1, 1, 2), align_corners=False),
    "int input 5-D": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2, 2, dtype=L.int64),
                                                _x(L, 1, 1, 1, 1, 3), align_corners=False),
    "dtype mismatch": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2), _x(L, 1, 1, 1, 2,
                                                                      dtype=L.float64),
                                                 align_corners=False),
    "int grid": lambda L, F: F.grid_sample(_x(L, 1, 1, 2, 2, dtype=L.float64),
                                           _x(L, 1, 1, 1, 2, dtype=L.int32),
                                           align_corners=False),
    "theta int": lambda L, F: F.affine_grid(_x(L, 1, 2, 3, dtype=L.int64), (1, 1, 2, 2),
                                            align_corners=False),
    "theta not a tensor": lambda L, F: F.affine_grid(np.zeros((1, 2, 3)), (1, 1, 2, 2),
                                                     align_corners=False),
    "theta 2-D for 5-D size": lambda L, F: F.affine_grid(_x(L, 1, 2, 3), (1, 1, 2, 2, 2),
                                                         align_corners=False),
    "theta 3-D for 4-D size": lambda L, F: F.affine_grid(_x(L, 1, 3, 4), (1, 1, 2, 2),
                                                         align_corners=False),
    "theta 2 dims": lambda L, F: F.affine_grid(_x(L, 2, 3), [1, 1, 2, 2], align_corners=False),
    "size 3-D": lambda L, F: F.affine_grid(_x(L, 1, 2, 3), (1, 1, 2), align_corners=False),
    "size 6-D": lambda L, F: F.affine_grid(_x(L, 1, 3, 4), (1, 1, 2, 2, 2, 2),
                                           align_corners=False),
    "size empty": lambda L, F: F.affine_grid(_x(L, 1, 2, 3), (1, 0, 2, 2), align_corners=True),
    "size negative": lambda L, F: F.affine_grid(_x(L, 1, 2, 3), [1, 1, -2, 2],
                                                align_corners=False),
    "size float": lambda L, F: F.affine_grid(_x(L, 1, 2, 3), (1.0, 1, 2, 2),
                                             align_corners=False),
    "theta batch": lambda L, F: F.affine_grid(_x(L, 2, 2, 3), (3, 1, 2, 2), align_corners=False),
    "theta batch 5-D": lambda L, F: F.affine_grid(_x(L, 2, 3, 4), (1, 1, 2, 2, 2),
                                                  align_corners=False),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kind, message = raised(lambda: ERRORS[name](torch, TF))
        assert kind is not None
        assert raised(lambda: ERRORS[name](mg, F)) == (kind, message.replace("torch.", "minigrad."))


# ---- minigrad.compile

@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_compiled_sampling_follows_each_calls_data(mode):
    def fn(x, theta):
        grid = F.affine_grid(theta, (2, 3, 5, 4), align_corners=False)
        return F.grid_sample(x, grid, mode, "reflection", align_corners=False)

    def run(f, seed):
        rng = np.random.default_rng(seed)
        x = mg.tensor(rng.standard_normal((2, 3, 4, 5)), requires_grad=True)
        theta = mg.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
        out = f(x, theta)
        out.sum().backward()
        return [out.detach().numpy(), x.grad.numpy(), theta.grad.numpy()]

    compiled = mg.compile(fn, fullgraph=True)   # (fullgraph: a graph break would raise)
    run(compiled, 1)
    for got, want in zip(run(compiled, 2), run(fn, 2)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ---- a Spatial Transformer Network (PyTorch's tutorial, small)

def _stn(nn, F):
    class STN(nn.Module):
        def __init__(self):
            super().__init__()
            self.localization = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(),
                                              nn.Linear(4 * 6 * 6, 6))
            self.head = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(),
                                      nn.Linear(2 * 6 * 6, 3))

        def forward(self, x):
            theta = self.localization(x).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            x = F.grid_sample(x, grid, align_corners=False)
            return F.log_softmax(self.head(x), dim=1)

    return STN()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_spatial_transformer_training_steps_match_torch(dtype):
    torch.manual_seed(0)
    t_model = _stn(torch.nn, TF).to(getattr(torch, dtype))
    with torch.no_grad():   # the tutorial's start: near the identity transform
        t_model.localization[-1].weight.mul_(0.1)
        t_model.localization[-1].bias.copy_(torch.tensor([1.0, 0, 0, 0, 1, 0]))
    m_model = load_from_torch(_stn(nn, F).to(getattr(mg, dtype)), t_model)
    t_opt = torch.optim.SGD(t_model.parameters(), lr=0.1, momentum=0.9)
    m_opt = mg.optim.SGD(m_model.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(11)
    tol = TOLERANCE[getattr(np, dtype)] * 10
    for _ in range(3):
        x = rng.standard_normal((4, 1, 8, 8)).astype(dtype)
        y = rng.integers(0, 3, 4)
        t_loss = TF.nll_loss(t_model(torch.tensor(x)), torch.tensor(y))
        m_loss = F.nll_loss(m_model(mg.tensor(x)), mg.tensor(y))
        _close(m_loss, t_loss, tol)
        for loss, opt in ((t_loss, t_opt), (m_loss, m_opt)):
            opt.zero_grad()
            loss.backward()
            opt.step()
    t_params = dict(t_model.named_parameters())
    for name, p in m_model.named_parameters():
        _close(p, t_params[name], tol)


# ---- on a device: the CuPy-like test backend (tests/conftest.py's fake_gpu)

def _sample_on(device, mode, padding):
    rng = np.random.default_rng(12)
    x = mg.tensor(rng.standard_normal((2, 2, 4, 5))).to(device).requires_grad_()
    theta = mg.tensor(rng.standard_normal((2, 2, 3))).to(device).requires_grad_()
    grid = F.affine_grid(theta, (2, 2, 3, 4), align_corners=False)
    out = F.grid_sample(x, grid, mode, padding, align_corners=False)
    gx, gt = mg.autograd.grad(out.pow(2).sum(), [x, theta], create_graph=True)
    second = mg.autograd.grad((gx.pow(2).sum() + gt.pow(2).sum()), [x, theta], allow_unused=True)
    assert all(t.is_cuda == (device == "cuda") for t in [out, gx, gt])
    return [t.detach().cpu().numpy() for t in [out, gx, gt, *second]]


@pytest.mark.parametrize("mode,padding", [("bilinear", "reflection"), ("nearest", "border"),
                                          ("bicubic", "zeros")])
def test_on_the_fake_gpu_as_on_the_cpu(mode, padding, fake_gpu):
    for a, b in zip(_sample_on("cuda", mode, padding), _sample_on("cpu", mode, padding)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
