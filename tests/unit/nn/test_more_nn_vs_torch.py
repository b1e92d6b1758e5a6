"""More of torch.nn against torch: adaptive_max_pool3d / AdaptiveMaxPool3d and the
``_with_indices`` functions, max_unpool3d / MaxUnpool3d, fractional_max_pool2d/3d
(given ``_random_samples``), F.interpolate on uint8
images (bilinear / bicubic, with and without antialias: bit-exact) and with
antialias on floats, the conv/linear + batch-norm fusions, skip_init, and the
init functions dirac_, eye_ and sparse_."""
import numpy as np
import pytest

import minigrad as mg
from tests.unit.nn._torch_pair import raised

torch = pytest.importorskip("torch")
TF, MF = torch.nn.functional, mg.nn.functional

R = np.random.default_rng(4)


def _both(fn_name, *arrays, grad=True, **kwargs):
    """The outputs of torch's and minigrad's ``fn_name`` on the same arrays, and the
    gradients of a random weighting of the first output into the float inputs."""
    results = []
    for lib, F in ((torch, TF), (mg, MF)):
        inputs = [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        out = getattr(F, fn_name)(*inputs, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        grads = []
        if grad and outs[0].requires_grad:
            weights = np.random.default_rng(0).standard_normal(tuple(outs[0].shape))
            (outs[0] * lib.tensor(weights)).sum().backward()
            grads = [t.grad.numpy() for t in inputs if t.requires_grad]
        results.append(([o.detach().numpy() for o in outs], grads))
    return results


@pytest.mark.parametrize("shape,output_size", [
    ((2, 3, 5, 6, 7), (2, 3, 4)), ((3, 4, 4, 5), 3), ((1, 2, 3, 5, 4), (None, 7, 2)),
    ((2, 1, 6, 6, 6), (6, 1, 4))])
def test_adaptive_max_pool3d(shape, output_size):
    x = R.standard_normal(shape)
    (t_out, t_grad), (m_out, m_grad) = _both("adaptive_max_pool3d", x,
                                             output_size=output_size, return_indices=True)
    for a, b in zip(m_out + m_grad, t_out + t_grad):
        np.testing.assert_array_equal(a, b)
    module = mg.nn.AdaptiveMaxPool3d(output_size, return_indices=True)
    assert repr(module) == repr(torch.nn.AdaptiveMaxPool3d(output_size, return_indices=True))
    np.testing.assert_array_equal(module(mg.tensor(x))[1].numpy(), t_out[1])


@pytest.mark.parametrize("nd,shape", [(1, (2, 3, 9)), (2, (2, 3, 5, 7)), (3, (1, 2, 3, 4, 5))])
def test_with_indices_functions_always_return_indices(nd, shape):
    x = R.standard_normal(shape)
    name = f"adaptive_max_pool{nd}d_with_indices"
    (t_out, _), (m_out, _) = _both(name, x, output_size=2)
    assert len(m_out) == len(t_out) == 2
    for a, b in zip(m_out, t_out):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape,kernel,stride,padding,output_size", [
    ((2, 3, 4, 6, 6), 2, None, 0, None), ((3, 5, 5, 4), 3, 2, 1, (5, 5, 4)),
    ((1, 2, 4, 4, 4), 2, 2, 0, (5, 4, 5))])
def test_max_unpool3d_inverts_max_pool3d(shape, kernel, stride, padding, output_size):
    x = torch.tensor(R.standard_normal(shape))
    values, indices = TF.max_pool3d(x, kernel, stride, padding, return_indices=True)
    (t_out, t_grad), (m_out, m_grad) = _both(
        "max_unpool3d", values.numpy(), indices.numpy(), kernel_size=kernel, stride=stride,
        padding=padding, output_size=output_size)
    for a, b in zip(m_out + m_grad, t_out + t_grad):
        np.testing.assert_array_equal(a, b)
    t_mod, m_mod = torch.nn.MaxUnpool3d(kernel, stride, padding), \
        mg.nn.MaxUnpool3d(kernel, stride, padding)
    assert repr(m_mod) == repr(t_mod)
    np.testing.assert_array_equal(
        m_mod(mg.tensor(values.numpy()), mg.tensor(indices.numpy()), output_size).numpy(),
        t_out[0])


