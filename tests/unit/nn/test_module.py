"""Module behaviour: registries, state_dict errors, hooks, modes, containers, repr."""
import copy
import pickle

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

torch = pytest.importorskip("torch")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Linear(3, 2)
        self.register_buffer("scale", mg.ones(2))
        self.register_buffer("scratch", mg.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.bn(self.act(self.fc1(x)))) * self.scale


def test_registries_and_traversal():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == \
        ["fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in net.named_buffers()] == \
        ["scale", "scratch", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "bn", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "bn", "fc2"]
    assert list(net.state_dict()) == ["scale", "fc1.weight", "fc1.bias", "bn.weight",
                                      "bn.bias", "bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked", "fc2.weight", "fc2.bias"]
    shared = nn.Sequential(net.fc1, net.fc1)
    assert len(list(shared.parameters())) == 2
    del net.fc2
    assert "fc2" not in dict(net.named_children())
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'fc2'"):
        net.fc2


def test_setattr_errors_match_torch():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'minigrad.FloatTensor' as parameter "
                                        r"'weight' \(torch.nn.Parameter or None expected\)"):
        lin.weight = mg.zeros(2, 2)
    lin.weight = nn.Parameter(mg.zeros(2, 2))
    assert np.all(lin.weight.detach().numpy() == 0)
    lin.bias = None
    assert [n for n, _ in lin.named_parameters()] == ["weight"]


def torch_message(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value).replace("torch.Size", "minigrad.Size")


def test_load_state_dict_strict_errors_match_torch():
    t_lin = torch.nn.Linear(2, 2)
    m_lin = nn.Linear(2, 2)
    bad_t = {"weight": torch.zeros(3, 2), "foo": torch.zeros(1)}
    bad_m = {"weight": mg.zeros(3, 2), "foo": mg.zeros(1)}
    expected = torch_message(lambda: t_lin.load_state_dict(bad_t))
    with pytest.raises(RuntimeError) as info:
        m_lin.load_state_dict(bad_m)
    assert str(info.value) == expected
    result = m_lin.load_state_dict({"weight": mg.ones(2, 2)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == []
    assert repr(result) == repr(t_lin.load_state_dict({"weight": torch.ones(2, 2)},
                                                      strict=False))
    assert np.all(m_lin.weight.detach().numpy() == 1)
    assert repr(m_lin.load_state_dict(m_lin.state_dict())) == "<All keys matched successfully>"


def test_state_dict_round_trip_from_torch_and_back():
    torch.manual_seed(0)
    t_net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
    m_net = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    m_net.load_state_dict(t_net.state_dict())  # torch tensors load directly
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(m_net(mg.tensor(x)).detach().numpy(),
                               t_net(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    back = {k: torch.tensor(v.numpy()) for k, v in m_net.state_dict().items()}
    t_net.load_state_dict(back)
    assert repr(m_net) == repr(t_net)


def test_state_dict_shares_storage_and_is_detached():
    lin = nn.Linear(2, 2)
    sd = lin.state_dict()
    assert not sd["weight"].requires_grad
    sd["weight"].zero_()
    assert np.all(lin.weight.detach().numpy() == 0)


def test_parameter_squared_backward_twice_errors():
    p = nn.Parameter(mg.rand(3))
    assert repr(p).startswith("Parameter containing:\ntensor(")
    y = p ** 2
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()


def test_zero_grad():
    lin = nn.Linear(3, 2)
    lin(mg.ones(1, 3)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad(set_to_none=False)
    assert np.all(lin.weight.grad.numpy() == 0)
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


@pytest.mark.parametrize("lib_name", ["minigrad", "torch"])
def test_zero_grad_of_a_broadcast_gradient_gives_zeros(lib_name):
    # A .grad that is an expanded (read-only) tensor is zeroed, as PyTorch's zero_grad does
    lib = mg if lib_name == "minigrad" else pytest.importorskip("torch")
    lin = lib.nn.Linear(3, 2)
    lin.bias.grad = lib.ones(1).expand(2)
    lin.zero_grad(set_to_none=False)
    assert lin.bias.grad.tolist() == [0.0, 0.0]


def run_hooks(lib, module_cls):
    """The talk's example: forward pre/post hooks and full backward (pre-)hooks."""
    log = []
    lin = module_cls(3, 2).double()
    lin.register_forward_pre_hook(lambda m, args: log.append(("pre", args[0].shape[0])))
    lin.register_forward_hook(lambda m, args, out: out * 2)
    lin.register_full_backward_pre_hook(
        lambda m, gout: log.append(("bpre", gout[0].numpy().round(6).tolist())))

    def bhook(m, gin, gout):
        log.append(("back", gin[0].numpy().round(6).tolist(), gout[0].numpy().round(6).tolist()))
        return (gin[0] * 10,)
    handle = lin.register_full_backward_hook(bhook)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3)))
        lin.bias.zero_()
    x = lib.tensor(np.ones((1, 3)), requires_grad=True)
    out = lin(x)
    out.sum().backward()
    log.append(("xgrad", x.grad.numpy().tolist(), out.detach().numpy().tolist()))
    handle.remove()
    x.grad = None
    lin(x).sum().backward()
    log.append(("removed", x.grad.numpy().tolist()))
    return log


def test_hooks_match_torch():
    assert run_hooks(mg, nn.Linear) == run_hooks(torch, torch.nn.Linear)


def test_backward_hook_without_input_grad():
    calls = []
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gin, gout: calls.append((gin, gout[0].shape)))
    lin(mg.ones(1, 2)).sum().backward()
    assert calls == [((None,), (1, 2))]


def test_train_eval_apply_to_and_requires_grad():
    net = Net()
    assert net.training and net.bn.training
    net.eval()
    assert not net.training and not net.bn.training
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "BatchNorm1d", "Linear", "Net"]
    net.double()
    assert net.fc1.weight.dtype == mg.float64 and isinstance(net.fc1.weight, nn.Parameter)
    assert net.bn.num_batches_tracked.dtype == mg.int64
    net.to(mg.float32)
    assert net.fc1.weight.dtype == mg.float32
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_deepcopy_and_pickle():
    net = Net()
    clone = copy.deepcopy(net)
    x = mg.randn(5, 4)
    np.testing.assert_array_equal(clone(x).detach().numpy(), net(x).detach().numpy())
    again = pickle.loads(pickle.dumps(net))
    assert list(again.state_dict()) == list(net.state_dict())


