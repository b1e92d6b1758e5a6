"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*,
LazyInstanceNorm*) and Uninitialized{Parameter,Buffer} against torch: reprs and
state_dicts before the first forward, the eager class and shapes after it, the eager
module's initialisation, loading, optimizers given the placeholders, and errors."""
import copy

import numpy as np
import pytest

import minigrad as mg
from tests.unit.nn._torch_pair import raised

torch = pytest.importorskip("torch")

R = np.random.default_rng(5)

CASES = [
    ("LazyLinear", (3,), (2, 4), "Linear", (4, 3)),
    ("LazyLinear", (3, False), (2, 5, 4), "Linear", (4, 3, False)),
    ("LazyConv1d", (4, 3), (2, 3, 6), "Conv1d", (3, 4, 3)),
    ("LazyConv2d", (4, 3), (3, 5, 5), "Conv2d", (3, 4, 3)),
    ("LazyConv3d", (2, 2, 1, 0, 1, 2), (1, 4, 3, 3, 3), "Conv3d", (4, 2, 2, 1, 0, 1, 2)),
    ("LazyConvTranspose1d", (4, 3), (2, 3, 5), "ConvTranspose1d", (3, 4, 3)),
    ("LazyConvTranspose2d", (4, 3, 2), (2, 3, 4, 4), "ConvTranspose2d", (3, 4, 3, 2)),
    ("LazyConvTranspose3d", (2, 2), (1, 3, 3, 3, 3), "ConvTranspose3d", (3, 2, 2)),
    ("LazyBatchNorm1d", (), (4, 3), "BatchNorm1d", (3,)),
    ("LazyBatchNorm2d", (1e-3, 0.2), (2, 3, 4, 4), "BatchNorm2d", (3, 1e-3, 0.2)),
    ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2), "BatchNorm3d", (3,)),
    ("LazyInstanceNorm1d", (), (2, 3, 5), "InstanceNorm1d", (3, 1e-5, 0.1, True, True)),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4), "InstanceNorm2d", (3, 1e-5, 0.1, True, True)),
    ("LazyInstanceNorm3d", (), (2, 3, 2, 2, 2), "InstanceNorm3d",
     (3, 1e-5, 0.1, True, True)),
]


def _state_reprs(module):
    return {k: repr(v) if mg.nn.parameter.is_lazy(v) or isinstance(
        v, torch.nn.parameter.UninitializedTensorMixin) else tuple(v.shape)
        for k, v in module.state_dict().items()}


@pytest.mark.parametrize("name,args,shape,eager,eager_args", CASES)
def test_materializes_as_torch(name, args, shape, eager, eager_args):
    t, m = getattr(torch.nn, name)(*args), getattr(mg.nn, name)(*args)
    assert repr(m) == repr(t)
    assert _state_reprs(m) == _state_reprs(t)
    assert m.has_uninitialized_params()
    x = R.standard_normal(shape)
    t(torch.tensor(x, dtype=torch.float32))
    m(mg.tensor(x, dtype=mg.float32))
    assert type(m).__name__ == type(t).__name__ == eager
    assert repr(m) == repr(t)
    assert _state_reprs(m) == _state_reprs(t)
    assert [p.dtype for p in m.parameters()] == [mg.float32] * len(list(t.parameters()))
    # the same weights give the same outputs and gradients
    m.load_state_dict({k: mg.tensor(v.detach().numpy().copy())
                       for k, v in t.state_dict().items()})
    out_m, out_t = m(mg.tensor(x, dtype=mg.float32)), t(torch.tensor(x, dtype=torch.float32))
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), 1e-5, 1e-5)


@pytest.mark.parametrize("name,args,shape,eager,eager_args", CASES)
def test_initialised_like_the_eager_module(name, args, shape, eager, eager_args):
    mg.manual_seed(3)
    eager_module = getattr(mg.nn, eager)(*eager_args)
    mg.manual_seed(3)
    lazy = getattr(mg.nn, name)(*args).eval()   # (no running-statistics update)
    lazy(mg.tensor(R.standard_normal(shape), dtype=mg.float32))
    for key, value in eager_module.state_dict().items():
        np.testing.assert_array_equal(lazy.state_dict()[key].numpy(), value.numpy(), key)


def test_placeholders_refuse_as_torch():
    t, m = torch.nn.LazyLinear(3), mg.nn.LazyLinear(3)
    for call_t, call_m in [(lambda: t.weight.shape, lambda: m.weight.shape),
                           (lambda: t.weight + 1, lambda: m.weight + 1),
                           (lambda: torch.nn.functional.linear(torch.ones(2, 4), t.weight),
                            lambda: mg.nn.functional.linear(mg.ones(2, 4), m.weight))]:
        t_err, m_err = raised(call_t), raised(call_m)
        assert t_err[0] is not None and m_err[0] is t_err[0]
        assert "uninitialized parameter" in m_err[1]
    assert raised(lambda: m.weight.shape)[1] == raised(lambda: t.weight.shape)[1]
    # a checkpoint of an uninitialized module cannot fill an initialized one
    eager_t, eager_m = torch.nn.Linear(4, 3), mg.nn.Linear(4, 3)
    t_err = raised(lambda: eager_t.load_state_dict(t.state_dict()))
    m_err = raised(lambda: eager_m.load_state_dict(m.state_dict()))
    assert m_err == t_err


