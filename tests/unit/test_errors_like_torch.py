"""Refused calls raise PyTorch's exception type and message, not numpy's (issue 10).

Each program runs under PyTorch and minigrad (``L`` is the library); both must raise
the same exception type with the same first line of message (``torch.`` in a type
name reads ``minigrad.``), or both must run.
"""
import warnings

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def outcome(lib, program):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(program, {"L": lib})
    except Exception as exc:  # noqa: BLE001 -- the exception is what is compared
        return type(exc).__name__, (str(exc).splitlines() or [""])[0].replace("torch.", "minigrad.")
    return None


def assert_like_torch(program):
    expected = outcome(torch, program)
    assert outcome(mg, program) == expected, program


RESHAPES = [
    "L.zeros(2, 3).reshape(4)",
    "L.zeros(2, 3).reshape(())",
    "L.zeros(2, 3).view(())",
    "L.zeros(2, 3).reshape(-1, 4)",
    "L.zeros(2, 3).reshape_as(L.zeros(4))",
    "L.zeros(2, 3).view(-1, -1)",
    "L.zeros(2, 3).unflatten(1, (2, 2))",
    "L.zeros(2, 3).sum_to_size(3, 3)",
]

COMBINES = [
    "L.cat([L.zeros(2, 3), L.zeros(3)])",
    "L.cat([L.zeros(2, 3), L.zeros(3, 2)])",
    "L.cat([])",
    "L.stack([L.zeros(2, 3), L.zeros(3, 2)])",
    "L.stack([L.zeros(2, 3), L.zeros(2, 3), L.zeros(1, 3)])",
    "L.stack([])",
]

DIMS = [
    # a 0-d tensor has dims 0 and -1 only
    "L.tensor(1.0).cumprod(1)",
    "L.tensor(1.0).cumsum(-2)",
    "x = L.tensor(2.0); assert x.cumsum(0).item() == 2 and x.cumprod(-1).item() == 2",
    "L.tensor(1.0).median(1)",
    "L.tensor(1.0).select(0, 0)",
    "L.zeros(2, 3).permute(0, 0)",
    "L.zeros(2, 3).sum((0, 0))",
    "L.zeros(2, 3).amax((1, -1))",
    "L.zeros(2, 3).var(dim=(0, 0))",
]

GATHERS = [
    "L.zeros(2, 3).gather(1, L.tensor([[5]]))",
    "L.zeros(2, 3).gather(1, L.zeros(3, 3, dtype=L.int64))",
    "L.zeros(2, 3).scatter(1, L.tensor([[5]]), 1.0)",
    "L.zeros(2, 3).scatter_add(1, L.tensor([[7]]), L.ones(1, 1))",
    "L.zeros(2, 3).index_select(0, L.tensor([2]))",
    "L.zeros(2, 3).index_select(0, L.tensor([-1]))",
    "L.zeros(2, 3).index_select(1, L.tensor([3]))",
    "L.zeros(2, 3).index_select(1, L.tensor([-1]))",
]

INDEXING = [
    "L.zeros(2, 3).masked_select(L.zeros(3, 2, dtype=L.bool))",
    "L.masked_select(L.zeros(2, 3), L.zeros(4, dtype=L.bool))",
    "L.zeros(2, 3).kthvalue(4)",
    "L.zeros(2, 3)[2]",
    "L.zeros(2, 3)[0, 3]",
    "L.zeros(2, 3)[L.tensor([2])]",
    "L.zeros(2, 3)[0, 0, 0]",
    "L.zeros(2, 3)[L.tensor([True, False, True])]",
    "L.zeros(2, 3)[L.tensor([0.5])]",
    "L.zeros(2, 3)[[0, 1], [0, 1, 2]]",
]

CREATION = [
    "L.zeros(-1)",
    "L.zeros((2, -1))",
    "L.ones(2, -3)",
    "L.empty(-2)",
    "L.full((-1,), 1.0)",
    "assert L.zeros(()).shape == () and L.ones([]).shape == ()",
]

