"""nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm,
orthogonal) and the legacy nn.utils.spectral_norm against torch (float64): state_dict
keys, reprs, values and gradients from the same weights, caching, removal, errors."""
import copy
import pickle

import numpy as np
import pytest

import minigrad as mg
from tests.unit.nn._torch_pair import raised

torch = pytest.importorskip("torch")

R = np.random.default_rng(11)


def _pair(layer, *args):
    """The same layer in both libraries, float64, with torch's weights."""
    t = getattr(torch.nn, layer)(*args).double()
    m = getattr(mg.nn, layer)(*args).double()
    _load(m, t)
    return m, t


def _load(m, t):
    m.load_state_dict({k: mg.tensor(v.detach().numpy().copy())
                       for k, v in t.state_dict().items()})


def _close(a, b, tol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT
    return Symmetric()


def _scale(lib, factor):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * factor

        def right_inverse(self, X):
            return X / factor
    return Scale()


def test_register_state_dict_repr_and_gradients():
    m, t = _pair("Linear", 3, 3)
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale(lib, 2.0))
    assert list(m.state_dict()) == list(t.state_dict())
    assert repr(m).replace("minigrad", "torch") == repr(t)
    assert type(m).__name__ == type(t).__name__ == "ParametrizedLinear"
    x = R.standard_normal((2, 3))
    out_m, out_t = m(mg.tensor(x)), t(torch.tensor(x))
    _close(out_m, out_t)
    out_m.pow(2).sum().backward()
    out_t.pow(2).sum().backward()
    _close(m.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad)
    assert mg.nn.utils.parametrize.is_parametrized(m, "weight")
    assert not mg.nn.utils.parametrize.is_parametrized(m, "bias")
    assert mg.nn.utils.parametrize.type_before_parametrizations(m) is mg.nn.Linear


def test_assignment_goes_through_right_inverse_and_keeps_the_parameter():
    m, t = _pair("Linear", 3, 2)
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale(lib, 3.0))
    original = m.parametrizations.weight.original
    value = R.standard_normal((2, 3))
    m.weight = mg.tensor(value)
    t.weight = torch.tensor(value)
    assert m.parametrizations.weight.original is original
    _close(m.parametrizations.weight.original, t.parametrizations.weight.original)
    _close(m.weight, t.weight)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    m, t = _pair("Linear", 3, 3)
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale(lib, 2.0))
    kept = m.parametrizations.weight.original
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrize.remove_parametrizations(mod, "weight", leave_parametrized=leave)
    assert type(m) is mg.nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is kept and isinstance(m.weight, mg.nn.Parameter)
    assert list(m.state_dict()) == list(t.state_dict())
    _close(m.weight, t.weight)


def test_cached_computes_once():
    calls = []

    class Counting(mg.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2

    m = mg.nn.Linear(2, 2)
    mg.nn.utils.parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with mg.nn.utils.parametrize.cached():
        first = m.weight
        assert m.weight is first
    assert len(calls) == 1
    assert m.weight is not first and len(calls) == 2


def test_copies_and_pickles_as_torch():
    m, t = _pair("Linear", 3, 3)
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale(lib, 2.0))
    replica = copy.deepcopy(m)
    _close(replica.weight, m.weight)
    assert replica.parametrizations.weight.original is not m.parametrizations.weight.original
    assert raised(lambda: pickle.dumps(m))[0] is raised(lambda: pickle.dumps(t))[0] \
        is RuntimeError


def test_errors_are_torchs():
    class Shrink(torch.nn.Module):
        def forward(self, X):
            return X[0]

    class MgShrink(mg.nn.Module):
        def forward(self, X):
            return X[0]

    m, t = _pair("Linear", 3, 3)
    pairs = [
        (lambda: torch.nn.utils.parametrize.register_parametrization(t, "nope", Shrink()),
         lambda: mg.nn.utils.parametrize.register_parametrization(m, "nope", MgShrink())),
        (lambda: torch.nn.utils.parametrize.register_parametrization(t, "weight", Shrink()),
         lambda: mg.nn.utils.parametrize.register_parametrization(m, "weight", MgShrink())),
        (lambda: torch.nn.utils.parametrize.remove_parametrizations(t, "bias"),
         lambda: mg.nn.utils.parametrize.remove_parametrizations(m, "bias")),
        (lambda: torch.nn.utils.parametrizations.orthogonal(t, orthogonal_map="qr"),
         lambda: mg.nn.utils.parametrizations.orthogonal(m, orthogonal_map="qr")),
        (lambda: torch.nn.utils.parametrizations.orthogonal(t, "bias"),
         lambda: mg.nn.utils.parametrizations.orthogonal(m, "bias")),
        (lambda: torch.nn.utils.parametrizations.spectral_norm(t, dim=2),
         lambda: mg.nn.utils.parametrizations.spectral_norm(m, dim=2)),
        (lambda: torch.nn.utils.spectral_norm(t, n_power_iterations=0),
         lambda: mg.nn.utils.spectral_norm(m, n_power_iterations=0)),
    ]
    for torch_call, mg_call in pairs:
        t_err, m_err = raised(torch_call), raised(mg_call)
        assert t_err[0] is not None and m_err[0] is t_err[0]
        assert m_err[1].replace("minigrad", "torch") == t_err[1]


