"""numpy functions on Tensors dispatch to differentiable minigrad ops."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import gradcheck

X = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
Y = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]])

# (id, numpy call on Tensors, the same with minigrad ops); every case is also gradchecked
CASES = [
    ("sqrt", lambda x, y: np.sqrt(x), lambda x, y: mg.sqrt(x)),
    ("exp", lambda x, y: np.exp(x), lambda x, y: mg.exp(x)),
    ("log", lambda x, y: np.log(x), lambda x, y: mg.log(x)),
    ("tanh", lambda x, y: np.tanh(x), lambda x, y: mg.tanh(x)),
    ("sin", lambda x, y: np.sin(x), lambda x, y: mg.sin(x)),
    ("abs", lambda x, y: np.abs(y), lambda x, y: mg.abs(y)),
    ("negative", lambda x, y: np.negative(x), lambda x, y: -x),
    ("square", lambda x, y: np.square(y), lambda x, y: y * y),
    ("add", lambda x, y: np.add(x, y), lambda x, y: x + y),
    ("subtract", lambda x, y: np.subtract(x, y), lambda x, y: x - y),
    ("multiply", lambda x, y: np.multiply(x, y), lambda x, y: x * y),
    ("divide", lambda x, y: np.divide(y, x), lambda x, y: y / x),
    ("power", lambda x, y: np.power(x, 3), lambda x, y: x ** 3),
    ("maximum", lambda x, y: np.maximum(x, 2.5), lambda x, y: mg.maximum(x, mg.tensor(2.5))),
    ("minimum", lambda x, y: np.minimum(x, y), lambda x, y: mg.minimum(x, y)),
    ("array_plus_tensor", lambda x, y: np.ones(3) + x, lambda x, y: x + 1.0),
    ("array_matmul_tensor", lambda x, y: np.ones((2, 2)) @ x, lambda x, y: mg.tensor(np.ones((2, 2))) @ x),
    ("matmul", lambda x, y: np.matmul(x, y.T), lambda x, y: x @ y.T),
    ("dot", lambda x, y: np.dot(x, y.T), lambda x, y: x @ y.T),
    ("sum", lambda x, y: np.sum(x), lambda x, y: x.sum()),
    ("sum_axis", lambda x, y: np.sum(x, axis=0), lambda x, y: x.sum(0)),
    ("sum_keepdims", lambda x, y: np.sum(x, axis=1, keepdims=True), lambda x, y: x.sum(1, keepdim=True)),
    ("add_reduce", lambda x, y: np.add.reduce(x, axis=1), lambda x, y: x.sum(1)),
    ("mean", lambda x, y: np.mean(x), lambda x, y: x.mean()),
    ("mean_axis", lambda x, y: np.mean(y, axis=1), lambda x, y: y.mean(1)),
    ("max_axis", lambda x, y: np.max(y, axis=0), lambda x, y: mg.amax(y, 0)),
    ("min_all", lambda x, y: np.min(y), lambda x, y: mg.amin(y, (0, 1))),
    ("concatenate", lambda x, y: np.concatenate([x, y], axis=1), lambda x, y: mg.cat([x, y], 1)),
    ("concatenate_default", lambda x, y: np.concatenate((x, y)), lambda x, y: mg.cat([x, y], 0)),
    ("stack", lambda x, y: np.stack([x, y]), lambda x, y: mg.stack([x, y])),
    ("where", lambda x, y: np.where(y > 0, x, y), lambda x, y: mg.where(y > 0, x, y)),
    ("clip", lambda x, y: np.clip(x, 2.2, 4.8), lambda x, y: mg.clamp(x, 2.2, 4.8)),
    ("transpose", lambda x, y: np.transpose(x), lambda x, y: x.permute((1, 0))),
    ("reshape", lambda x, y: np.reshape(x, (3, 2)), lambda x, y: x.reshape((3, 2))),
    ("expand_dims", lambda x, y: np.expand_dims(x, 0), lambda x, y: x.unsqueeze(0)),
]


@pytest.mark.parametrize("numpy_call, minigrad_call", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_numpy_function_keeps_gradients(numpy_call, minigrad_call):
    x = mg.tensor(X, requires_grad=True)
    y = mg.tensor(Y, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no clog warning: nothing was converted
        got = numpy_call(x, y)
    assert isinstance(got, mg.Tensor) and got.requires_grad
    want = minigrad_call(x, y)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    gx = None if x.grad is None else x.grad.detach().numpy().copy()
    gy = None if y.grad is None else y.grad.detach().numpy().copy()
    x.grad = y.grad = None
    want.sum().backward()
    for g, t in ((gx, x), (gy, y)):
        if g is None:
            assert t.grad is None
        else:
            np.testing.assert_allclose(g, t.grad.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("numpy_call", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_numpy_function_gradcheck(numpy_call):
    x = mg.tensor(X, requires_grad=True)
    y = mg.tensor(Y + 0.1, requires_grad=True)   # away from the kinks of abs / max
    assert gradcheck(lambda a, b: numpy_call(a, b), (x, y))


def test_essay_sqrt_through_numpy_gives_1_25():
    x = mg.tensor(4.0, requires_grad=True)
    (np.sqrt(x) + x).backward()
    assert x.grad.item() == pytest.approx(1.25)


def test_numpy_var_and_std_divide_by_n_like_numpy():
    x = mg.tensor(X, requires_grad=True)
    if not hasattr(mg, "var"):
        with pytest.raises(TypeError, match="numpy.var"):
            np.var(x, axis=0)
        return
    np.testing.assert_allclose(np.var(x, axis=0).detach().numpy(), np.var(X, axis=0))


def test_function_without_a_differentiable_op_raises_and_names_it():
    x = mg.tensor([0.0, 3.0, 7.0], requires_grad=True)
    with pytest.raises(TypeError, match=r"numpy\.unwrap has no differentiable minigrad op.*detach"):
        np.unwrap(x)
    with pytest.raises(TypeError, match=r"numpy\.logaddexp2"):
        if hasattr(mg, "logaddexp2"):
            raise TypeError("numpy.logaddexp2 exists now; nothing to check")
        np.logaddexp2(x, x)


def test_function_without_op_computes_on_data_when_no_grad_is_needed():
    x = mg.tensor([0.0, 3.0, 7.0], dtype=mg.float64)
    got = np.unwrap(x)
    assert isinstance(got, mg.Tensor)
    np.testing.assert_allclose(got.numpy(), np.unwrap(np.array([0.0, 3.0, 7.0])))
    w = mg.tensor([0.0, 3.0, 7.0], requires_grad=True)
    with mg.no_grad():
        assert isinstance(np.unwrap(w), mg.Tensor)


def test_detached_input_cuts_on_purpose():
    x = mg.tensor([0.0, 3.0, 7.0], requires_grad=True)
    got = np.unwrap(x.detach())
    assert not got.requires_grad


def test_results_without_gradient_compute_on_data():
    x = mg.tensor(X, requires_grad=True)
    assert np.argmax(x).item() == 5
    assert np.shape(x) == (2, 3)
    assert np.allclose(x, x)
    mask = np.greater(x, 2.0)
    assert isinstance(mask, mg.Tensor) and not mask.requires_grad
    assert np.isnan(x).numpy().sum() == 0


def test_out_argument_with_grad_raises():
    x = mg.tensor([1.0, 4.0], requires_grad=True)
    with pytest.raises(TypeError, match="out="):
        np.sqrt(x, out=np.empty(2))


def test_unsupported_argument_with_grad_raises_and_names_it():
    x = mg.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match="where="):
        np.sum(x, where=np.array([True, False, True]))


def test_unsupported_ufunc_method_with_grad_raises():
    x = mg.tensor([1.0, 4.0], requires_grad=True)
    with pytest.raises(TypeError, match=r"numpy\.subtract\.reduce"):
        np.subtract.reduce(x)


def test_tensors_without_grad_still_give_tensors():
    x = mg.tensor(X)
    got = np.exp(x)
    assert isinstance(got, mg.Tensor) and not got.requires_grad
    np.testing.assert_allclose(got.numpy(), np.exp(X))
    got = np.concatenate([x, x], axis=None)
    assert got.shape == (12,)


def _has(path):
    target = mg
    for part in path.split("."):
        target = getattr(target, part, None)
    return target is not None


# numpy calls whose minigrad op is added by other parts of the op library: once the op
# exists the call must dispatch to it (values and gradcheck); until then it must raise
# a TypeError that names the numpy function.
LATER = [
    ("var", "var", lambda x, y: np.var(x, axis=0)),
    ("std_ddof", "std", lambda x, y: np.std(x, axis=1, ddof=1)),
    ("cumsum", "cumsum", lambda x, y: np.cumsum(x, axis=1)),
    ("cumsum_flat", "cumsum", lambda x, y: np.cumsum(x)),
    ("prod", "prod", lambda x, y: np.prod(x, axis=0)),
    ("norm", "linalg.norm", lambda x, y: np.linalg.norm(x, axis=1)),
    ("einsum", "einsum", lambda x, y: np.einsum("ij,ij->i", x, y)),
    ("outer", "outer", lambda x, y: np.outer(x[0], y[0])),
    ("flip", "flip", lambda x, y: np.flip(x, 0)),
    ("roll", "roll", lambda x, y: np.roll(x, 1, axis=1)),
    ("tile", "tile", lambda x, y: np.tile(x, 2)),
    ("tril", "tril", lambda x, y: np.tril(x)),
    ("split", "tensor_split", lambda x, y: np.split(x, 3, axis=1)[1]),
    ("exp2", "exp2", lambda x, y: np.exp2(x)),
    ("log1p", "log1p", lambda x, y: np.log1p(x)),
    ("arctan2", "atan2", lambda x, y: np.arctan2(x, y)),
    ("logaddexp", "logaddexp", lambda x, y: np.logaddexp(x, y)),
    ("det", "linalg.det", lambda x, y: np.linalg.det(x[:, :2])),
]


@pytest.mark.parametrize("op, numpy_call", [c[1:] for c in LATER], ids=[c[0] for c in LATER])
def test_numpy_functions_for_ops_added_later(op, numpy_call):
    x = mg.tensor(X, requires_grad=True)
    y = mg.tensor(Y + 0.1, requires_grad=True)
    if not _has(op):
        with pytest.raises(TypeError, match=r"numpy\."):
            numpy_call(x, y)
        return
    got = numpy_call(x, y)
    assert isinstance(got, mg.Tensor) and got.requires_grad
    np.testing.assert_allclose(got.detach().numpy(), numpy_call(X, Y + 0.1), rtol=1e-10)
    assert gradcheck(lambda a, b: numpy_call(a, b), (x, y))


def test_numpy_median_is_not_confused_with_minigrad_median():
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with pytest.raises(TypeError, match="numpy.median averages"):
        np.median(x)
    assert np.median(x.detach()).item() == 2.5


def test_inplace_numpy_update_with_a_constant_tensor_keeps_the_array():
    a = np.zeros(3)
    a += mg.tensor([1.0, 2.0, 3.0])
    assert type(a) is np.ndarray
    np.testing.assert_allclose(a, [1.0, 2.0, 3.0])
    b = np.zeros(3)
    with pytest.raises(TypeError, match="out="):
        b += mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
