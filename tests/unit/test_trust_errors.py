"""Errors as PyTorch raises them, and no spurious ones (issue 10, part A).

Each test runs under minigrad and, where installed, PyTorch: the same program must
raise the same exception type (or run, with the stated values) under both.
"""
import copy
import pickle
import warnings

import numpy as np
import pytest

import minigrad as mg

try:
    import torch
except ImportError:
    torch = None

LIBS = [pytest.param(mg, id="minigrad")] + ([pytest.param(torch, id="torch")] if torch else [])


def f64(L, values, **kw):
    return L.tensor(values, dtype=L.float64, **kw)


# ------------------------------------------------------------ no spurious errors
@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "tanh_"])
@pytest.mark.parametrize("L", LIBS)
def test_double_backward_through_inplace_on_view_of_op_saving_its_result(L, op):
    x = f64(L, [1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    getattr(y[:2], op)()
    g, = L.autograd.grad((y * y).sum(), x, create_graph=True)
    h, = L.autograd.grad(g.sum(), x)
    expected = {"exp_": [4 * np.e ** 2, 4 * np.e ** 4, 2.0]}
    if op in expected:
        assert h.tolist() == pytest.approx(expected[op])
    assert h.shape == (3,)


@pytest.mark.parametrize("L", LIBS)
def test_requires_grad_true_on_a_result_is_a_noop(L):
    x = f64(L, [1.0], requires_grad=True)
    y = x * 2
    assert y.requires_grad_(True) is y and y.requires_grad
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad_(False)


@pytest.mark.parametrize("L", LIBS)
def test_expand_to_the_same_shape_is_writable(L):
    x = f64(L, [[1.0, 2.0]])
    x.expand(1, 2).mul_(2)
    x.expand(1, 1, 2).add_(1)
    assert x.tolist() == [[3.0, 5.0]]
    with pytest.raises(RuntimeError, match="single memory location"):
        x.expand(3, 2).mul_(2)


@pytest.mark.parametrize("L", LIBS)
def test_view_of_an_advanced_index_result(L):
    x = L.arange(6.0).reshape(2, 3)
    assert x[:, [0, 0, 1]].view(6).tolist() == [0.0, 0.0, 1.0, 3.0, 3.0, 4.0]


@pytest.mark.parametrize("L", LIBS)
def test_pickle_of_tensors_in_a_graph_with_views_and_hooks(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g)
    y = x * 2
    _ = y * 3, y[:1]
    for t in (x, y):
        back = pickle.loads(pickle.dumps(t))
        assert back.tolist() == t.tolist() and back.is_leaf


@pytest.mark.parametrize("L", LIBS)
def test_softmax_over_an_empty_dim_is_empty(L):
    x = L.zeros(2, 0, dtype=L.float64)
    for fn in (L.softmax, L.log_softmax):
        assert tuple(fn(x, dim=1).shape) == (2, 0)
        assert tuple(fn(x, dim=0).shape) == (2, 0)


@pytest.mark.parametrize("L", LIBS)
def test_reductions_over_an_empty_dim(L):
    x = L.zeros(2, 0, dtype=L.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no numpy warning reaches the user
        assert x.sum(dim=1).tolist() == [0.0, 0.0]
        assert x.prod(dim=1).tolist() == [1.0, 1.0]
        assert np.isnan(x.mean(dim=1).numpy()).all() and np.isnan(x.mean().item())
        assert np.isnan(x.var(dim=1).numpy()).all()
        assert x.logsumexp(dim=1).tolist() == [-np.inf, -np.inf]
    for name in ("amax", "amin", "argmax", "argmin"):
        with pytest.raises(IndexError, match=f"{name}\\(\\): Expected reduction dim 1 to have non-zero size"):
            getattr(x, name)(dim=1)
    with pytest.raises(IndexError, match="max\\(\\): Expected reduction dim 1"):
        x.max(dim=1)
    with pytest.raises(RuntimeError, match="amax\\(\\): Expected reduction dim to be specified"):
        x.amax()
    with pytest.raises(RuntimeError, match="max\\(\\): Expected reduction dim to be specified"):
        x.max()


# ----------------------------------------------------------- errors as PyTorch
@pytest.mark.parametrize("L", LIBS)
def test_inplace_through_a_view_made_before_requires_grad(L):
    x = f64(L, [1.0, 2.0])
    v = x[:1]
    x.requires_grad_()
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        v.mul_(2)


@pytest.mark.parametrize("L", LIBS)
def test_inplace_through_a_no_grad_view_of_a_leaf(L):
    x = f64(L, [1.0, 2.0], requires_grad=True)
    with L.no_grad():
        v = x[:1]
    with pytest.raises(RuntimeError):
        v.mul_(2)


@pytest.mark.parametrize("L", LIBS)
def test_deepcopy_of_a_result_raises(L):
    x = f64(L, [1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


@pytest.mark.parametrize("L", LIBS)
def test_grad_assignment_is_checked(L):
    x = L.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="gradient of size '\\[3\\]' to a tensor of size '\\[2\\]'"):
        x.grad = L.zeros(3)
    with pytest.raises(RuntimeError, match="with dtype 'long int' to a tensor with grad_dtype 'Float'"):
        x.grad = L.zeros(2, dtype=L.int64)
    with pytest.raises(TypeError, match="expected to be a Tensor or None but got grad of type list"):
        x.grad = [0.0, 0.0]
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        x.grad = x
    x.grad = L.ones(2)
    x.grad = None


@pytest.mark.parametrize("L", LIBS)
def test_requires_grad_must_be_a_bool(L):
    with pytest.raises(TypeError, match="tensor\\(\\): argument 'requires_grad' must be bool, not str"):
        L.tensor([1.0], requires_grad="yes")
    with pytest.raises(TypeError, match="requires_grad_\\(\\): argument 'requires_grad' .* must be bool, not int"):
        L.tensor([1.0]).requires_grad_(1)
    with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
        L.tensor([1.0]).requires_grad = "yes"


@pytest.mark.parametrize("L", LIBS)
@pytest.mark.parametrize("program, kind, message", [
    (lambda L: L.zeros(2, 3).squeeze(5), IndexError, "Dimension out of range .*got 5"),
    (lambda L: L.zeros(2, 3).sum(dim=3), IndexError, "Dimension out of range .*got 3"),
    (lambda L: L.zeros(2, 3).transpose(0, 3), IndexError, "Dimension out of range"),
    (lambda L: L.softmax(L.zeros(2, 3), dim=2), IndexError, "Dimension out of range"),
    (lambda L: L.zeros(2, 3) + L.zeros(4), RuntimeError,
     "size of tensor a \\(3\\) must match the size of tensor b \\(4\\) at non-singleton dimension 1"),
    (lambda L: L.zeros(2, 3) @ L.zeros(4, 5), RuntimeError, "shapes cannot be multiplied \\(2x3 and 4x5\\)"),
    (lambda L: L.zeros(3) @ L.zeros(4), RuntimeError, "inconsistent tensor size"),
    (lambda L: L.zeros(2, 3) @ L.zeros(4), RuntimeError, "size mismatch"),
    (lambda L: L.exp([1.0, 2.0]), TypeError, None),
    (lambda L: L.add([1.0, 2.0], L.zeros(2)), TypeError, None),
    (lambda L: L.where(L.zeros(2), L.zeros(2), L.zeros(2)), RuntimeError,
     "where expected condition to be a boolean tensor, but got a tensor with dtype Float"),
], ids=["squeeze", "sum", "transpose", "softmax", "broadcast", "matmul", "dot", "mv", "list-exp",
        "list-add", "where-float"])
def test_bad_arguments_raise_torchs_exception(L, program, kind, message):
    with pytest.raises(kind, match=message):
        program(L)


# ------------------------------ a deliberate divergence (docs/divergences.md)
def test_mutating_a_tensor_a_pack_hook_returned_is_detected():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    packed = []

    def pack(t):
        packed.append(t)
        return t

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = (x * 1).exp()
    packed[-1].mul_(2)  # the saved result of exp, changed after it was saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    # the gradient PyTorch would give silently (2 * exp(x)) is not exp's: finite differences
    z = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(lambda t: t.exp(), (z,))


@pytest.mark.parametrize("L", LIBS)
def test_cat_and_zero_dim_shape_ops_raise_like_torch(L):
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 1. "
                                           "Expected size 2 but got size 3 for tensor number 1"):
        L.cat([L.zeros(2, 3), L.zeros(3, 2)], dim=1)
    x = L.tensor(1.0, dtype=L.float64)
    with pytest.raises(RuntimeError, match="zero-dimensional tensor \\(at position 0\\) cannot be concatenated"):
        L.cat([x, x])
    for program, message in [(lambda: x.narrow(0, 0, 1), "narrow\\(\\) cannot be applied to a 0-dim"),
                             (lambda: x.split(1), "split expects at least a 1-dimensional tensor"),
                             (lambda: x.chunk(2), "chunk expects at least a 1-dimensional tensor")]:
        with pytest.raises(RuntimeError, match=message):
            program()
    # dims 0 and -1 name the one "dim" of a 0-d tensor
    assert x.transpose(0, -1).shape == x.flip(0).shape == x.movedim(0, -1).shape == ()
    assert x.var(dim=0, correction=0).item() == 0.0 and x.mean(dim=-1).item() == 1.0


@pytest.mark.parametrize("name", ["median", "max", "min"])
@pytest.mark.parametrize("L", LIBS)
def test_reduction_with_indices_of_a_0d_tensor_differentiates(L, name):
    x = L.tensor(2.0, dtype=L.float64, requires_grad=True)
    values, indices = getattr(x, name)(dim=0)
    g, = L.autograd.grad(values * 3, x, create_graph=True)
    assert g.item() == 3.0 and indices.item() == 0
