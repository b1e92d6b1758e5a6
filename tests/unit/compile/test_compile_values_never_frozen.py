"""What the generated code cannot follow runs eagerly: ops whose result's shape follows
their inputs' values (a bool mask's getitem, masked_select, repeat_interleave by a
tensor), tensors made from numpy arrays inside the function (np.random's, copies of
data), and Python values read from the data (an f-string, str(), minigrad.equal).  Each is
called again on new values and compared with eager."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.compile import GraphBreak

CASES = {
    "getitem, bool mask": lambda x: x[x > 0].sum(),
    "getitem, bool mask of another tensor": lambda x: (x * 2)[x.detach() > 0.5],
    "masked_select": lambda x: mg.masked_select(x, x < 0).exp(),
    "repeat_interleave by a tensor": lambda x: x.repeat_interleave((x.detach() > 0).long() + 1),
    "a tensor of np.random's values": lambda x: x * mg.tensor(np.random.rand(4)),
    # Python values read from the data: each call must read its own
    "an f-string of a value": lambda x: x * len(f"{x[0]:.3f}"),
    "str of a tensor": lambda x: x * len(str(x[0])),
    "repr of a tensor": lambda x: x * len(repr(x)),
    "minigrad.equal": lambda x: x * (3 if mg.equal(x > 0, mg.ones(4, dtype=mg.bool)) else 5),
    "minigrad.allclose": lambda x: x * (3 if mg.allclose(x.detach(), x.detach().abs()) else 5),
    "Tensor.is_nonzero": lambda x: x * (3 if (x[0] > 0).is_nonzero() else 5),
}


#: calls that read different values: signs, lengths, all positive or not
INPUTS = [np.array([0.5, 1.0, 2.0, 3.0]), np.array([-12.5, 1.0, -2.0, 3.0]),
          np.array([123.25, 4.0, 5.0, 6.0])]


def _run(fn, x):
    x = mg.tensor(x, requires_grad=True)
    out = fn(x)
    out.sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_call_gets_its_own_values_shapes_and_gradients(name):
    fn = CASES[name]
    compiled = mg.compile(fn)
    for seed, x in enumerate(INPUTS):
        np.random.seed(seed)
        value, grad = _run(compiled, x)
        np.random.seed(seed)
        expected, expected_grad = _run(fn, x)
        assert value.shape == expected.shape
        np.testing.assert_allclose(value, expected, rtol=1e-12)
        np.testing.assert_allclose(grad, expected_grad, rtol=1e-12)


@pytest.mark.parametrize("name, reason", [("getitem, bool mask", "shape depends on values"),
                                          ("a tensor of np.random's values", "a numpy array"),
                                          ("an f-string of a value", "f-string"),
                                          ("minigrad.equal", "minigrad.equal")])
def test_fullgraph_names_why(name, reason):
    with pytest.raises(GraphBreak, match=reason):
        mg.compile(CASES[name], fullgraph=True)(mg.tensor(np.ones(4), requires_grad=True))


def test_constants_from_numbers_still_compile():
    compiled = mg.compile(lambda x: x * mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=mg.float64)
                          + x[mg.tensor([0, 0, 1, 3])])
    x = mg.tensor(np.arange(4.0), requires_grad=True)
    compiled(x)
    assert "not compiled" not in compiled.source().splitlines()[0]
    np.testing.assert_allclose(compiled(x).detach().numpy(), [0.0, 2.0, 7.0, 15.0])