@pytest.mark.parametrize("layer,args,dim", [("Linear", (4, 3), 0), ("Linear", (4, 3), None),
                                            ("Conv1d", (3, 2, 3), 1)])
def test_weight_norm(layer, args, dim):
    m, t = _pair(layer, *args)
    torch.nn.utils.parametrizations.weight_norm(t, dim=dim)
    mg.nn.utils.parametrizations.weight_norm(m, dim=dim)
    assert list(m.state_dict()) == list(t.state_dict())
    _load(m, t)
    shape = (2, 4) if layer == "Linear" else (2, 3, 5)
    x = R.standard_normal(shape)
    out_m, out_t = m(mg.tensor(x)), t(torch.tensor(x))
    _close(out_m, out_t)
    out_m.pow(2).sum().backward()
    out_t.pow(2).sum().backward()
    for name in ("original0", "original1"):
        _close(getattr(m.parametrizations.weight, name).grad,
               getattr(t.parametrizations.weight, name).grad)


def test_weight_norm_loads_the_hook_based_checkpoint():
    m, t = _pair("Linear", 4, 3)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(t)
    old = {k: mg.tensor(v.detach().numpy().copy()) for k, v in t.state_dict().items()}
    mg.nn.utils.parametrizations.weight_norm(m)
    m.load_state_dict(old)
    _close(m.weight, t.weight)


@pytest.mark.parametrize("layer,args", [("Linear", (5, 3)), ("Conv2d", (3, 4, 2)),
                                        ("ConvTranspose2d", (3, 4, 2))])
def test_spectral_norm_power_iteration(layer, args):
    m, t = _pair(layer, *args)
    torch.nn.utils.parametrizations.spectral_norm(t)
    mg.nn.utils.parametrizations.spectral_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    _load(m, t)   # the random start vectors
    shape = (2, 5) if layer == "Linear" else (2, 3, 4, 4)
    x = R.standard_normal(shape)
    for step in range(3):   # training forwards iterate the buffers
        out_m, out_t = m(mg.tensor(x)), t(torch.tensor(x))
        _close(out_m, out_t, 1e-10)
    out_m.pow(2).sum().backward()
    out_t.pow(2).sum().backward()
    _close(m.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad,
           1e-10)
    _close(m.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u, 1e-10)
    m.eval(), t.eval()
    _close(m.weight, t.weight, 1e-10)


@pytest.mark.parametrize("layer,args", [("Linear", (5, 3)), ("ConvTranspose1d", (3, 4, 2))])
def test_legacy_spectral_norm(layer, args):
    m, t = _pair(layer, *args)
    torch.nn.utils.spectral_norm(t)
    mg.nn.utils.spectral_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    assert m.state_dict()._metadata[""]["spectral_norm"] == \
        t.state_dict()._metadata[""]["spectral_norm"]
    _load(m, t)
    x = R.standard_normal((2, 5) if layer == "Linear" else (2, 3, 6))
    for step in range(3):
        out_m, out_t = m(mg.tensor(x)), t(torch.tensor(x))
        _close(out_m, out_t, 1e-10)
    out_m.pow(2).sum().backward()
    out_t.pow(2).sum().backward()
    _close(m.weight_orig.grad, t.weight_orig.grad, 1e-10)
    _close(m.weight_v, t.weight_v, 1e-10)
    torch.nn.utils.remove_spectral_norm(t)
    mg.nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    _close(m.weight, t.weight, 1e-10)
    assert raised(lambda: mg.nn.utils.remove_spectral_norm(m))[0] is ValueError


def test_legacy_spectral_norm_loads_version_0_checkpoints():
    m, t = _pair("Linear", 5, 3)
    torch.nn.utils.spectral_norm(t)
    mg.nn.utils.spectral_norm(m)
    t(torch.tensor(R.standard_normal((2, 5))))
    # a version-0 checkpoint: the computed weight saved, no weight_v
    old = {k: mg.tensor(v.detach().numpy().copy()) for k, v in t.state_dict().items()
           if k != "weight_v"}
    old["weight"] = mg.tensor(t.weight.detach().numpy().copy())
    m.load_state_dict(old)
    m.eval(), t.eval()
    m(mg.tensor(R.standard_normal((2, 5))))
    _close(m.weight, t.weight, 1e-10)