def _pool_errors():
    ok_values = R.standard_normal((1, 2, 2, 2, 2))
    ok_indices = np.zeros((1, 2, 2, 2, 2), dtype=np.int64)
    return [
        ("adaptive_max_pool3d", [R.standard_normal((2, 3, 4))], dict(output_size=2)),
        ("adaptive_max_pool3d", [R.standard_normal((2, 0, 3, 4, 4))], dict(output_size=2)),
        ("adaptive_max_pool3d", [R.standard_normal((2, 3, 3, 4, 4))], dict(output_size=(2, 2))),
        ("adaptive_max_pool3d", [np.ones((1, 2, 3, 3, 3), dtype=np.int64)],
         dict(output_size=2)),
        ("adaptive_max_pool3d", [R.standard_normal((2, 3, 3, 4, 4))],
         dict(output_size=(2, None, -1))),
        ("max_unpool3d", [R.standard_normal((2, 3, 4)), np.zeros((2, 3, 4), dtype=np.int64)],
         dict(kernel_size=2)),
        ("max_unpool3d", [ok_values, ok_indices.astype(np.int32)], dict(kernel_size=2)),
        ("max_unpool3d", [ok_values, np.zeros((1, 2, 2, 2, 3), dtype=np.int64)],
         dict(kernel_size=2)),
        ("max_unpool3d", [ok_values, ok_indices + 100], dict(kernel_size=2)),
        ("max_unpool3d", [ok_values, ok_indices - 1], dict(kernel_size=2)),
        ("max_unpool3d", [R.standard_normal((1, 0, 2, 2, 2)),
                          np.zeros((1, 0, 2, 2, 2), dtype=np.int64)], dict(kernel_size=2)),
        ("max_unpool3d", [ok_values, ok_indices], dict(kernel_size=1, output_size=(0, 2, 2))),
        ("max_unpool3d", [ok_values.astype(np.int64), ok_indices], dict(kernel_size=2)),
    ]


@pytest.mark.parametrize("case", range(len(_pool_errors())))
def test_pool_errors_are_torchs(case):
    name, arrays, kwargs = _pool_errors()[case]
    t_err = raised(lambda: getattr(TF, name)(*[torch.tensor(a) for a in arrays], **kwargs))
    m_err = raised(lambda: getattr(MF, name)(*[mg.tensor(a) for a in arrays], **kwargs))
    assert t_err[0] is not None and m_err[0] is t_err[0]
    assert m_err[1] == t_err[1]


