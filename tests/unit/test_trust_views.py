"""Views and in-place writes that used to give silently wrong results (issue 10, part A).

Each test runs the same program under minigrad and, where installed, PyTorch, and
states the expected values, so the test checks minigrad and the expectation at once.
"""
import pytest

import minigrad as mg

try:
    import torch
except ImportError:  # the expectations are written out; torch only confirms them
    torch = None

LIBS = [pytest.param(mg, id="minigrad")] + ([pytest.param(torch, id="torch")] if torch else [])


def f64(L, values, **kw):
    return L.tensor(values, dtype=L.float64, **kw)


# ------------------------------------------------- every view op returns a view
@pytest.mark.parametrize("L", LIBS)
def test_select_of_vector_is_a_view(L):
    y = f64(L, [1.0, 2.0, 3.0])
    y.select(0, 1).mul_(10)
    assert y.tolist() == [1.0, 20.0, 3.0]


@pytest.mark.parametrize("L", LIBS)
def test_unbind_pieces_of_vector_are_views(L):
    y = f64(L, [1.0, 2.0, 3.0])
    y.unbind(0)[2].mul_(10)
    assert y.tolist() == [1.0, 2.0, 30.0]


@pytest.mark.parametrize("L", LIBS)
def test_copy_into_selected_elements_carries_the_gradient(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    out = L.zeros(2, dtype=L.float64)
    for i in range(2):
        out.select(0, i).copy_(x[i] * 3)
    (out * f64(L, [1.0, 5.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 15.0]


# ------------------------------------- detach(): shares storage, never graph
@pytest.mark.parametrize("L", LIBS)
def test_view_of_detached_is_not_reattached_by_inplace_on_source(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    y = x * 2
    v = y.detach()[:1]
    y.mul_(3)
    assert not v.requires_grad and v.grad_fn is None
    assert v.tolist() == [6.0]  # storage is shared


@pytest.mark.parametrize("L", LIBS)
def test_writes_through_detached_view_do_not_reach_the_gradient(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    v = d[:1]
    y[1:].mul_(2)
    v.mul_(3)
    y.sum().backward()
    assert y.tolist() == [6.0, 8.0]
    assert x.grad.tolist() == [2.0, 4.0]  # the write through v is invisible to autograd
    assert not v.requires_grad


@pytest.mark.parametrize("L", LIBS)
def test_detached_view_of_leaf_accepts_writes(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    v = x.detach()[:]
    v.mul_(2)
    v[0] = 7.0
    assert x.tolist() == [7.0, 4.0]
    assert x.is_leaf and x.grad_fn is None


# ---------------------------- a saved input detached in place: never drop terms
@pytest.mark.parametrize("L", LIBS)
def test_saved_input_detached_in_place_refuses_backward(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    a = x * 1
    y = (a * a.exp()).sum()
    a.detach_()
    with pytest.raises(RuntimeError, match="saved tensor that has been detached in-place"):
        L.autograd.grad(y, x, create_graph=True)


@pytest.mark.parametrize("L", LIBS)
def test_saved_output_detached_in_place_still_differentiates(L):
    # exp saves its result, not its input: detaching the result is harmless (as torch)
    x = f64(L, [1.0, 2.0], requires_grad=True)
    a = x.exp()
    y = a.sum()
    a.detach_()
    y.backward()
    assert x.grad.tolist() == pytest.approx([2.718281828459045, 7.38905609893065])


# ---------------- a deliberate divergence (docs/divergences.md: multi-output-views)
def _inplace_through_unbind(x):
    y = x * 1
    a, b = y.unbind(0)
    a.mul_(3.0)           # PyTorch refuses this; minigrad rewrites y's history
    y.add_(2.0)           # and uses a and b after their base changed
    return (y * y).sum() + (a * b).sum()


def test_inplace_through_unbind_piece_matches_finite_differences():
    x = mg.tensor([[1.0, 2.0, -0.5], [3.0, 0.5, 1.5]], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(_inplace_through_unbind, (x,))
    assert mg.autograd.gradgradcheck(_inplace_through_unbind, (x,))


@pytest.mark.skipif(torch is None, reason="shows the PyTorch side of the divergence")
def test_torch_refuses_inplace_on_unbind_piece():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="returns multiple views"):
        _inplace_through_unbind(x)


@pytest.mark.parametrize("L", LIBS)
def test_masked_select_and_contiguous(L):
    x = f64(L, [[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    y = x.masked_select(x > 0)
    (y * f64(L, [2.0, 3.0])).sum().backward()
    assert y.tolist() == [1.0, 3.0] and x.grad.tolist() == [[2.0, 0.0], [3.0, 0.0]]
    assert L.masked_select(x, L.tensor([True, False])).tolist() == [1.0, 3.0]
    t = x.t()
    assert not t.is_contiguous() and t.contiguous().is_contiguous()
    assert x.contiguous() is x


@pytest.mark.parametrize("L", LIBS)
def test_write_into_an_empty_slice_bumps_the_version(L):
    # an empty slice shares no bytes, but is a view: saved tensors must see the write
    x = f64(L, [1.0, 2.0], requires_grad=True)
    y = x.exp()
    y[2:].fill_(0.5)
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
