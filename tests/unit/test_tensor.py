"""Tensor basics: construction, dtypes, operators, grad mode, version counters."""
import numpy as np
import pytest

import minigrad as mg


def test_python_floats_give_float32_and_numpy_arrays_keep_their_dtype():
    assert mg.tensor([1.0, 2.0]).dtype == mg.float32
    assert mg.tensor(np.ones(2)).dtype == mg.float64
    x32 = mg.tensor(np.ones(3, dtype=np.float32))
    assert x32.dtype == np.float32
    assert (x32 * 2.0).dtype == np.float32
    assert (x32 + x32).exp().dtype == np.float32


def test_creation_functions():
    assert mg.zeros(2, 3).shape == (2, 3) and mg.ones((2, 3)).shape == (2, 3)
    assert mg.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert mg.arange(4).dtype == np.int64 and mg.arange(0.0, 1.0, 0.5).tolist() == [0.0, 0.5]
    assert mg.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert mg.rand(3).shape == (3,) and mg.randn(2, 2).dtype == mg.float32
    assert mg.zeros_like(mg.ones(2)).tolist() == [0.0, 0.0]
    assert mg.ones_like(mg.zeros(2)).tolist() == [1.0, 1.0]
    assert mg.empty(2, 2).shape == (2, 2)
    shared = np.zeros(2)
    mg.from_numpy(shared).data[0] = 5
    assert shared[0] == 5


def test_integer_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        mg.arange(3).requires_grad_()


def test_operators_and_reflected_forms():
    x = mg.tensor([1.0, 2.0])
    assert (2 - x).tolist() == [1.0, 0.0] and (2 / x).tolist() == [2.0, 1.0]
    assert (x ** 2).tolist() == [1.0, 4.0] and (2 ** x).tolist() == [2.0, 4.0]
    assert (-x).tolist() == [-1.0, -2.0] and (x @ x).item() == 5.0
    assert (np.array([1.0, 1.0]) * x).tolist() == [1.0, 2.0]


def test_comparisons_are_boolean_and_never_require_grad():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    mask = x > 1.5
    assert mask.dtype == np.bool_ and not mask.requires_grad and mask.tolist() == [False, True]


def test_results_require_grad_when_an_input_does():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * mg.tensor([2.0])
    assert y.requires_grad and not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    assert x.is_leaf and mg.tensor([1.0]).is_leaf


def test_no_grad_enable_grad_set_grad_enabled():
    x = mg.tensor([1.0], requires_grad=True)
    with mg.no_grad():
        assert not (x * 2).requires_grad
        with mg.enable_grad():
            assert (x * 2).requires_grad
    with mg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @mg.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad and mg.is_grad_enabled()


def test_set_grad_enabled_as_a_plain_call_and_decorator():
    mg.set_grad_enabled(False)
    assert not mg.is_grad_enabled()
    mg.set_grad_enabled(True)

    @mg.set_grad_enabled(False)
    def f(t):
        return t * 2
    assert mg.is_grad_enabled()
    assert not f(mg.tensor([1.0], requires_grad=True)).requires_grad


def test_detach_shares_data_and_version_counter():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad
    d.add_(1.0)
    assert x.tolist() == [2.0, 3.0] and x._version == 1


def test_inplace_ops_bump_the_version():
    x = mg.tensor([1.0, 2.0])
    for op in (lambda t: t.add_(1), lambda t: t.sub_(1), lambda t: t.mul_(2), lambda t: t.div_(2),
               lambda t: t.zero_(), lambda t: t.fill_(3.0), lambda t: t.copy_(mg.tensor([5.0, 6.0]))):
        before = x._version
        op(x)
        assert x._version == before + 1
    x += 1
    x -= 1
    x *= 2
    x /= 2
    assert x._version == 11 and x.tolist() == [5.0, 6.0]


def test_modifying_a_saved_tensor_raises_the_version_error_naming_node_shape_versions():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y          # saves y (version 0)
    y.mul_(3)          # version 1
    with pytest.raises(RuntimeError) as err:
        z.sum().backward()
    message = str(err.value)
    assert "modified by an inplace operation" in message
    assert "[minigrad.FloatTensor [2]], which is output 0 of Mul," in message  # PyTorch's text
    assert "is at version 1; expected version 0" in message


def test_inplace_on_a_leaf_that_requires_grad_raises_unless_no_grad():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        p -= 1.0
    (p * p).sum().backward()
    with mg.no_grad():
        p -= 0.1 * p.grad
    np.testing.assert_allclose(p.detach().numpy(), [0.8, 1.6])
    assert p.is_leaf and p.requires_grad


def test_inplace_op_is_differentiable_and_rebases_history():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    y.mul_(x)                      # y = x * x
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_numpy_and_item_and_tolist():
    x = mg.tensor([1.5], requires_grad=True)
    assert x.item() == 1.5 and x.tolist() == [1.5]
    with pytest.raises(RuntimeError, match="Use tensor.detach\\(\\).numpy\\(\\)"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.5]