# PyTorch accepts several ``...`` in one key (numpy refuses)
ELLIPSES = [
    "x = L.arange(24.0).reshape(2, 3, 4); assert x[..., ...].shape == (2, 3, 4)",
    "x = L.arange(24.0).reshape(2, 3, 4); assert x[..., 1, ...].tolist() == x[:, :, 1].tolist()",
    "x = L.arange(24.0).reshape(2, 3, 4); assert x[1, ..., ...].shape == (3, 4)",
    "x = L.arange(24.0).reshape(2, 3, 4); assert x[..., None, ...].shape == (2, 3, 4, 1)",
    "x = L.arange(6.0).reshape(2, 3); x[..., 0, ...] = 5.0; assert x[:, 0].tolist() == [5.0, 5.0]",
    "x = L.ones(4, 2, 2, requires_grad=True); (x[..., :, ...] * x).sum().backward()\n"
    "assert x.grad.tolist() == (2 * x).tolist()",
    "x = L.ones(4, 2, 2, requires_grad=True)\n"
    "g, = L.autograd.grad(x[..., 1, ...].sum(), x, create_graph=True)\n"
    "assert g[:, :, 1].sum().item() == 8 and g.sum().item() == 8",
    "x = L.arange(6.0).reshape(2, 3); x[..., L.tensor([0]), ...] = 5.0; assert x[:, 0].tolist() == [5.0] * 2",
]

SETITEMS = [
    "x = L.zeros(2, 3); x[L.tensor([0, 1])] = L.zeros(3, 3)",
    "x = L.zeros(2, 3); x[[0]] = L.zeros(3, 1)",
    "x = L.zeros(2, 3); x[x > 0] = L.zeros(2)",
    "x = L.ones(2, 3); x[x > 0] = L.zeros(2)",
    "x = L.zeros(2, 3); x[L.tensor([5])] = 1.0",
    "x = L.zeros(2, 3); x[0] = L.zeros(2)",
    "x = L.zeros(2, 3); x[:, 0] = L.zeros(3)",
    "x = L.zeros(2, 3); x[0] = L.zeros(2, 3)",
    "x = L.zeros(2, 3); x[:, 0] = L.zeros(2, 1)",
    "x = L.zeros(2, 3); x[1:2] = L.zeros(2, 3)",
    "x = L.zeros(2, 3); x[0] = L.ones(1, 1, 3); assert x.sum().item() == 3",
]

COPIES = [
    "L.zeros(2, 3).copy_(L.zeros(4))",
    "L.zeros(2, 3).copy_(L.zeros(2, 2, 3))",
    "L.zeros(2, 1, 4).copy_(L.zeros(1, 2, 4))",
    "L.zeros(2, 3).copy_(L.zeros(2, 2, 4))",
    # a source that shares memory with the destination, but not element for element
    "x = L.arange(6.0); x[:3].copy_(x[1:4])",
    "x = L.ones(1, 4, requires_grad=True) * 2; x[-1].copy_(x)",
    "x = L.arange(6.0); x[:2] = x[1:3]",
    "x = L.arange(6.0); x[[0, 1]] = x[:2]",
    "x = L.arange(6.0); x[x > 2] = x[3:]",
    # the same elements, or no shared memory: allowed
    "x = L.arange(6.0); x.copy_(x); x[:2] = x[:2]",
    "x = L.arange(6.0).reshape(2, 3); x[1:].copy_(x[:-1])",
    # copy_ compares the source as given; t[key] = v compares v expanded to t[key]
    "x = L.arange(6.0).reshape(2, 3); x.copy_(x[0])",
    "x = L.arange(6.0).reshape(2, 3); x[0] = x[1:]",
    "x = L.zeros(3, 1); x[0:3] = x[:1]",
    "x = L.ones(1, 4) * 2; x[None, 0:] = x",
    # any in-place op refuses an input that partly overlaps the tensor written to
    "x = L.arange(3.0); x.add_(x[0])",
    "x = L.arange(3.0); x[1:].add_(x[:-1])",
    "x = L.arange(3.0); x.clamp_(min=x[0])",
    "x = L.arange(3.0); x.unsqueeze(0).add_(x)",
    "x = L.ones(1, requires_grad=True) * 2; x.add_(x.unbind(0)[0], alpha=2)",
    "x = L.arange(3.0); x.mul_(x); assert x.tolist() == [0.0, 1.0, 4.0]",
    # a one-element value written through a mask is not compared (PyTorch fills the mask)
    "x = L.arange(1.0); x[x > -1] = x",
    "x = L.arange(3.0); x[x > -1] = x[0]",
    "x = L.arange(3.0); x[x > -1] = x",
    "x = L.arange(1.0); x[[0]] = x[:1]",
]