@pytest.mark.parametrize("shape,orth_map,trivial", [
    ((4, 4), None, True), ((5, 3), None, True), ((3, 5), "cayley", True),
    ((4, 4), "cayley", True), ((5, 3), "matrix_exp", True), ((3, 5), "householder", True),
    ((5, 3), "householder", False), ((3, 5), "householder", False)])
def test_orthogonal(shape, orth_map, trivial):
    m, t = _pair("Linear", shape[1], shape[0])
    torch.nn.utils.parametrizations.orthogonal(t, orthogonal_map=orth_map,
                                               use_trivialization=trivial)
    mg.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orth_map,
                                            use_trivialization=trivial)
    assert list(m.state_dict()) == list(t.state_dict())
    if shape[0] == shape[1] or not trivial:   # no random completion: the same start
        _close(m.weight, t.weight, 1e-10)
    with torch.no_grad():
        t.parametrizations.weight.original.normal_()
    _load(m, t)
    _close(m.weight, t.weight, 1e-10)
    weights = R.standard_normal(shape)
    (m.weight * mg.tensor(weights)).sum().backward()
    (t.weight * torch.tensor(weights)).sum().backward()
    _close(m.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad,
           1e-10)


def test_orthogonal_assignment_orthogonalizes():
    m, t = _pair("Linear", 4, 4)
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrizations.orthogonal(mod)
    value = R.standard_normal((4, 4))
    m.weight = mg.tensor(value)
    t.weight = torch.tensor(value)
    _close(m.weight, t.weight, 1e-10)
    _close(m.parametrizations.weight[0].base, t.parametrizations.weight[0].base, 1e-10)


def test_transfer_parametrizations_and_params():
    m, t = _pair("Linear", 3, 3)
    for lib, mod in ((torch, t), (mg, m)):
        lib.nn.utils.parametrizations.weight_norm(mod)
    m_to, t_to = _pair("Linear", 3, 3)
    torch.nn.utils.parametrize.transfer_parametrizations_and_params(t, t_to)
    mg.nn.utils.parametrize.transfer_parametrizations_and_params(m, m_to)
    assert list(m_to.state_dict()) == list(t_to.state_dict())
    assert m_to.parametrizations.weight.original1 is m.parametrizations.weight.original1
    _close(m_to.weight, t_to.weight)


@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_and_spectral_norm_on_the_fake_gpu(orth_map, fake_gpu):
    values = {}
    for device in ("cpu", "cuda"):
        mg.manual_seed(0)
        m = mg.nn.Linear(3, 5).double().to(device)
        mg.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orth_map)
        s = mg.nn.utils.parametrizations.spectral_norm(mg.nn.Linear(3, 4).double().to(device))
        out = (m.weight.sum() + s(mg.ones(2, 3, dtype=mg.float64, device=device)).sum())
        out.backward()
        assert m.weight.is_cuda == (device == "cuda")
        values[device] = [out.item(), m.parametrizations.weight.original.grad.cpu().numpy()]
    assert values["cpu"][0] == pytest.approx(values["cuda"][0], rel=1e-12)
    np.testing.assert_allclose(values["cuda"][1], values["cpu"][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("apply", ["orthogonal", "spectral_norm", "weight_norm"])
def test_training_steps_follow_torch(apply):
    m, t = _pair("Linear", 4, 4)
    for lib, mod in ((torch, t), (mg, m)):
        getattr(lib.nn.utils.parametrizations, apply)(mod)
    _load(m, t)
    opt_t = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    opt_m = mg.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    x, y = R.standard_normal((6, 4)), R.standard_normal((6, 4))
    for _ in range(4):
        for lib, mod, opt in ((torch, t, opt_t), (mg, m, opt_m)):
            opt.zero_grad()
            ((mod(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()
    _close(m.weight, t.weight, 1e-10)


def test_public_state_dict_hooks_as_torch():
    """The hooks torch's parametrize and many checkpoints rely on: calls, order, edits."""
    logs = {}
    for lib in (torch, mg):
        log = logs.setdefault(lib.__name__, [])
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
        net[0].register_state_dict_pre_hook(
            lambda m, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))

        def post(m, state, prefix, meta):
            log.append(("post", prefix, sorted(state)))
            state[prefix + "extra"] = state[prefix + "weight"]
        net[1].register_state_dict_post_hook(post)

        def load_pre(m, state, prefix, meta, strict, missing, unexpected, errors):
            log.append(("load_pre", prefix, strict))
            state.pop(prefix + "extra", None)
        net[1].register_load_state_dict_pre_hook(load_pre)

        def load_post(m, keys):
            log.append(("load_post", list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.unexpected_keys.clear()
        net.register_load_state_dict_post_hook(load_post)
        state = net.state_dict(keep_vars=True)
        log.append(sorted(state))
        state["surplus"] = state["0.bias"]
        net.load_state_dict(state)
        bad = net.register_state_dict_post_hook(lambda *args: {})
        log.append(raised(net.state_dict))
        bad.remove()
    assert logs["minigrad"] == logs["torch"]
