"""Custom autograd Functions: the ctx API, errors naming the Function, second order."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function, once_differentiable


class MulConst(Function):
    @staticmethod
    def forward(ctx, x, k, *, shift=0.0):
        ctx.k = k
        ctx.save_for_backward(x)
        return x * k + shift

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors   # unpacking is what checks the version
        return g * ctx.k, None


def test_non_tensor_args_kwargs_and_node_name():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = MulConst.apply(x, 3.0, shift=1.0)
    np.testing.assert_allclose(y.detach().numpy(), [4.0, 7.0])
    assert y.grad_fn.name() == "MulConstBackward"
    assert y.grad_fn.next_functions[0][0] is not None
    assert y.grad_fn.needs_input_grad == (True, False)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_no_graph_without_requires_grad_or_under_no_grad():
    y = MulConst.apply(mg.tensor([1.0]), 2.0)
    assert y.grad_fn is None and not y.requires_grad
    x = mg.tensor([1.0], requires_grad=True)
    with mg.no_grad():
        assert MulConst.apply(x, 2.0).grad_fn is None


def test_forward_runs_without_grad_and_backward_gets_tensors():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["forward_grad_mode"] = mg.is_grad_enabled()
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            seen["grad_type"] = type(g)
            return g

    x = mg.tensor([1.0], requires_grad=True)
    Probe.apply(x).sum().backward()
    assert seen == {"forward_grad_mode": False, "grad_type": mg.Tensor}


def test_saved_tensors_are_version_checked_and_freed():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1.0
    y = MulConst.apply(b, 2.0)
    b.add_(1.0)
    # PyTorch's text names the node the modified tensor is now an output of
    with pytest.raises(RuntimeError, match="modified by an inplace operation: .*, which is "
                                           "output 0 of Add, is at version 1"):
        y.sum().backward()
    y = MulConst.apply(x * 1.0, 2.0)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


def test_wrong_number_of_gradients_names_the_function():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect number of "
                                           r"gradients \(expected 2, got 1\)"):
        Bad.apply(x, x).sum().backward()


def test_wrong_gradient_shape_names_the_function():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return mg.ones(5)

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Function BadShapeBackward returned an invalid gradient "
                                           r"at index 0 - got \[5\] but expected shape compatible with \[2\]"):
        BadShape.apply(x).sum().backward()


def test_gradient_for_non_tensor_argument_raises():
    class BadNone(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="BadNoneBackward returned a gradient different than None at position 2"):
        BadNone.apply(x, 2.0).sum().backward()


def test_several_outputs_non_differentiable_and_materialized_grads():
    calls = []

    class SortLike(Function):
        @staticmethod
        def forward(ctx, x):
            idx = mg.tensor(np.argsort(x.detach().numpy()))
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x[idx], idx

        @staticmethod
        def backward(ctx, g_values, g_idx):
            calls.append(g_idx.numpy().tolist())
            idx, = ctx.saved_tensors
            out = mg.zeros(g_values.shape[0])
            out[idx] = g_values
            return out

    x = mg.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, idx = SortLike.apply(x)
    assert not idx.requires_grad and values.requires_grad
    (values * mg.tensor([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [100.0, 1.0, 10.0])
    assert calls == [[0, 0, 0]]      # the gradient of idx was materialized as zeros


def test_mark_dirty_rebases_the_input():
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2      # deliberately not 1, to see this node was used

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1.0
    out = AddOneInplace.apply(b)
    assert out is b and b.grad_fn.name() == "AddOneInplaceBackward"
    np.testing.assert_allclose(b.detach().numpy(), [2.0, 3.0])
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInplace.apply(mg.tensor([1.0], requires_grad=True))


def test_returning_an_input_makes_a_new_alias():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = mg.tensor([1.0], requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.item() == 3.0


def test_once_differentiable_second_order_raises():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = mg.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    # as in PyTorch, the result depends on the incoming gradient requiring grad
    gx, = mg.autograd.grad((y * y).sum(), x, create_graph=True)
    assert gx.item() == 2 * 9.0 * 6.0
    with pytest.raises(RuntimeError, match="SquareBackward is not differentiable twice"):
        gx.sum().backward()


def test_backward_in_minigrad_ops_is_differentiable_against_torch():
    torch = pytest.importorskip("torch")

    def build(L):
        class Aggregate(L.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                t = a + b
                ctx.save_for_backward(a, b)
                return t * b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                t = a + b
                return g * b, g * b + g * t

        a = L.tensor([0.5, -1.0, 2.0], dtype=L.float64, requires_grad=True)
        b = L.tensor([1.5, 0.25, -0.5], dtype=L.float64, requires_grad=True)
        da, db = L.autograd.grad(Aggregate.apply(a, b).sum(), (a, b), create_graph=True)
        dda, ddb = L.autograd.grad((da * da + db * db).sum(), (a, b))
        return [t.detach().numpy() for t in (da, db, dda, ddb)]

    for got, ref in zip(build(mg), build(torch)):
        np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_set_materialize_grads_false_passes_none():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            return g1 * 2 if g1 is not None else g2 * 3

    x = mg.tensor([1.0], requires_grad=True)
    Two.apply(x)[1].sum().backward()
    assert seen == [(True, False)] and x.grad.item() == 3.0


def test_setup_context_style():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = mg.tensor([2.0], requires_grad=True)
    Cube.apply(x).backward()
    assert x.grad.item() == 12.0


def test_gradcheck_of_a_custom_function():
    class Sin(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return mg.sin(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * mg.cos(x)

    x = mg.tensor([0.1, 0.7, -1.3], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(Sin.apply, (x,))
    assert mg.autograd.gradgradcheck(Sin.apply, (x,))


def test_instantiating_a_function_is_a_clear_error():
    with pytest.raises(RuntimeError, match="MulConst.apply"):
        MulConst()