def _uint8_cases():
    rng = np.random.default_rng(9)
    cases = []
    for i in range(48):
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 5)),
                 int(rng.integers(1, 12)), int(rng.integers(1, 12)))
        if i % 3:
            resize = dict(size=(int(rng.integers(1, 20)), int(rng.integers(1, 20))))
        else:
            resize = dict(scale_factor=(float(rng.uniform(0.3, 3)), float(rng.uniform(0.3, 3))))
        cases.append((shape, ("bilinear", "bicubic")[i % 2], bool(i // 2 % 2),
                      bool(i // 4 % 2), resize))
    return cases


@pytest.mark.parametrize("shape,mode,antialias,align_corners,resize", _uint8_cases())
def test_uint8_interpolate_is_bit_exact(shape, mode, antialias, align_corners, resize):
    x = R.integers(0, 256, shape).astype(np.uint8)
    t = TF.interpolate(torch.tensor(x), mode=mode, antialias=antialias,
                       align_corners=align_corners, **resize)
    m = MF.interpolate(mg.tensor(x), mode=mode, antialias=antialias,
                       align_corners=align_corners, **resize)
    assert m.dtype == mg.uint8
    np.testing.assert_array_equal(m.numpy(), t.numpy())


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("size,align_corners", [((3, 9), False), ((12, 4), True),
                                                ((2, 2), False), ((7, 5), False)])
def test_antialias_on_floats(mode, size, align_corners):
    # (an output width of 1: test_antialias_to_width_one_is_the_two_separate_passes)
    x = R.standard_normal((2, 3, 8, 7))
    (t_out, t_grad), (m_out, m_grad) = _both("interpolate", x, size=size, mode=mode,
                                             antialias=True, align_corners=align_corners)
    for a, b in zip(m_out + m_grad, t_out + t_grad):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_integer_interpolation_torch_refuses_is_refused():
    for dtype, mode, shape in ((np.uint8, "linear", (1, 2, 5)), (np.int32, "bilinear",
                                                                 (1, 2, 4, 4))):
        x = np.ones(shape, dtype=dtype)
        t_err = raised(lambda: TF.interpolate(torch.tensor(x), scale_factor=2, mode=mode))
        m_err = raised(lambda: MF.interpolate(mg.tensor(x), scale_factor=2, mode=mode))
        assert t_err[0] is not None and m_err == t_err


def _bn_pair(cls, n):
    t, m = getattr(torch.nn, cls)(n).double(), getattr(mg.nn, cls)(n).double()
    with torch.no_grad():
        t.running_mean.copy_(torch.tensor(R.standard_normal(n)))
        t.running_var.copy_(torch.tensor(R.uniform(0.5, 2, n)))
        t.weight.copy_(torch.tensor(R.standard_normal(n)))
        t.bias.copy_(torch.tensor(R.standard_normal(n)))
    m.load_state_dict({k: mg.tensor(v.numpy().copy()) for k, v in t.state_dict().items()})
    return t.eval(), m.eval()


@pytest.mark.parametrize("layer,args,bn,transpose,shape", [
    ("Conv2d", (3, 4, 3), "BatchNorm2d", False, (2, 3, 6, 6)),
    ("Conv1d", (3, 4, 2, 1, 0, 1, 1, False), "BatchNorm1d", False, (2, 3, 5)),
    ("ConvTranspose2d", (3, 4, 2), "BatchNorm2d", True, (2, 3, 4, 4)),
    ("Linear", (5, 4), "BatchNorm1d", None, (3, 5)),
    ("Linear", (5, 4, False), "BatchNorm1d", None, (3, 5))])
def test_fusions(layer, args, bn, transpose, shape):
    t_layer = getattr(torch.nn, layer)(*args).double().eval()
    m_layer = getattr(mg.nn, layer)(*args).double().eval()
    m_layer.load_state_dict({k: mg.tensor(v.detach().numpy().copy())
                             for k, v in t_layer.state_dict().items()})
    t_bn, m_bn = _bn_pair(bn, 4)
    if transpose is None:
        t_fused = torch.nn.utils.fuse_linear_bn_eval(t_layer, t_bn)
        m_fused = mg.nn.utils.fuse_linear_bn_eval(m_layer, m_bn)
    else:
        t_fused = torch.nn.utils.fuse_conv_bn_eval(t_layer, t_bn, transpose)
        m_fused = mg.nn.utils.fuse_conv_bn_eval(m_layer, m_bn, transpose)
    x = R.standard_normal(shape)
    np.testing.assert_allclose(m_fused(mg.tensor(x)).detach().numpy(),
                               t_fused(torch.tensor(x)).detach().numpy(), 1e-12, 1e-12)
    assert [(n, p.requires_grad) for n, p in m_fused.named_parameters()] == \
        [(n, p.requires_grad) for n, p in t_fused.named_parameters()]
    assert m_layer.training is False and m_fused is not m_layer
    t_bn.train(), m_bn.train()
    assert raised(lambda: mg.nn.utils.fuse_conv_bn_eval(m_layer, m_bn)) == \
        raised(lambda: torch.nn.utils.fuse_conv_bn_eval(t_layer, t_bn))


def test_skip_init():
    m = mg.nn.utils.skip_init(mg.nn.Linear, 5, 3, bias=False)
    t = torch.nn.utils.skip_init(torch.nn.Linear, 5, 3, bias=False)
    assert repr(m) == repr(t)
    assert [(n, tuple(p.shape), p.requires_grad) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape), p.requires_grad) for n, p in t.named_parameters()]
    bn = mg.nn.utils.skip_init(mg.nn.BatchNorm1d, 4)
    assert sorted(bn.state_dict()) == sorted(torch.nn.BatchNorm1d(4).state_dict())
    for bad in (int, mg.nn.Identity):
        t_err = raised(lambda: torch.nn.utils.skip_init(
            {int: int, mg.nn.Identity: torch.nn.Identity}[bad]))
        m_err = raised(lambda: mg.nn.utils.skip_init(bad))
        assert m_err[0] is t_err[0] is RuntimeError


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 3, 3, 3), 2),
                                          ((4, 2, 3, 3, 3), 1)])
def test_dirac_and_eye_as_torch(shape, groups):
    t, m = torch.empty(shape), mg.empty(shape)
    torch.nn.init.dirac_(t, groups)
    mg.nn.init.dirac_(m, groups)
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    t2, m2 = torch.empty(3, 5), mg.empty(3, 5)
    np.testing.assert_array_equal(mg.nn.init.eye_(m2).numpy(), torch.nn.init.eye_(t2).numpy())