SCALARS = [
    "float(L.zeros(2, 3))",
    "int(L.zeros(2))",
    "bool(L.zeros(2))",
    "bool(L.zeros(0))",
    "L.zeros(2).item()",
    "L.zeros(0).item()",
    "L.zeros(2).is_nonzero()",
    "L.zeros(0).is_nonzero()",
    "L.is_nonzero(3)",
    "assert L.tensor([0.5]).is_nonzero() and not L.is_nonzero(L.tensor(0))",
    "L.tensor([2]) ** -1",  # a RuntimeError in torch, numpy's ValueError before
    "L.tensor([2]).pow_(-2)",
    "L.arange(0, 10, 0)",  # numpy divided by zero
    "L.arange(0, 10, -1)",  # numpy gave an empty range
    "L.arange(0.0, float('inf'))",
    "assert L.arange(L.tensor(3)).tolist() == [0, 1, 2] and L.arange(L.tensor(3)).dtype == L.int64",
    "L.nn.Module().register_parameter('x', L.ones(2, dtype=L.float64))",
    "L.arange(6.0)[::-1]",  # numpy reverses: a program that fails in torch
    "L.arange(6.0).view(2, 3)[:, ::-2]",
    "L.arange(6.0)[::0]",
    "x = L.arange(6.0); x[::-1] = 1",
    "x = L.arange(6.0); x[::2] = 0; assert x.tolist() == [0, 1, 0, 3, 0, 5]",
    "L.tensor([[1, 2], [3]])",  # numpy's words were about an inhomogeneous shape
    "L.tensor([[[1], [2]], [[3], [4, 5]]])",
    "L.tensor([[1.0, 2.0], []])",
    "L.tensor([1]) // 0",  # a RuntimeError in torch
    "L.tensor([1]).div(L.tensor([0]), rounding_mode='trunc')",
]


@pytest.mark.parametrize("program", RESHAPES + COMBINES + DIMS)
def test_shape_and_dim_refusals_like_torch(program):
    assert_like_torch(program)


@pytest.mark.parametrize("program", GATHERS + INDEXING + ELLIPSES)
def test_index_refusals_like_torch(program):
    assert_like_torch(program)


@pytest.mark.parametrize("program", SETITEMS + COPIES)
def test_write_refusals_like_torch(program):
    assert_like_torch(program)


@pytest.mark.parametrize("program", SCALARS + CREATION)
def test_scalar_conversion_refusals_like_torch(program):
    assert_like_torch(program)


# A value saved for backward, then modified in place: PyTorch's whole message (the
# tensor's type and shape, the node it is an output of, the versions, the hint).
VERSION_COUNTER = [
    "x = L.ones(3, dtype=L.float64, requires_grad=True); y = x.exp(); y.add_(1); y.sum().backward()",
    "x = L.ones(3, requires_grad=True); y = x * 1; z = y * y; y.add_(1); z.sum().backward()",
    "x = L.ones(2, 3, requires_grad=True); y = x * 1; z = y.sin(); y[0].mul_(2); z.sum().backward()",
    "x = L.ones(2, 3, requires_grad=True); y = x * 1; v = y[0]; z = v.sin(); y.mul_(2); z.sum().backward()",
    "x = L.ones(3, requires_grad=True); y = x.sigmoid(); y.mul_(2); y.mul_(3); y.sum().backward()",
    "x = L.ones(3, requires_grad=True); y = x.tanh(); y.zero_(); y.sum().backward()",
    "a = L.ones(3, requires_grad=True); w = L.ones(3); c = a * w; w.add_(1); c.sum().backward()",
    "a = L.ones(2, 2, requires_grad=True); w = L.ones(2, 2); c = a @ w; w.add_(1); c.sum().backward()",
    "x = L.ones(3, requires_grad=True); y = x.max(); z = y * y; y.add_(1); z.backward()",
    "x = L.ones(2, 3, requires_grad=True); v = (x * 1).t(); z = v.sin(); v.mul_(2); z.sum().backward()",
]


@pytest.mark.parametrize("program", VERSION_COUNTER)
def test_version_counter_message_like_torch(program):
    assert_like_torch(program)


