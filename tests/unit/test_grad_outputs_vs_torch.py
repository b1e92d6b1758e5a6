"""grad_outputs of another dtype than the output (PyTorch takes them; each input's
gradient comes back in its own dtype) and of the wrong shape, against PyTorch."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("op", ["exp", "cummax", "sum_rows"])
@pytest.mark.parametrize("grad_dtype", ["float64", "int64"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_output_of_another_dtype(op, grad_dtype, create_graph):
    def grads(t):
        a = t.tensor([[1.0, 3.0], [2.0, 0.5]], requires_grad=True)
        out = {"exp": lambda: a.exp(), "cummax": lambda: a.cummax(1)[0],
               "sum_rows": lambda: a.sum(1)}[op]()
        g = t.ones(out.shape, dtype=getattr(t, grad_dtype))
        first, = t.autograd.grad(out, a, g, create_graph=create_graph)
        return first
    got, expected = grads(mg), grads(torch)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-6)


def test_grad_output_shape_error():
    def call(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        t.autograd.grad(a.exp(), a, t.ones(3))
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(mg)
    assert str(got.value) == str(expected.value).replace("torch.", "minigrad.")


@pytest.mark.parametrize("create_graph", [False, True])
def test_is_grads_batched(create_graph):
    def grads(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        z = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sin() * 2
        out = t.autograd.grad([y, y * 3], [x, z], [t.eye(3), t.ones(3, 3)],
                              create_graph=create_graph, is_grads_batched=True,
                              allow_unused=True)
        return out
    got, expected = grads(mg), grads(torch)
    assert got[1] is None and expected[1] is None
    np.testing.assert_allclose(got[0].detach().numpy(), expected[0].detach().numpy(), rtol=1e-6)


def test_grad_positional_arguments_as_torch():
    def grads(t):
        x = t.tensor([0.5, -1.0], requires_grad=True)
        # outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused
        return t.autograd.grad((x ** 2).sum(), [x, t.ones(1, requires_grad=True)], None,
                               None, False, True, True)
    got, expected = grads(mg), grads(torch)
    assert got[1] is None and expected[1] is None
    np.testing.assert_array_equal(got[0].numpy(), expected[0].numpy())
