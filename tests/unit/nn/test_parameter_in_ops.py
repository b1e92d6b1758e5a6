"""Parameters as op inputs: the generated functions read a Parameter's fields inline, as a
Tensor's (codegen/emit.py, ``is_tensor``); results, gradients, dtypes and errors must be
PyTorch's, as for plain Tensors."""
import pickle

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

torch = pytest.importorskip("torch")


def _pair(array, requires_grad=True):
    ours = nn.Parameter(mg.tensor(array), requires_grad=requires_grad)
    theirs = torch.nn.Parameter(torch.tensor(array), requires_grad=requires_grad)
    return ours, theirs


CASES = {
    "param + tensor": lambda lib, p, t: p + t,
    "tensor + param": lambda lib, p, t: t + p,
    "param * number": lambda lib, p, t: p * 0.5,
    "number - param": lambda lib, p, t: 2 - p,
    "sqrt(param)": lambda lib, p, t: p.sqrt(),
    "param @ tensor": lambda lib, p, t: p @ t.T,
    "linear": lambda lib, p, t: lib.nn.functional.linear(t, p, p[0]),
    "where": lambda lib, p, t: lib.where(t > 0.5, p, t),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_and_gradients_match_torch(case, dtype):
    rng = np.random.default_rng(0)
    p_array, t_array = rng.random((3, 3)).astype(dtype) + 0.1, rng.random((3, 3)).astype(dtype)
    p, tp = _pair(p_array)
    t, tt = mg.tensor(t_array, requires_grad=True), torch.tensor(t_array, requires_grad=True)
    out, expected = CASES[case](mg, p, t), CASES[case](torch, tp, tt)
    assert out.dtype == getattr(mg, str(expected.dtype).split(".")[1])
    assert type(out) is mg.Tensor   # (an op on a Parameter gives a plain Tensor, as in torch)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-6)
    weights = rng.random(out.shape).astype(dtype)
    out.backward(mg.tensor(weights))
    expected.backward(torch.tensor(weights))
    np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-6)
    if tt.grad is None:   # (the case does not read t)
        assert t.grad is None
    else:
        np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-6)


def test_mixed_dtypes_promote_as_torch():
    p, tp = _pair(np.ones(3, dtype=np.float32))
    assert (p + mg.ones(3, dtype=mg.float64)).dtype == mg.float64
    assert (tp + torch.ones(3, dtype=torch.float64)).dtype == torch.float64
    assert (p * 2).dtype == mg.float32


def test_frozen_parameter_records_nothing():
    p, _ = _pair(np.ones(3), requires_grad=False)
    out = p * 2 + 1
    assert out.grad_fn is None and not out.requires_grad


def test_parameter_modified_in_place_after_use_fails_backward_as_torch():
    messages = []
    for lib in (mg, torch):
        p = (nn if lib is mg else torch.nn).Parameter(lib.ones(3))
        out = (p * p).sum()
        with lib.no_grad():
            p.add_(1)
        with pytest.raises(RuntimeError) as error:
            out.backward()
        messages.append(str(error.value))
    assert "modified by an inplace operation" in messages[0]
    assert "modified by an inplace operation" in messages[1]


def test_gradient_accumulates_over_steps():
    p, tp = _pair(np.arange(3.0))
    for _ in range(2):
        (p * p).sum().backward()
        (tp * tp).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), tp.grad.numpy())


def test_subclass_of_parameter_takes_the_general_path():
    class Tagged(nn.Parameter):
        pass
    p = Tagged(mg.ones(2) * 3)
    (p * p).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [6.0, 6.0])


def test_pickle_names_the_public_module():
    p = nn.Parameter(mg.ones(2))
    again = pickle.loads(pickle.dumps(p))
    assert type(again) is nn.Parameter and again.requires_grad
    assert nn.Parameter.__module__ == "minigrad.nn.parameter"
    assert b"minigrad.nn.parameter" in pickle.dumps(p)