def test_container_reprs_match_torch():
    mg_list = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    t_list = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU()])
    assert repr(mg_list) == repr(t_list)
    mg_dict = nn.ModuleDict({"a": nn.Tanh(), "b": nn.Linear(1, 2)})
    t_dict = torch.nn.ModuleDict({"a": torch.nn.Tanh(), "b": torch.nn.Linear(1, 2)})
    assert repr(mg_dict) == repr(t_dict)
    plist = nn.ParameterList([mg.zeros(2), nn.Parameter(mg.ones(3, 2))])
    tlist = torch.nn.ParameterList([torch.zeros(2), torch.nn.Parameter(torch.ones(3, 2))])
    assert repr(plist) == repr(tlist).replace("torch.", "minigrad.")
    assert [n for n, _ in plist.named_parameters()] == ["0", "1"]
    pdict = nn.ParameterDict({"w": mg.zeros(2)})
    assert [n for n, _ in pdict.named_parameters()] == ["w"]
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and len(seq[:2]) == 2


def test_clip_and_vector_utils_match_torch():
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    results = []
    for lib, utils in ((mg, nn.utils), (torch, torch.nn.utils)):
        ps = [lib.tensor(g * 0, requires_grad=True) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g)
        total = utils.clip_grad_norm_(ps, 1.5)
        vec = utils.parameters_to_vector(ps)
        utils.vector_to_parameters(vec.detach() + 1, ps)
        utils.clip_grad_value_(ps, 0.3)
        results.append([total.numpy()] + [p.grad.numpy() for p in ps]
                       + [p.detach().numpy() for p in ps])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_init_functions():
    torch.manual_seed(0)
    w = mg.empty(50, 40)
    nn.init.xavier_uniform_(w)
    bound = (6 / 90) ** 0.5
    assert abs(w.numpy()).max() <= bound
    nn.init.orthogonal_(w)
    np.testing.assert_allclose(w.numpy().T @ w.numpy(), np.eye(40), atol=1e-5)
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert abs(w.numpy()).max() <= 0.5
    nn.init.eye_(w)
    assert np.array_equal(w.numpy(), np.eye(50, 40, dtype=np.float32))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain(
        "leaky_relu", 0.2)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(mg.empty(3))


