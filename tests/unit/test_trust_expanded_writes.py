"""Writes into expanded tensors, compared with PyTorch (fuzzer finding, issue 10).

An expanded tensor's elements share memory.  PyTorch refuses in-place ops that
would write such an element twice with different values, but lets ``fill_`` with a
number, ``x[key] = v`` and ``masked_fill_`` write there (the last two with a
deprecation warning); its backward then refuses to write the gradient of such a
write into an expanded view.
"""
import warnings

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _expanded(L):
    return L.tensor([[1.0], [2.0]], dtype=L.float64).clone().expand(2, 3)


def _f64(L, values):
    return L.tensor(values, dtype=L.float64)


def _mask(L):
    return L.tensor([[True, False, False], [False, False, True]])


WRITES = {
    "fill_": lambda L, x: x.fill_(0.5),
    "zero_": lambda L, x: x.zero_(),
    "fill_tensor": lambda L, x: x.fill_(_f64(L, 4.0)),
    "mul_": lambda L, x: x.mul_(2),
    "exp_": lambda L, x: x.exp_(),
    "clamp_": lambda L, x: x.clamp_(min=1.5),
    "copy_": lambda L, x: x.copy_(L.ones(2, 3, dtype=L.float64)),
    "scatter_": lambda L, x: x.scatter_(0, L.zeros(1, 3, dtype=L.int64), L.ones(1, 3, dtype=L.float64)),
    "mask_number": lambda L, x: x.__setitem__(x > 1, 0.5),
    "mask_0d": lambda L, x: x.__setitem__(x > 1, _f64(L, 0.5)),
    "mask_values": lambda L, x: x.__setitem__(x > 1, _f64(L, [0.5, 0.6, 0.7])),
    "mask_across_rows": lambda L, x: x.__setitem__(_mask(L), _f64(L, [5.0, 6.0])),
    "list_number": lambda L, x: x.__setitem__([0], 0.5),
    "list_values": lambda L, x: x.__setitem__([0], L.ones(3, dtype=L.float64)),
    "int_number": lambda L, x: x.__setitem__(0, 0.5),  # a copy_ into x[0]: refused
    "slice_number": lambda L, x: x.__setitem__(slice(0, 1), 0.5),
    "ellipsis_number": lambda L, x: x.__setitem__(Ellipsis, 0.5),
    "column_number": lambda L, x: x.__setitem__((slice(None), 0), 0.5),  # x[:, 0]: no overlap
    "masked_fill_": lambda L, x: x.masked_fill_(x > 1, 0.5),
    "fill_of_a_row": lambda L, x: x[0].fill_(3),
    "mul_of_a_row": lambda L, x: x[0].mul_(3),
    "mul_of_a_column": lambda L, x: x[:, 0].mul_(3),
    "no_grad_mul_": lambda L, x: _no_grad(L, lambda: x.mul_(2)),
    "no_grad_fill_": lambda L, x: _no_grad(L, lambda: x.fill_(2)),
}


def _no_grad(L, fn):
    with L.no_grad():
        fn()


def _outcome(L, write):
    x = _expanded(L)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            write(L, x)
        except RuntimeError as e:
            return "raises", str(e).split(".")[0]
    return x.tolist(), sorted(str(w.message).split(" on ")[0] for w in caught)


@pytest.mark.parametrize("name", list(WRITES))
def test_write_into_an_expanded_tensor_as_torch(name):
    assert _outcome(mg, WRITES[name]) == _outcome(torch, WRITES[name])


def _backward_through_write(L, base_requires_grad, wrt_x):
    x = L.tensor([[1.0], [2.0]], dtype=L.float64, requires_grad=True)
    value = L.tensor(0.5, dtype=L.float64, requires_grad=True)
    base = x * 1 if base_requires_grad else x.detach() * 1
    e = base.expand(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e[e > 1] = value
    inputs = [x, value] if wrt_x else [value]
    try:
        grads = L.autograd.grad((e * _f64(L, [1.0, 2.0, 3.0])).sum(), inputs, allow_unused=True)
    except RuntimeError as err:
        return "raises", str(err).split(".")[0]
    return e.tolist(), [None if g is None else g.tolist() for g in grads]


@pytest.mark.parametrize("wrt_x", [True, False])
@pytest.mark.parametrize("base_requires_grad", [True, False])
def test_backward_through_a_write_into_an_expanded_view_as_torch(base_requires_grad, wrt_x):
    """torch's backward refuses to write the base's gradient into the expanded view when
    that gradient is needed; otherwise the value's gradient flows as usual."""
    ours = _backward_through_write(mg, base_requires_grad, wrt_x)
    assert ours == _backward_through_write(torch, base_requires_grad, wrt_x)
    assert (ours[0] == "raises") == (base_requires_grad and wrt_x)


@pytest.mark.parametrize("L", [mg, torch])
def test_expanded_gradients_still_accumulate_correctly(L):
    """Gradients that are expanded arrays (sum's backward) are not written in place."""
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    for _ in range(3):
        x.expand(4, 2).sum().backward()
    assert x.grad.tolist() == [12.0, 12.0]
    (g,) = L.autograd.grad((x * x).expand(3, 2).sum(), x, create_graph=True)
    g.sum().backward()
    assert g.tolist() == [6.0, 12.0] and x.grad.tolist() == [18.0, 18.0]


def _refused_write(L, leaf):
    x = L.tensor([1.0], dtype=L.float64, requires_grad=True)
    e = (x if leaf else x * 1).expand(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as err:
            e[e > 0] = e
    return str(err.value)[:40], [str(w.message).split(" (Triggered")[0] for w in caught]


@pytest.mark.parametrize("leaf", [True, False])
def test_a_refused_write_into_an_expanded_tensor_warns_as_torch(leaf):
    """A view of a leaf is refused before the deprecation warning (fuzzer program 397);
    a value sharing the memory written is refused after it."""
    assert _refused_write(mg, leaf) == _refused_write(torch, leaf)


@pytest.mark.parametrize("L", [mg, torch])
def test_fill_of_an_empty_transposed_result_is_no_overlap(L):
    """numpy may give an empty array zero strides; it has no elements to share (program 5246)."""
    x = L.tensor(_rand_empty(), dtype=L.float64, requires_grad=True)
    y = x[:, 1:].unbind(0)[0].sin().transpose(0, -1)
    y.fill_(0.25)
    (g,) = L.autograd.grad((x * 2).sum() + y.sum(), x)
    assert tuple(y.shape) == (4, 0) and g.tolist() == [[[2.0] * 4]] * 3


def _rand_empty():
    return [[[1.0, -2.0, 0.5, 3.0]]] * 3


@pytest.mark.parametrize("L", [mg, torch])
def test_inplace_on_an_empty_mask_selection(L):
    """An empty boolean-mask result (zero strides under numpy) is written in place like any
    tensor (fuzzer programs 12231, 13392, 14004, 15763)."""
    x = L.tensor([[-1.0, -2.0, 0.5, 0.1]], dtype=L.float64, requires_grad=True)
    y = x[x.sum(-1) > 0]
    y.sin_()
    y[None].sub_(L.ones(4, dtype=L.float64))
    y.add_(L.ones(1, 4, dtype=L.float64), alpha=2)
    (g,) = L.autograd.grad((x * 2).sum() + y.sum(), x)
    assert tuple(y.shape) == (0, 4) and g.tolist() == [[2.0] * 4]
