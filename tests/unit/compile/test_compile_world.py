"""A compiled function follows what it reads besides its arguments (compile/world.py): a
replaced submodule or parameter, a module's changed attribute, a closure's or global's new
value is traced again, never used at its old value.  Each case compares with eager.  And
Python side effects (a module attribute set in forward, a closure's or global's list or
dict changed, print) make the function run eagerly: the generated code would skip them."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.compile import GraphBreak

X = mg.tensor(np.arange(6.0).reshape(2, 3) / 10, dtype=mg.float32)


def _outputs_and_grads(fn, module):
    module.zero_grad()
    out = fn(X)
    out.sum().backward()
    return out.detach().numpy(), [p.grad.numpy().copy() for p in module.parameters()]


def _assert_follows(module, change, times=2):
    """After each ``change(module)``, the compiled module gives eager's values and
    gradients (the gradients reach the module's current parameters)."""
    compiled = mg.compile(module)
    for step in range(times + 1):
        if step:
            change(module, step)
        expected, expected_grads = _outputs_and_grads(module, module)
        out, grads = _outputs_and_grads(compiled, module)
        np.testing.assert_allclose(out, expected, rtol=1e-6)
        for g, e in zip(grads, expected_grads):
            np.testing.assert_allclose(g, e, rtol=1e-6)


def _replace_submodule(model, step):
    model[0] = nn.Linear(3, 2)


def _rebind_parameter(model, step):
    model[0].weight = nn.Parameter(mg.ones(2, 3) * step)


def _new_bias_buffer(model, step):
    model[0].bias = None if step == 1 else nn.Parameter(mg.ones(2))


class _Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.scale = 1.0

    def forward(self, x):
        return self.lin(x) * self.scale

    def __getitem__(self, index):
        return self.lin


@pytest.mark.parametrize("change", [_replace_submodule, _rebind_parameter, _new_bias_buffer])
def test_module_surgery_is_followed(change):
    mg.manual_seed(0)
    _assert_follows(nn.Sequential(nn.Linear(3, 2), nn.Tanh()), change)


def test_a_modules_number_attribute_is_followed():
    mg.manual_seed(0)
    _assert_follows(_Scaled(), lambda model, step: setattr(model, "scale", 1.5 * step))


def test_a_convolutions_stride_is_followed():
    mg.manual_seed(0)
    conv = nn.Conv1d(1, 1, 2)
    compiled = mg.compile(conv)
    x = mg.tensor(np.arange(8.0, dtype=np.float32).reshape(1, 1, 8))
    assert compiled(x).shape == (1, 1, 7)
    conv.stride = (2,)
    np.testing.assert_allclose(compiled(x).detach().numpy(), conv(x).detach().numpy())


def test_setting_the_same_values_again_reuses_the_code():
    mg.manual_seed(0)
    model = _Scaled()
    compiled = mg.compile(model)
    compiled(X)
    for _ in range(3):
        model.scale = 1.0
        model.train()
        compiled(X)
    assert compiled.explain().count("compiled:") == 1


class _TrainingScale(nn.Module):
    def forward(self, x):
        return x * (2.0 if self.training else 3.0)


def test_train_and_eval_alternate_between_two_compilations():
    model = nn.Sequential(nn.Tanh(), _TrainingScale())
    compiled = mg.compile(model)
    for training in (True, False, True, False):
        model.train(training)
        np.testing.assert_allclose(compiled(X).numpy(), model(X).numpy(), rtol=1e-6)
    assert compiled.explain().count("compiled:") == 2


def test_a_closures_new_tensor_is_followed():
    weight = mg.ones(3)

    def scaled(x):
        return x * weight
    compiled = mg.compile(scaled)
    np.testing.assert_allclose(compiled(X).numpy(), X.numpy())
    weight = mg.ones(3) * 5   # noqa: F841 - read by scaled's closure
    np.testing.assert_allclose(compiled(X).numpy(), X.numpy() * 5)


POWER = 2


def _power(x):
    return x ** POWER


def test_a_globals_new_value_is_followed():
    global POWER
    compiled = mg.compile(_power)
    try:
        for power in (2, 3, 2):
            POWER = power
            np.testing.assert_allclose(compiled(X).numpy(), X.numpy() ** power, rtol=1e-6)
    finally:
        POWER = 2
    assert compiled.explain().count("compiled:") == 2


def test_a_global_changing_every_call_stops_at_the_cache_limit():
    global POWER
    compiled = mg.compile(_power)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for power in range(1, mg.compile.cache_size_limit + 4):
                POWER = power
                np.testing.assert_allclose(compiled(X).numpy(), X.numpy() ** power,
                                           rtol=1e-5)
    finally:
        POWER = 2
    assert compiled.explain().count("compiled:") == mg.compile.cache_size_limit
    assert any("new ones run eagerly" in str(w.message) for w in caught)


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(mg.ones(3))

    @mg.compile
    def forward(self, x):
        return x * self.weight


class _PlainNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(mg.ones(3))

    def forward(self, x):
        return x * self.weight


@pytest.mark.parametrize("how", ["decorated method", "bound method", "module argument"])
def test_a_module_reached_as_self_or_argument_is_followed(how):
    net = _Net() if how == "decorated method" else _PlainNet()
    call = {"decorated method": net,
            "bound method": mg.compile(net.forward),
            "module argument": lambda x, c=mg.compile(lambda m, x: x * m.weight): c(net, x)}[how]
    np.testing.assert_allclose(call(X).detach().numpy(), X.numpy())
    net.weight = nn.Parameter(mg.ones(3) * 4)
    np.testing.assert_allclose(call(X).detach().numpy(), X.numpy() * 4)


# ---------------------------------------------------------------- Python side effects
class _Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.calls = 0

    def forward(self, x):
        out = self.lin(x)
        self.last = out.detach()
        self.calls += 1
        return out


def test_a_forward_that_sets_attributes_runs_every_call():
    model = _Counting()
    compiled = mg.compile(model)
    for i in range(3):
        out = compiled(X * i)
    assert model.calls == 3
    np.testing.assert_array_equal(model.last.numpy(), out.detach().numpy())


CACHE = []


def _appends_to_a_global(x):
    y = x * 2
    CACHE.append(y)
    return y + 1


def test_side_effects_on_closures_and_globals_run_every_call(capsys):
    kept = {}

    def stores(x):
        kept[len(kept)] = x.exp()
        return x + 1

    def prints(x):
        print("called")
        return x + 1
    count = [0]

    def counts(x):
        count[0] += 1
        return x * count[0]
    for fn in (_appends_to_a_global, stores, prints, counts):
        compiled = mg.compile(fn)
        for _ in range(3):
            compiled(X)
    assert len(CACHE) == 3 and len(kept) == 3 and count[0] == 3
    assert capsys.readouterr().out.count("called") == 3
    CACHE.clear()


def test_fullgraph_names_the_side_effect():
    with pytest.raises(GraphBreak, match="changed 'CACHE'"):
        mg.compile(_appends_to_a_global, fullgraph=True)(X)
    CACHE.clear()