@pytest.mark.parametrize("make", [
    lambda nn: nn.Sequential(nn.Linear(2, 2), nn.ReLU()),   # iterable Modules: accepted
    lambda nn: nn.Linear(2, 2),                              # not iterable
    lambda nn: nn.ModuleDict({"a": nn.ReLU()}),             # iterates its keys
], ids=["Sequential", "Linear", "ModuleDict"])
def test_module_list_extend_takes_what_torch_takes(make):
    outcomes = []
    for lib in (mg, torch):
        try:
            outcomes.append(len(lib.nn.ModuleList().extend(make(lib.nn))))
        except TypeError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("sparsity", [0.0, 0.1, 0.5, 1.0])
def test_init_sparse_zeros_a_fraction_of_each_column_as_torch(sparsity):
    # streams differ: compare each column's count of zeros and the spread of the rest
    ours = nn.init.sparse_(nn.Parameter(mg.empty(40, 6)), sparsity, std=0.5)
    theirs = torch.nn.init.sparse_(torch.nn.Parameter(torch.empty(40, 6)), sparsity, std=0.5)
    assert ours.requires_grad and ours.grad_fn is None
    assert (ours == 0).sum(0).tolist() == (theirs == 0).sum(0).tolist()
    nonzero = ours.detach().numpy()[ours.detach().numpy() != 0]
    assert nonzero.size == 0 or 0.3 < nonzero.std() < 0.7
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.sparse_(mg.empty(3), sparsity)


def _parameter_containers(lib):
    class Holder(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2))])
            self.linear = lib.nn.Linear(1, 1)

    one = lib.nn.Parameter(lib.ones(2, 3, dtype=lib.float64))
    return [lib.nn.ParameterList([one]), lib.nn.ParameterList([one, lib.ones(1)]),
            lib.nn.ParameterList(), lib.nn.ParameterDict({"a": one}),
            lib.nn.ParameterDict({"a": one, "b": lib.nn.Parameter(lib.ones(1))}), Holder()]


@pytest.mark.parametrize("case", range(6))
def test_parameter_containers_print_as_torch(case):
    # one entry prints on the container's line, as any module with a one-line extra_repr;
    # ParameterDict names the legacy type (FloatTensor), ParameterList the dtype
    ours = repr(_parameter_containers(mg)[case])
    assert ours == repr(_parameter_containers(torch)[case]).replace("torch", "minigrad")


def test_an_output_of_a_module_with_a_full_backward_hook_prints_as_torch():
    outputs = []
    for lib in (torch, mg):
        lin = lib.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gin, gout: None)
        outputs.append(type(lin(lib.ones(1, 2, requires_grad=True)).grad_fn).__name__)
    assert outputs[1] == outputs[0]


def _assigned(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    model[0].bias.requires_grad_(False)
    state = {k: v.clone().double() + 1 for k, v in model.state_dict().items()}
    result = model.load_state_dict(state, assign=True)
    return model, state, result


def test_load_state_dict_assign_replaces_the_tensors_as_torch():
    (ours, our_state, our_result), (theirs, _, their_result) = _assigned(mg), _assigned(torch)
    assert repr(our_result) == repr(their_result)
    assert isinstance(ours[0].weight, nn.Parameter) and not ours[0].bias.requires_grad
    assert ours[1].running_mean is our_state["1.running_mean"]
    assert repr(ours) == repr(theirs).replace("torch", "minigrad")
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert p.dtype == mg.float64 and p.requires_grad == q.requires_grad, name
        np.testing.assert_array_equal(p.detach().numpy(), our_state[name].numpy())
    our_state["0.weight"].zero_()  # the checkpoint's storage itself, as torch
    assert not ours[0].weight.detach().numpy().any()
