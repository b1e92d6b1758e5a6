"""minigrad.func.functional_call against torch.func.functional_call."""
import numpy as np
import pytest

import minigrad as mg
from tests.unit.func._both import compare, randn, same_error, torch


def linear(L):
    net = L.nn.Linear(3, 2).double()
    with L.no_grad():
        net.weight.copy_(randn(L, 2, 3))
        net.bias.copy_(randn(L, 2, seed=1))
    return net


def test_swapped_parameters_are_used_and_restored():
    def program(L):
        net = linear(L)
        params = {"weight": randn(L, 2, 3, seed=5), "bias": randn(L, 2, seed=6)}
        out = L.func.functional_call(net, params, (randn(L, 4, 3, seed=7),))
        return out, net.weight, net(randn(L, 1, 3, seed=8))
    compare(program)


def test_one_tensor_arg_kwargs_and_a_sequence_of_dicts():
    def program(L):
        net = linear(L)
        parts = ({"weight": randn(L, 2, 3, seed=5)}, {"bias": randn(L, 2, seed=6)})
        return (L.func.functional_call(net, parts, randn(L, 3, seed=7)),
                L.func.functional_call(net, {}, (), {"input": randn(L, 3, seed=7)}))
    compare(program)


def test_grad_with_respect_to_parameters_through_functional_call():
    def program(L):
        net = linear(L)
        params = {k: v.detach() for k, v in net.named_parameters()}
        x, y = randn(L, 5, 3, seed=2), randn(L, 5, 2, seed=3)

        def loss(params):
            return ((L.func.functional_call(net, params, (x,)) - y) ** 2).mean()
        return L.func.grad(loss)(params), L.func.jacrev(
            lambda p: L.func.functional_call(net, p, (x,)))(params)
    compare(program)


def test_buffers_are_swapped_and_the_module_is_restored_after_an_error():
    for L in (mg, torch):
        bn = L.nn.BatchNorm1d(2).double().eval()
        mean = L.tensor([10.0, 20.0], dtype=L.float64)
        zeros = L.zeros(3, 2, dtype=L.float64)
        out = L.func.functional_call(bn, {"running_mean": mean}, (zeros,))
        expected = np.tile([-10.0, -20.0], (3, 1)) / np.sqrt(1 + 1e-5)
        np.testing.assert_allclose(out.detach().numpy(), expected)
        assert bn.running_mean.tolist() == [0.0, 0.0]
        with pytest.raises(RuntimeError):  # 5 features for a 2-feature layer
            L.func.functional_call(bn, {"running_mean": mean}, (L.zeros(3, 5, dtype=L.float64),))
        assert bn.running_mean.tolist() == [0.0, 0.0]
        assert isinstance(bn.weight, L.nn.Parameter)


class Tied:
    """A module holding one Linear under two names (the torch/minigrad class is made
    per library)."""

    @staticmethod
    def make(L):
        class Net(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = linear(L)
                self.b = self.a

            def forward(self, x):
                return self.a(x) + self.b(x)
        return Net()


@pytest.mark.parametrize("tie_weights", [True, False])
def test_tie_weights(tie_weights):
    def program(L):
        net = Tied.make(L)
        return L.func.functional_call(net, {"a.weight": randn(L, 2, 3, seed=9)},
                                      (randn(L, 3, seed=4),), tie_weights=tie_weights)
    compare(program)


ERRORS = {
    "not a dict": lambda L: L.func.functional_call(linear(L), 3, (randn(L, 3),)),
    "a list with a non-dict": lambda L: L.func.functional_call(linear(L), [{}, 3],
                                                               (randn(L, 3),)),
    "repeated keys": lambda L: L.func.functional_call(
        linear(L), [{"bias": randn(L, 2)}, {"bias": randn(L, 2)}], (randn(L, 3),)),
    "strict: missing": lambda L: L.func.functional_call(
        linear(L), {"bias": randn(L, 2)}, (randn(L, 3),), strict=True),
    "strict: unexpected": lambda L: L.func.functional_call(
        linear(L), {"weight": randn(L, 2, 3), "bias": randn(L, 2), "extra": randn(L, 1)},
        (randn(L, 3),), strict=True),
    "tied keys with different values": lambda L: L.func.functional_call(
        Tied.make(L), {"a.weight": randn(L, 2, 3), "b.weight": randn(L, 2, 3, seed=1)},
        (randn(L, 3),)),
    "a non-tensor value": lambda L: L.func.functional_call(linear(L), {"bias": [1.0, 2.0]},
                                                           (randn(L, 3),)),
    "no such submodule": lambda L: L.func.functional_call(linear(L), {"x.bias": randn(L, 2)},
                                                          (randn(L, 3),)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    same_error(ERRORS[name])


def test_a_failed_swap_leaves_the_module_as_it_was():
    net = linear(mg)
    weight = net.weight
    with pytest.raises(TypeError):
        mg.func.functional_call(net, {"weight": randn(mg, 2, 3), "bias": [1.0, 2.0]},
                                (randn(mg, 3),))
    assert net.weight is weight
