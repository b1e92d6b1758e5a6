"""Optimizer bookkeeping: param groups, zero_grad, state_dict in PyTorch's format,
errors with PyTorch's types and texts, and user subclasses."""
import copy

import numpy as np
import pytest

import minigrad as mg
from minigrad import optim

torch = pytest.importorskip("torch")


def _params(n=3, seed=0):
    rng = np.random.default_rng(seed)
    return [mg.tensor(rng.standard_normal(4), requires_grad=True) for _ in range(n)]


def _backward(params, scale=1.0):
    loss = sum(((p - scale) ** 2 * (i + 1)).sum() for i, p in enumerate(params))
    loss.backward()


def test_param_groups_take_defaults_and_own_options():
    a, b, c = _params()
    opt = optim.SGD([{"params": [a, b]}, {"params": c, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["momentum"] == 0
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["params"] == [c]
    t = [torch.tensor(p._data.copy(), requires_grad=True) for p in (a, b, c)]
    t_opt = torch.optim.SGD([{"params": t[:2]}, {"params": t[2], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert sorted(opt.param_groups[1]) == sorted(t_opt.param_groups[1])
    for _ in range(5):
        opt.zero_grad(), t_opt.zero_grad()
        _backward([a, b, c]), _backward(t)
        opt.step(), t_opt.step()
    for p, q in zip((a, b, c), t):
        np.testing.assert_allclose(p._data, q.detach().numpy(), rtol=1e-12)


def test_add_param_group_and_its_errors():
    a, b, c = _params()
    opt = optim.Adam([a], lr=0.01)
    opt.add_param_group({"params": [b], "lr": 0.1})
    assert opt.param_groups[1]["betas"] == (0.9, 0.999) and len(opt.param_groups) == 2
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a, c]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([c])
    with pytest.raises(TypeError, match="ordering of tensors in sets will change"):
        opt.add_param_group({"params": {c}})


@pytest.mark.parametrize("make,error,message", [
    (lambda: optim.SGD(mg.tensor([1.0], requires_grad=True)), TypeError,
     "params argument given to the optimizer should be an iterable of Tensors or dicts"),
    (lambda: optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (lambda: optim.SGD([1.0], lr=0.1), TypeError, "optimizer can only optimize Tensors"),
    (lambda: optim.SGD([mg.tensor([1.0], requires_grad=True) * 2]), ValueError,
     "can't optimize a non-leaf Tensor"),
    (lambda: optim.SGD(_params(1), lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda: optim.SGD(_params(1), nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda: optim.Adam(_params(1), betas=(1.0, 0.9)), ValueError,
     "Invalid beta parameter at index 0: 1.0"),
    (lambda: optim.RMSprop(_params(1), alpha=-0.1), ValueError, "Invalid alpha value: -0.1"),
    (lambda: optim.Adadelta(_params(1), rho=1.5), ValueError, "Invalid rho value: 1.5"),
    (lambda: optim.LBFGS([{"params": _params(1)}, {"params": _params(1, 1)}]), ValueError,
     "LBFGS doesn't support per-parameter options"),
])
def test_constructor_errors_match_torch(make, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_zero_grad_sets_none_or_zeros():
    a, b, _ = _params()
    opt = optim.SGD([a, b], lr=0.1)
    _backward([a, b])
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad._data, 0.0)
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_state_dict_has_torchs_layout():
    mine = _params()
    theirs = [torch.tensor(p._data.copy(), requires_grad=True) for p in mine]
    opt = optim.Adam([{"params": mine[:2]}, {"params": mine[2:], "lr": 0.1}], amsgrad=True)
    t_opt = torch.optim.Adam([{"params": theirs[:2]}, {"params": theirs[2:], "lr": 0.1}], amsgrad=True)
    _backward(mine), _backward(theirs)
    opt.step(), t_opt.step()
    sd, t_sd = opt.state_dict(), t_opt.state_dict()
    assert sd["param_groups"] == t_sd["param_groups"]
    assert sd["state"].keys() == t_sd["state"].keys()
    for i in sd["state"]:
        assert sd["state"][i].keys() == t_sd["state"][i].keys()
        for key, value in sd["state"][i].items():
            np.testing.assert_allclose(value._data, t_sd["state"][i][key].numpy(), rtol=1e-12)
            assert str(value._data.dtype) == str(t_sd["state"][i][key].dtype).split(".")[1]


@pytest.mark.parametrize("name,options", [
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)), ("Adam", dict(lr=0.05, amsgrad=True)),
    ("AdamW", dict(lr=0.05)), ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
    ("Adagrad", dict(lr=0.1)), ("Adadelta", dict()), ("LBFGS", dict(history_size=5, max_iter=3)),
    ("Adamax", dict(lr=0.05)), ("NAdam", dict(lr=0.05)), ("RAdam", dict(lr=0.05)),
    ("Rprop", dict(lr=0.05))])
def test_state_dict_round_trip_mid_training_continues_identically(name, options):
    reference, resumed = _params(seed=1), _params(seed=1)
    opt = getattr(optim, name)(reference, **options)

    def run(o, params, steps):
        for _ in range(steps):
            def closure():
                o.zero_grad()
                loss = sum(((p - 1.0) ** 2 * (i + 1)).sum() for i, p in enumerate(params))
                loss.backward()
                return loss
            o.step(closure)

    run(opt, reference, 5)
    saved = copy.deepcopy(opt.state_dict())
    for p, q in zip(resumed, reference):
        p._data[...] = q._data
    opt2 = getattr(optim, name)(resumed, lr=123.0)  # loaded options replace these
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    run(opt, reference, 5)
    run(opt2, resumed, 5)
    # NAdam's float32 mu_product is cast to the parameters' float64 on load, as torch
    # does (only "step" keeps its dtype), so it continues to rounding, not to the bit.
    rtol = 1e-6 if name == "NAdam" else 0
    for p, q in zip(resumed, reference):
        np.testing.assert_allclose(p._data, q._data, rtol=rtol, atol=0)


def test_load_state_dict_does_not_share_buffers_with_the_dict():
    a = _params(1)
    opt = optim.SGD(a, lr=0.1, momentum=0.9)
    _backward(a)
    opt.step()
    sd = opt.state_dict()
    opt2 = optim.SGD(_params(1), lr=0.1, momentum=0.9)
    opt2.load_state_dict(sd)
    opt2.state[opt2.param_groups[0]["params"][0]]["momentum_buffer"]._data[...] = 7
    assert not np.any(sd["state"][0]["momentum_buffer"]._data == 7)


def test_load_state_dict_mismatch_errors():
    opt = optim.SGD(_params(2), lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    other = optim.SGD(_params(3), lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(other.state_dict())


def test_user_subclass_with_required_option_and_hooks():
    class PlainSGD(optim.Optimizer):
        def __init__(self, params, lr=optim.optimizer.required):
            super().__init__(params, {"lr": lr})

        @mg.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p -= group["lr"] * p.grad

    w = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    with pytest.raises(ValueError, match="didn't specify a value of required optimization parameter lr"):
        PlainSGD([w])
    opt = PlainSGD([w], lr=0.5)
    calls = []
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    handle = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    (w * w).sum().backward()
    opt.step()
    np.testing.assert_allclose(w._data, [0.0, 0.0])
    handle.remove()
    opt.step()
    assert calls == ["pre", "post", "pre"]
    assert w.requires_grad and w.is_leaf


def test_named_params_are_recorded():
    a, b, _ = _params()
    opt = optim.SGD([("a", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "NAdam", "RAdam", "Rprop"])
def test_differentiable_true_says_it_is_not_supported(name):
    with pytest.raises(NotImplementedError, match="do not support differentiable=True"):
        getattr(optim, name)(_params(1), lr=0.1, differentiable=True)


def test_deepcopied_and_pickled_optimizers_keep_working():
    import pickle
    w = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    opt = optim.LBFGS([w], history_size=3)

    def closure():
        opt.zero_grad()
        loss = ((w - 3) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert clone._params[0] is clone.param_groups[0]["params"][0]
        assert clone.state_dict()["state"][0]["n_iter"] == opt.state_dict()["state"][0]["n_iter"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "NAdam", "RAdam", "Rprop", "LBFGS"])
def test_lr_may_be_a_one_element_tensor(name):
    w = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        getattr(optim, name)([w], lr=mg.tensor([0.1, 0.2]))
    opt = getattr(optim, name)([w], lr=mg.tensor(0.05))
    t_opt = getattr(torch.optim, name)([t], lr=torch.tensor(0.05))

    def closure():
        opt.zero_grad()
        loss = ((w - 3) ** 2).sum()
        loss.backward()
        return loss

    def t_closure():
        t_opt.zero_grad()
        loss = ((t - 3) ** 2).sum()
        loss.backward()
        return loss
    for _ in range(3):
        opt.step(closure), t_opt.step(t_closure)
    np.testing.assert_allclose(w._data, t.detach().numpy(), rtol=1e-6)


def test_step_hooks_run_once_for_a_subclass_that_extends_step():
    class Counting(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    optim.SGD(_params(1), lr=0.1)  # SGD's own step is patched too
    a = _params(1)
    opt = Counting(a, lr=0.1)
    calls = []
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(1))
    _backward(a)
    opt.step()
    assert len(calls) == 2  # torch: the subclass's step and SGD's patched step both fire
    t_calls = []

    class TorchCounting(torch.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    t = torch.zeros(1, requires_grad=True)
    t_opt = TorchCounting([t], lr=0.1)
    t_opt.register_step_post_hook(lambda o, args, kwargs: t_calls.append(1))
    t.sum().backward()
    t_opt.step()
    assert len(calls) == len(t_calls)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_tensor_for_params_is_named_by_its_legacy_type_as_torch(dtype):
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (torch, mg):
        with pytest.raises(TypeError) as error:
            lib.optim.SGD(lib.nn.Parameter(lib.ones(2, dtype=getattr(lib, dtype))), lr=0.1)
        messages.append(str(error.value))
    assert messages[1] == messages[0].replace("torch", "minigrad")
