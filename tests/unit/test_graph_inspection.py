"""Looking at the graph: grad_fn names, next_functions, saved values, requires_grad rules."""
import numpy as np
import pytest

import minigrad as mg


def test_names_and_next_functions_match_pytorch():
    torch = pytest.importorskip("torch")

    def describe(L):
        x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        y = L.tensor([3.0, 4.0], dtype=L.float64)
        z = (x * y).exp()
        nf = z.grad_fn.next_functions
        inner = nf[0][0].next_functions
        names = [(None if n is None else n.name().replace("torch::autograd::", ""), i) for n, i in inner]
        return z.grad_fn.name(), nf[0][0].name(), names

    assert describe(mg) == describe(torch)


def test_accumulate_grad_points_at_the_leaf():
    x = mg.tensor([1.0], requires_grad=True)
    node = (x * 2).grad_fn.next_functions[0][0]
    assert node.name() == "AccumulateGrad" and node.variable is x
    assert (x * 3).grad_fn.next_functions[0][0] is node   # one accumulator per leaf


def test_saved_values_are_inspectable():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.tensor([3.0, 4.0], requires_grad=True)
    z = x * y
    assert z.grad_fn._saved_self is x and z.grad_fn._saved_other is y
    e = x.exp()
    np.testing.assert_allclose(e.grad_fn._saved_result.detach().numpy(), np.exp([1.0, 2.0]))
    assert set(z.grad_fn.saved_values()) == {"self", "other"}
    z.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.grad_fn._saved_self


def test_requires_grad_propagation_and_is_leaf():
    a = mg.tensor([1.0], requires_grad=True)
    b = mg.tensor([2.0])
    assert a.is_leaf and b.is_leaf
    c = a * b
    assert c.requires_grad and not c.is_leaf
    d = b * 2
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        c.requires_grad = False
    with pytest.raises(RuntimeError, match="Only Tensors of floating point dtype"):
        mg.tensor([1, 2]).requires_grad_()
    assert not (a > 0).requires_grad
    e = a.detach()
    # shares a's storage, not its graph: no autograd view (e._base is None, as torch)
    assert e.is_leaf and not e.requires_grad and e._base is None


def test_no_grad_and_enable_grad():
    a = mg.tensor([1.0], requires_grad=True)
    with mg.no_grad():
        b = a * 2
        with mg.enable_grad():
            c = a * 2
    assert not b.requires_grad and b.grad_fn is None
    assert c.requires_grad


def test_inference_mode_tensors_cannot_be_saved_later():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.inference_mode():
        assert mg.is_inference_mode_enabled() and not mg.is_grad_enabled()
        b = a * 2
    assert b.is_inference() and not b.requires_grad and not a.is_inference()
    assert not mg.is_inference_mode_enabled()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        a * b
    (a + b).sum().backward()          # add saves nothing: allowed, as in PyTorch
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="requires_grad=True on inference tensor"):
        b.requires_grad_()
    c = b.clone()
    assert not c.is_inference()
    (a * c).sum().backward()          # the documented workaround: clone it


def test_inference_mode_matches_pytorch():
    torch = pytest.importorskip("torch")
    for L in (mg, torch):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        with L.inference_mode():
            b = a * 2
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            a * b


def test_version_and_base_are_inspectable():
    x = mg.tensor([1.0, 2.0, 3.0])
    v = x[1:]
    assert x._version == 0 and v._base is x and x._base is None
    v.add_(1.0)
    assert x._version == 1 and v._version == 1


def test_saved_tensors_hooks():
    from minigrad.autograd.graph import saved_tensors_hooks
    packed = []
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: packed.append(t.detach().numpy().copy()) or len(packed) - 1,
                             lambda i: mg.tensor(packed[i])):
        y = (x * x).sum()
    assert len(packed) == 2
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