@pytest.mark.parametrize("lib", [torch, mg], ids=["torch", "minigrad"])
def test_version_counter_hint_under_anomaly_mode(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    z = y * y
    y.add_(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly(), pytest.raises(RuntimeError) as err:
            z.sum().backward()
    assert str(err.value).endswith(
        "is at version 1; expected version 0 instead. Hint: the backtrace further above shows "
        "the operation that failed to compute its gradient. The variable in question was "
        "changed in there or anywhere later. Good luck!")


# Views made under no_grad / inference_mode of a tensor that requires grad: they
# require grad (without a grad_fn), and in-place on them with grad mode on is refused,
# also through a view of such a view or when only the other operand requires grad.
NO_GRAD_VIEWS = [
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "assert (v.requires_grad, v.grad_fn, v.is_leaf) == (True, None, True)\n"
    "v.mul_(2)",
    "x = L.ones(3, requires_grad=True)\n"
    "with L.no_grad(): v = x[:2]\n"
    "assert v.requires_grad and (v * 2).requires_grad\n"
    "v.mul_(2)",
    "x = L.ones(2, 3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x.t()\n"
    "v.add_(1)",
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x.unbind(0)\n"
    "assert [t.requires_grad for t in v] == [True] * 3\n"
    "v[0].mul_(2)",
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "w = v[:1]\n"
    "assert w.requires_grad and w.grad_fn is not None\n"
    "w.mul_(2)",
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "v[0] = 5.0",
    "x = L.ones(3) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "v.mul_(L.ones(2, requires_grad=True))",
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.inference_mode(): v = x[:2]\n"
    "assert v.requires_grad and not v.is_inference()\n"
    "v.mul_(2)",
    # allowed: both inside no_grad, a detached view, no tensor requiring grad
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "with L.no_grad(): v.mul_(2)\n"
    "x.sum().backward()",
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.inference_mode(): v = x.view(3)\n"
    "with L.inference_mode(): v.mul_(2)\n"
    "assert x.tolist() == [2.0, 2.0, 2.0]",
    "x = L.ones(2, 3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x.detach()[:1]\n"
    "v.add_(1)\n"
    "assert not v.requires_grad and x.tolist() == [[2.0] * 3, [1.0] * 3]",
    "x = L.ones(3) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "v.mul_(2)\n"
    "assert not v.requires_grad",
]


@pytest.mark.parametrize("program", NO_GRAD_VIEWS)
def test_views_made_under_no_grad_like_torch(program):
    assert_like_torch(program)


GRADIENTS_OF_NO_GRAD_VIEWS = [
    # the gradient for the view goes nowhere: not into the view, not into its base
    "x = L.ones(3, requires_grad=True) * 1\n"
    "with L.no_grad(): v = x[:2]\n"
    "(v * 2).sum().backward()\n"
    "assert v.grad is None",
    "x = L.ones(3, requires_grad=True)\n"
    "with L.no_grad(): v = x[:2]\n"
    "((v * 2).sum() + x.sum()).backward()\n"
    "assert v.grad is None and x.grad.tolist() == [1.0, 1.0, 1.0]",
    "x = L.ones(3, requires_grad=True)\n"
    "with L.no_grad(): v = x[:2]\n"
    "L.autograd.grad((v * 2).sum(), x)",
    "x = L.ones(3, requires_grad=True)\n"
    "L.autograd.grad((x * 2).sum(), [x, L.ones(1, requires_grad=True)])",
]


@pytest.mark.parametrize("program", GRADIENTS_OF_NO_GRAD_VIEWS)
def test_gradients_through_views_made_under_no_grad_like_torch(program):
    assert_like_torch(program)


# gather and masked_select save their input as PyTorch's do: backward after the input
# changed in place is refused by both.
@pytest.mark.parametrize("op", ["gather", "masked_select"])
def test_backward_after_gather_input_is_written_is_refused_like_torch(op):
    call = "y.gather(1, L.tensor([[0, 0], [1, 0]]))" if op == "gather" else "y.masked_select(y > 0)"
    assert_like_torch("x = L.tensor([[1.0, 2.0], [-3.0, 0.5]], dtype=L.float64, requires_grad=True)\n"
                      f"y = x * 1\nout = {call}\ny.mul_(2)\nout.sum().backward()")