def test_methods_mirror_functions():
    x = mg.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert x.sum().item() == 6.0 and x.sum(dim=1).tolist() == [-1.0, 7.0]
    assert x.abs().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert x.max(dim=1).values.tolist() == [1.0, 4.0] and x.max(dim=1).indices.tolist() == [0, 1]
    assert x.transpose(0, 1).tolist() == [[1.0, 3.0], [-2.0, 4.0]]
    assert x.reshape((4,)).tolist() == [1.0, -2.0, 3.0, 4.0]


def test_repr_looks_like_pytorch():
    assert repr(mg.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    assert "grad_fn=<MulBackward0>" in repr(mg.tensor([1.0], requires_grad=True) * 2)


def test_functions_take_torchs_keyword_names():
    # torch's Python API calls the schema's `self` `input`: torch.sum(input=x, dim=0)
    x = mg.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    assert mg.sum(input=x, dim=0).tolist() == [4.0, 2.0]
    assert mg.clamp(input=x, min=0.0).tolist() == [[1.0, 0.0], [3.0, 4.0]]
    assert mg.max(input=x, dim=1, keepdim=True).values.tolist() == [[1.0], [4.0]]
    assert mg.add(x, other=x, alpha=2).tolist() == [[3.0, -6.0], [9.0, 12.0]]
    with pytest.raises(TypeError):
        mg.exp(self=x)


def _grad_warnings(lib, reads):
    import warnings
    x = lib.ones(2, requires_grad=True)
    y, kept = x * 2, x * 3
    kept.retain_grad()
    (y + kept).sum().backward()
    tensors = {"leaf": x, "non-leaf": y, "retained": kept, "no-grad": lib.ones(2)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _ = tensors[reads].grad
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("reads", ["leaf", "non-leaf", "retained", "no-grad"])
def test_reading_a_non_leafs_grad_warns_as_torch(reads):
    # the usual mistake: reading .grad of an intermediate result, which stays None
    torch = pytest.importorskip("torch")
    theirs = [m.split(" (Triggered internally")[0] for m in _grad_warnings(torch, reads)]
    assert _grad_warnings(mg, reads) == theirs


FILL_DIAGONAL = [lambda L: L.ones(2, 3, 4).fill_diagonal_(0), lambda L: L.ones(3).fill_diagonal_(0),
                 lambda L: L.ones(5, 2).fill_diagonal_(0, wrap=True),
                 lambda L: L.ones(5, 2).fill_diagonal_(0), lambda L: L.ones(2, 2, 2).fill_diagonal_(0),
                 lambda L: L.ones(2, 3, dtype=L.long).fill_diagonal_(7)]


@pytest.mark.parametrize("case", range(len(FILL_DIAGONAL)))
def test_fill_diagonal_as_torch(case):
    torch = pytest.importorskip("torch")
    try:
        theirs = FILL_DIAGONAL[case](torch)
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match=str(error)):
            FILL_DIAGONAL[case](mg)
        return
    assert repr(FILL_DIAGONAL[case](mg)) == repr(theirs).replace("torch", "minigrad")


def test_fill_diagonal_gradient_is_zero_on_the_diagonal():
    x = mg.ones(2, 2, requires_grad=True)
    (x * 2).fill_diagonal_(5).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [2.0, 0.0]]


WINDOWS_AND_TAKE = [
    lambda L: L.arange(10.0).unfold(0, 3, 2), lambda L: L.arange(10.0).view(2, 5).unfold(-1, 2, 1),
    lambda L: L.arange(10.0).unfold(0, 0, 1), lambda L: L.tensor(3.0).unfold(0, 1, 1),
    lambda L: L.arange(10.0).unfold(0, 11, 1), lambda L: L.arange(10.0).unfold(0, 2, 0),
    lambda L: L.arange(10.0).view(2, 5).take(L.tensor([[0, 9], [-1, 3]])),
    lambda L: L.take(L.arange(10.0), L.tensor([10])),
    lambda L: (L.ones(2, 3).stride(), L.ones(2, 3).t().stride(), L.ones(3).expand(2, 3).stride(1)),
]


@pytest.mark.parametrize("case", range(len(WINDOWS_AND_TAKE)))
def test_unfold_take_and_stride_as_torch(case):
    torch = pytest.importorskip("torch")
    try:
        theirs = WINDOWS_AND_TAKE[case](torch)
    except (RuntimeError, IndexError) as error:
        with pytest.raises(type(error), match=str(error)):
            WINDOWS_AND_TAKE[case](mg)
        return
    assert repr(WINDOWS_AND_TAKE[case](mg)) == repr(theirs).replace("torch", "minigrad")


def test_unfold_gradient_adds_up_over_overlapping_windows():
    x = mg.arange(5.0, requires_grad=True)
    x.unfold(0, 3, 1).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]