@pytest.mark.parametrize("name,args,shape", [
    ("LazyConv2d", (4, 3), (2, 3)), ("LazyConv2d", (4, 3, 1, 0, 1, 2), (1, 3, 5, 5)),
    ("LazyConvTranspose1d", (4, 3), (1, 2, 3, 4, 5))])
def test_bad_first_input_errors_are_torchs(name, args, shape):
    t, m = getattr(torch.nn, name)(*args), getattr(mg.nn, name)(*args)
    x = R.standard_normal(shape)
    t_err = raised(lambda: t(torch.tensor(x, dtype=torch.float32)))
    m_err = raised(lambda: m(mg.tensor(x, dtype=mg.float32)))
    assert t_err[0] is not None and m_err[0] is t_err[0]
    assert m_err[1].replace("minigrad", "torch") == t_err[1]


def test_optimizer_given_placeholders_steps_the_materialized_parameters():
    t, m = torch.nn.LazyLinear(2), mg.nn.LazyLinear(2)
    opt_t = torch.optim.SGD(t.parameters(), lr=0.5, momentum=0.9)
    opt_m = mg.optim.SGD(m.parameters(), lr=0.5, momentum=0.9)
    x = R.standard_normal((3, 4))
    t(torch.tensor(x, dtype=torch.float32))
    m(mg.tensor(x, dtype=mg.float32))
    m.load_state_dict({k: mg.tensor(v.detach().numpy().copy())
                       for k, v in t.state_dict().items()})
    for _ in range(2):
        for opt, mod, lib in ((opt_t, t, torch), (opt_m, m, mg)):
            opt.zero_grad()
            mod(lib.tensor(x, dtype=lib.float32)).pow(2).sum().backward()
            opt.step()
    np.testing.assert_allclose(m.weight.detach().numpy(), t.weight.detach().numpy(), 1e-5)


def test_loading_materializes_without_a_forward():
    t, m = torch.nn.LazyLinear(3), mg.nn.LazyLinear(3)
    source = torch.nn.Linear(4, 3)
    t.load_state_dict(source.state_dict())
    m.load_state_dict({k: mg.tensor(v.detach().numpy().copy())
                       for k, v in source.state_dict().items()})
    assert repr(m) == repr(t)   # still lazy, as torch: in_features is set by a forward
    np.testing.assert_array_equal(m.weight.detach().numpy(), t.weight.detach().numpy())
    assert not m.has_uninitialized_params()


def test_conversions_and_copies_keep_the_placeholders():
    m = mg.nn.LazyBatchNorm1d().double()
    assert mg.nn.parameter.is_lazy(m.weight) and m.weight.dtype == mg.float64
    assert mg.nn.parameter.is_lazy(m.running_mean) and m.running_mean.dtype == mg.float64
    replica = copy.deepcopy(m)
    assert repr(replica.weight) == "<UninitializedParameter>"
    m(mg.tensor(R.standard_normal((4, 3))))
    assert m.weight.dtype == m.running_var.dtype == mg.float64
    assert type(m.running_mean) is mg.Tensor


def test_materializes_on_the_placeholders_device(fake_gpu):
    m = mg.nn.LazyConv2d(4, 3, device="cuda")
    bn = mg.nn.LazyBatchNorm2d().to("cuda")
    y = bn(m(mg.ones(2, 3, 5, 5, device="cuda")))
    assert m.weight.is_cuda and m.weight.shape == (4, 3, 3, 3)
    assert bn.running_mean.is_cuda and y.is_cuda


def test_a_placeholder_state_dict_loads_into_a_lazy_module_as_torch():
    t, m = torch.nn.LazyLinear(3), mg.nn.LazyLinear(3)
    assert raised(lambda: t.load_state_dict(torch.nn.LazyLinear(3).state_dict())) == \
        (None, None)
    assert raised(lambda: m.load_state_dict(mg.nn.LazyLinear(3).state_dict())) == \
        (None, None)
    assert m.has_uninitialized_params()


def test_legacy_spectral_norm_refuses_placeholders_as_torch():
    t_err = raised(lambda: torch.nn.utils.spectral_norm(torch.nn.LazyLinear(3)))
    m_err = raised(lambda: mg.nn.utils.spectral_norm(mg.nn.LazyLinear(3)))
    assert t_err[0] is ValueError and m_err == t_err