def test_sparse_zeroes_the_same_count_per_column_as_torch():
    t, m = torch.empty(10, 6), mg.empty(10, 6)
    torch.nn.init.sparse_(t, 0.3, std=0.02)
    mg.nn.init.sparse_(m, 0.3, std=0.02)
    assert ((m.numpy() == 0).sum(0) == (t.numpy() == 0).sum(0)).all()
    assert raised(lambda: mg.nn.init.sparse_(mg.empty(2, 3, 4), 0.1)) == \
        raised(lambda: torch.nn.init.sparse_(torch.empty(2, 3, 4), 0.1))


@pytest.mark.parametrize("nd,shape,kernel,resize", [
    (2, (2, 3, 9, 11), 2, dict(output_size=(4, 5))),
    (2, (3, 10, 7), (3, 2), dict(output_size=(5, 4))),
    (2, (2, 2, 8, 8), 3, dict(output_ratio=(0.5, 0.5))),
    (3, (2, 2, 7, 8, 9), 2, dict(output_size=(3, 4, 5))),
    (3, (2, 6, 7, 8), (2, 3, 2), dict(output_ratio=(0.5, 0.4, 0.7)))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fractional_max_pool_with_given_samples(nd, shape, kernel, resize, dtype):
    x = R.standard_normal(shape).astype(dtype)
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = R.random((batch, shape[-nd - 1], nd)).astype(dtype)
    (t_out, t_grad), (m_out, m_grad) = _fractional_both(nd, x, samples, kernel, resize)
    for a, b in zip(m_out + m_grad, t_out + t_grad):
        np.testing.assert_array_equal(a, b)
    t_mod = getattr(torch.nn, f"FractionalMaxPool{nd}d")(
        kernel, return_indices=True, _random_samples=torch.tensor(samples), **resize)
    m_mod = getattr(mg.nn, f"FractionalMaxPool{nd}d")(
        kernel, return_indices=True, _random_samples=mg.tensor(samples), **resize)
    assert repr(m_mod) == repr(t_mod)
    assert list(m_mod.state_dict()) == list(t_mod.state_dict())
    np.testing.assert_array_equal(m_mod(mg.tensor(x))[1].numpy(), t_out[1])


def _fractional_both(nd, x, samples, kernel, resize):
    results = []
    for lib, F in ((torch, TF), (mg, MF)):
        t = lib.tensor(x, requires_grad=True)
        values, indices = getattr(F, f"fractional_max_pool{nd}d")(
            t, kernel, return_indices=True, _random_samples=lib.tensor(samples), **resize)
        weights = np.random.default_rng(1).standard_normal(tuple(values.shape))
        (values * lib.tensor(weights.astype(x.dtype))).sum().backward()
        results.append(([values.detach().numpy(), indices.numpy()], [t.grad.numpy()]))
    return results


def test_fractional_max_pool_draws_fresh_windows_of_the_right_shape():
    x = mg.randn(2, 3, 10, 10, requires_grad=True)
    out = MF.fractional_max_pool2d(x, 3, output_ratio=0.5)
    assert out.shape == (2, 3, 5, 5)
    out.sum().backward()
    assert (x.grad.numpy() >= 0).all() and x.grad.numpy().sum() == 2 * 3 * 25


def _fractional_errors():
    return [
        (2, (2, 3, 4), dict(kernel_size=2), None),
        (2, (1, 2, 3, 5, 5), dict(kernel_size=2, output_size=2), None),
        (2, (2, 0, 5, 5), dict(kernel_size=2, output_size=2), None),
        (2, (1, 3, 4, 4), dict(kernel_size=3, output_size=3), None),
        (2, (1, 3, 5, 4), dict(kernel_size=3, output_size=(2, 3)), None),
        (2, (1, 3, 5, 5), dict(kernel_size=2, output_size=2), np.random.rand(1, 2, 2)),
        (2, (2, 3, 5, 5), dict(kernel_size=2, output_size=2), np.random.rand(1, 3, 2)),
        (2, (2, 3, 5, 5), dict(kernel_size=2, output_size=2), np.random.rand(2, 3)),
        (2, (2, 3, 5, 5), dict(kernel_size=2, output_size=2),
         np.random.rand(2, 3, 2).astype(np.float32)),
        (3, (1, 3, 5, 5), dict(kernel_size=2, output_size=2), None),
        (3, (2, 3, 5, 5, 5, 5), dict(kernel_size=2, output_size=2), None),
        (3, (2, 3, 0, 5, 5), dict(kernel_size=2, output_size=2), None),
        (3, (1, 3, 5, 5, 4), dict(kernel_size=2, output_size=(2, 2, 4)), None),
        (3, (1, 3, 6, 6, 6), dict(kernel_size=2, output_size=5), None),
    ]


@pytest.mark.parametrize("case", range(len(_fractional_errors())))
def test_fractional_max_pool_errors_are_torchs(case):
    nd, shape, kwargs, samples = _fractional_errors()[case]
    x = np.zeros(shape)

    def call(lib, F):
        extra = {} if samples is None else {"_random_samples": lib.tensor(samples)}
        return getattr(F, f"fractional_max_pool{nd}d")(lib.tensor(x), **kwargs, **extra)
    t_err, m_err = raised(lambda: call(torch, TF)), raised(lambda: call(mg, MF))
    assert t_err[0] is not None and m_err == t_err


@pytest.mark.parametrize("kwargs", [dict(), dict(output_size=2, output_ratio=0.5),
                                    dict(output_ratio=1.5)])
def test_fractional_max_pool_module_errors_are_torchs(kwargs):
    for nd in (2, 3):
        t_err = raised(lambda: getattr(torch.nn, f"FractionalMaxPool{nd}d")(2, **kwargs))
        m_err = raised(lambda: getattr(mg.nn, f"FractionalMaxPool{nd}d")(2, **kwargs))
        assert t_err[0] is not None and m_err == t_err


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_to_width_one_is_the_two_separate_passes(mode):
    # torch's float kernel gives every output row the first row's weights when the
    # output width is 1 (docs/divergences.md, antialias-width-one). Its width pass alone
    # is right, and so is its height pass on two identical columns: minigrad's one call
    # matches them
    x = R.standard_normal((1, 2, 11, 10))
    width_first = TF.interpolate(torch.tensor(x), size=(11, 1), mode=mode, antialias=True)
    expected = TF.interpolate(width_first.repeat(1, 1, 1, 2), size=(9, 2), mode=mode,
                              antialias=True)[..., :1]
    got = MF.interpolate(mg.tensor(x), size=(9, 1), mode=mode, antialias=True)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)
    one_call = TF.interpolate(torch.tensor(x), size=(9, 1), mode=mode, antialias=True)
    assert not np.allclose(one_call.numpy(), expected.numpy())


def _on(device, fn, *arrays):
    # (only the first input gets a gradient: the others are indices or samples)
    tensors = [mg.tensor(a).to(device).requires_grad_(i == 0 and a.dtype.kind == "f")
               for i, a in enumerate(arrays)]
    out = fn(*tensors)
    outs = out if isinstance(out, tuple) else (out,)
    if outs[0].requires_grad:
        (outs[0] * outs[0]).sum().backward()
    assert all(o.is_cuda == (device == "cuda") for o in outs)
    return [o.cpu().detach().numpy() for o in outs] + [t.grad.cpu().numpy() for t in tensors
                                                       if t.requires_grad]


GPU_CASES = {
    "adaptive_max_pool3d": (lambda x: MF.adaptive_max_pool3d(x, (2, 3, 2), True),
                            [R.standard_normal((2, 2, 4, 5, 4))]),
    "max_unpool3d": (lambda v, i: MF.max_unpool3d(v, i, 2),
                     [R.standard_normal((1, 2, 2, 2, 2)),
                      np.arange(16).reshape(1, 2, 2, 2, 2) * 3]),
    "fractional_max_pool2d": (lambda x, s: MF.fractional_max_pool2d(
        x, 2, (3, 4), return_indices=True, _random_samples=s),
        [R.standard_normal((2, 3, 7, 8)), R.random((2, 3, 2))]),
    "uint8 bicubic antialias": (lambda x: MF.interpolate(x, size=(5, 9), mode="bicubic",
                                                         antialias=True),
                                [R.integers(0, 256, (1, 3, 8, 6)).astype(np.uint8)]),
    "float bilinear antialias": (lambda x: MF.interpolate(x, size=(3, 4), mode="bilinear",
                                                          antialias=True),
                                 [R.standard_normal((1, 2, 8, 6))]),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
def test_on_the_fake_gpu_as_on_the_cpu(case, fake_gpu):
    fn, arrays = GPU_CASES[case]
    for a, b in zip(_on("cuda", fn, *arrays), _on("cpu", fn, *arrays)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
