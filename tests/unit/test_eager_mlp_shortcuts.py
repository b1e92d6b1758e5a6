"""The shortcuts the eager MLP step takes through the op helpers (issue #14, fifth round:
docs/compile.md), against PyTorch and against the general paths they stand in for:
matmul's gradients of numpy matrices, where(mask, 0.0, grad) on small arrays, a bias's
summed gradient, log_softmax's reductions, gather's and scatter_add's checks, zeros_like,
a loss's mean and its gradient, quietly, and SGD's plain update and zero_grad.  Each
case that must take the general path (outer products, views, other dtypes, bad
arguments) is here too."""
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import formulas
from minigrad.kernels.core import sum_to, where_array
from minigrad.kernels.quiet import quietly
from minigrad.kernels.reductions import mean_array

torch = pytest.importorskip("torch")


def bits(array):
    return np.ascontiguousarray(array).view(np.uint8)


def special_values(shape, dtype=np.float64, seed=0):
    """Random values with inf, -inf, nan, -0.0 and 0.0 among them."""
    values = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    flat = values.reshape(-1)
    flat[:5] = [np.inf, -np.inf, np.nan, -0.0, 0.0][:flat.size]
    return values


def pair(array, requires_grad=True):
    return (minigrad.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))


# ------------------------------------------------------------------ the MLP step itself
def mlp_loss(lib, params, x, picks):
    h = lib.tensor(x)
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i < len(params) - 2:
            h = h.relu()
    return -h.log_softmax(1).gather(1, lib.tensor(picks)).mean()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sizes, batch", [((4, 4, 4, 10), 2), ((7, 5, 3), 1), ((6, 1, 4), 3)])
def test_mlp_step_gradients_and_update_match_torch(dtype, sizes, batch):
    rng = np.random.default_rng(1)
    arrays = []
    for i, o in zip(sizes, sizes[1:]):
        arrays += [rng.standard_normal((i, o)).astype(dtype), rng.standard_normal(o).astype(dtype)]
    x = rng.standard_normal((batch, sizes[0])).astype(dtype)
    picks = rng.integers(0, sizes[-1], (batch, 1))
    ours, theirs = zip(*(pair(a) for a in arrays))
    opt, topt = minigrad.optim.SGD(ours, lr=0.1), torch.optim.SGD(theirs, lr=0.1)
    for _ in range(2):
        loss, tloss = mlp_loss(minigrad, ours, x, picks), mlp_loss(torch, theirs, x, picks)
        loss.backward()
        tloss.backward()
        rtol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(loss.item(), tloss.item(), rtol=rtol)
        for p, tp in zip(ours, theirs):
            assert p.grad.dtype == p.dtype and p.grad.shape == p.shape
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=rtol)
        opt.step()
        topt.step()
        opt.zero_grad()
        topt.zero_grad()
        assert all(p.grad is None for p in ours)
    for p, tp in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-5)


def test_mlp_loss_second_order_matches_torch():
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((4, 5)),
              rng.standard_normal(5)]
    x, picks = rng.standard_normal((2, 3)), np.array([[1], [4]])
    results = []
    for lib, params in ((minigrad, pair_list(arrays, 0)), (torch, pair_list(arrays, 1))):
        loss = mlp_loss(lib, params, x, picks)
        grads = lib.autograd.grad(loss, params, create_graph=True)
        total = sum((g * g).sum() for g in grads)
        results.append([g.detach().numpy() for g in lib.autograd.grad(total, params)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def pair_list(arrays, which):
    return [pair(a)[which] for a in arrays]


def test_mlp_step_compiled_matches_eager():
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((4, 4)), rng.standard_normal(4), rng.standard_normal((4, 10)),
              rng.standard_normal(10)]
    x, picks = rng.standard_normal((2, 4)), np.array([[3], [7]])
    grads = []
    for compiled in (False, True):
        params = [minigrad.tensor(a, requires_grad=True) for a in arrays]

        def loss_fn(xt, pt):
            h = (xt @ params[0] + params[1]).relu()
            return -(h @ params[2] + params[3]).log_softmax(1).gather(1, pt).mean()
        fn = minigrad.compile(loss_fn) if compiled else loss_fn
        for _ in range(3):   # the compiled function's later calls run its generated code
            for p in params:
                p.grad = None
            fn(minigrad.tensor(x), minigrad.tensor(picks)).backward()
        grads.append([p.grad.numpy() for p in params])
    for eager, compiled in zip(*grads):
        np.testing.assert_array_equal(bits(eager), bits(compiled))


# ------------------------------------------------------------------ matmul's gradients
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k, n", [(2, 4, 3), (1, 4, 3), (2, 1, 3), (2, 4, 1), (1, 1, 1)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_matmul_gradients_match_torch(dtype, m, k, n, layout):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    g = rng.standard_normal((m, n)).astype(dtype)
    if layout == "transposed":   # operands that are views (general strides)
        a, b = np.ascontiguousarray(a.T).T, np.ascontiguousarray(b.T).T
    (x, tx), (w, tw) = pair(a), pair(b)
    (x @ w).backward(minigrad.tensor(g))
    (tx @ tw).backward(torch.tensor(g))
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    for ours, theirs in ((x, tx), (w, tw)):
        assert ours.grad.dtype == ours.dtype
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=rtol, atol=rtol)


def test_matmul_gradient_shortcut_is_numpys_matmul_bit_for_bit():
    rng = np.random.default_rng(5)
    g, w, x = rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    np.testing.assert_array_equal(bits(formulas.matmul_grad_self(g, x.shape, w)), bits(g @ w.T))
    np.testing.assert_array_equal(bits(formulas.matmul_grad_other(g, x, w.shape)), bits(x.T @ g))
    # an outer product (a contracted dimension of 1) is a multiplication, as before
    g1, w1 = g[:, :1], w[:, :1]
    np.testing.assert_array_equal(formulas.matmul_grad_self(g1, (5, 4), w1), g1 * w1.T)


# ------------------------------------------------------------------ where(mask, 0.0, grad)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("zero", [0.0, -0.0, 1.5])
def test_small_where_with_a_float_matches_torch_bit_for_bit(dtype, zero):
    values = special_values((3, 5), dtype)
    mask = np.random.default_rng(6).standard_normal((3, 5)) < 0
    got = minigrad.where(minigrad.tensor(mask), zero, minigrad.tensor(values))
    expected = torch.where(torch.tensor(mask), zero, torch.tensor(values))
    assert got.dtype == minigrad.tensor(expected.numpy()).dtype
    np.testing.assert_array_equal(bits(got.numpy()), bits(expected.numpy()))


@pytest.mark.parametrize("size", [(2, 3), (64, 48)])
def test_where_shortcut_is_the_general_paths_result(size):
    values = special_values(size)
    mask = np.random.default_rng(7).standard_normal(size) < 0
    general = np.where(mask, 0.0, values)
    np.testing.assert_array_equal(bits(where_array(mask, 0.0, values)), bits(general))
    ints = np.arange(values.size).reshape(size)
    assert where_array(mask, 0.0, ints).dtype == np.where(mask, 0.0, ints).dtype


def test_where_refuses_a_float_condition_as_torch():
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        where_array(np.ones((2, 2)), 0.0, np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean"):
        torch.where(torch.ones(2, 2), 0.0, torch.ones(2, 2))


def test_small_relu_gradient_matches_torch_bit_for_bit():
    x, g = special_values((3, 4)), special_values((3, 4), seed=8)
    ours, theirs = pair(x)
    ours.relu().backward(minigrad.tensor(g))
    theirs.relu().backward(torch.tensor(g))
    np.testing.assert_array_equal(bits(ours.grad.numpy()), bits(theirs.grad.numpy()))


# ------------------------------------------------------------------ a bias's gradient
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("shape, target", [((5, 3), (3,)), ((2, 5, 3), (3,)),
                                           ((2, 5, 3), (5, 3)), ((5, 3), (1, 3)),
                                           ((5, 3), [3])])
def test_sum_to_is_numpys_sum_bit_for_bit(dtype, shape, target):
    x = (np.random.default_rng(9).standard_normal(shape) * 100).astype(dtype)
    lead = len(shape) - len(target)
    kept = tuple(i + lead for i, n in enumerate(target) if n == 1 and shape[i + lead] != 1)
    expected = x.sum(axis=tuple(range(lead)) + kept, keepdims=True).reshape(tuple(target))
    got = sum_to(x, target)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(bits(got), bits(expected))
    assert got.base is None or got.base is not x   # a new array, not a view of the gradient


@pytest.mark.parametrize("batch_shape", [(6,), (2, 3)])
def test_bias_gradient_matches_torch(batch_shape):
    rng = np.random.default_rng(10)
    (b, tb), v = pair(rng.standard_normal(4).astype(np.float32)), rng.standard_normal(batch_shape + (4,))
    g = special_values(batch_shape + (4,), np.float32, seed=11)
    g.reshape(-1)[:2] = 1.0   # (no inf - inf: the sums then match as numbers)
    (minigrad.tensor(v.astype(np.float32)) + b).backward(minigrad.tensor(g))
    (torch.tensor(v.astype(np.float32)) + tb).backward(torch.tensor(g))
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-6)


# ------------------------------------------------------------------ log_softmax, gather, mean
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_log_softmax_with_infinities_and_nan_matches_torch(dtype, dim, layout):
    x = np.random.default_rng(12).standard_normal((5, 6)).astype(dtype)
    x[1, 2], x[2], x[3, 1] = np.nan, -np.inf, np.inf
    if layout == "transposed":
        x = np.ascontiguousarray(x.T).T
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # silently, as PyTorch
        got = minigrad.tensor(x).log_softmax(dim).numpy()
    expected = torch.tensor(x).log_softmax(dim).numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dim", [1, -1, 0, -2])
def test_gather_and_its_gradient_with_repeated_indices_match_torch(dim):
    x = np.random.default_rng(13).standard_normal((3, 4))
    index = np.array([[0, 0, 2], [1, 1, 1], [2, 0, 0]])
    (ours, theirs) = pair(x)
    got, expected = ours.gather(dim, minigrad.tensor(index)), theirs.gather(dim, torch.tensor(index))
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    g = np.random.default_rng(14).standard_normal((3, 3))
    got.backward(minigrad.tensor(g))
    expected.backward(torch.tensor(g))
    np.testing.assert_array_equal(bits(ours.grad.numpy()), bits(theirs.grad.numpy()))


@pytest.mark.parametrize("op", ["gather", "scatter_add"])
def test_gather_and_scatter_add_refuse_bad_dims_and_index_dtypes_as_torch(op):
    def run(lib, dim, index_dtype):
        x = lib.zeros(2, 3)
        index = lib.tensor(np.array([[0, 1], [1, 2]]).astype(index_dtype))
        if op == "gather":
            return x.gather(dim, index)
        return x.scatter_add(dim, index, lib.ones(2, 2))
    for dim, index_dtype, error in ((2, np.int64, IndexError), (-3, np.int64, IndexError),
                                    (1, np.float32, RuntimeError)):
        with pytest.raises(error) as ours:
            run(minigrad, dim, index_dtype)
        with pytest.raises(error):
            run(torch, dim, index_dtype)
        assert ("Dimension out of range" in str(ours.value)) == (error is IndexError)
    np.testing.assert_array_equal(run(minigrad, -1, np.int64).numpy(), run(torch, -1, np.int64).numpy())


@pytest.mark.parametrize("layout", ["contiguous", "fortran", "strided"])
def test_zeros_like_keeps_numpys_layout(layout):
    x = np.arange(24.0).reshape(4, 6)
    x = {"contiguous": x, "fortran": np.asfortranarray(x), "strided": x[:, ::2]}[layout]
    got, expected = formulas.zeros_like(x), np.zeros_like(x)
    assert got.strides == expected.strides and got.dtype == expected.dtype
    assert not got.any() and got.flags.writeable


def test_zeros_like_of_a_tensor_is_a_constant():
    z = formulas.zeros_like(minigrad.ones(2, 3, requires_grad=True))
    assert isinstance(z, minigrad.Tensor) and z.grad_fn is None and not z.requires_grad


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 1), (128, 1), (70001,)])
def test_mean_of_everything_is_the_true_divide_ufuncs_result(dtype, shape):
    rng = np.random.default_rng(15)
    x = (rng.standard_normal(shape) * 1e3).astype(dtype)
    if x.size > 2:
        x.reshape(-1)[1] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # an empty mean is NaN, silently
        got = mean_array(x, None, False)
        with np.errstate(all="ignore"):
            expected = np.asarray(np.true_divide(np.add.reduce(x, axis=None), x.size), dtype=dtype)
    assert type(got) is np.ndarray and got.shape == () and got.dtype == dtype
    np.testing.assert_array_equal(bits(got), bits(expected))


@pytest.mark.parametrize("shape", [(), (0, 3), (4, 1), (2, 3)])
def test_mean_gradient_matches_torch(shape):
    x = np.random.default_rng(16).standard_normal(shape).astype(np.float32)
    ours, theirs = pair(x)
    (-ours.mean()).backward()
    (-theirs.mean()).backward()
    assert ours.grad.dtype == ours.dtype
    np.testing.assert_array_equal(bits(ours.grad.numpy()), bits(theirs.grad.numpy()))


def test_reduced_numel_of_all_dims():
    assert formulas.reduced_numel((), None) == 1
    assert formulas.reduced_numel((4, 0, 2), None) == 0
    assert formulas.reduced_numel((4, 3, 2), None) == 24
    assert formulas.reduced_numel((4, 3, 2), (0, -1)) == 8


# ------------------------------------------------------------------ quietly
def test_quietly_is_silent_and_leaves_numpys_state_alone():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = quietly(np.log, np.array([0.0, -1.0]))
    assert got[0] == -np.inf and np.isnan(got[1])
    assert np.geterr() == before
    with np.errstate(divide="raise"):
        quietly(np.log, np.array([0.0]))
        with pytest.raises(FloatingPointError):
            np.log(np.array([0.0]))


# ------------------------------------------------------------------ SGD
@pytest.mark.parametrize("options", [{}, {"momentum": 0.9}, {"weight_decay": 0.1},
                                     {"maximize": True}, {"momentum": 0.5, "nesterov": True}])
def test_sgd_steps_match_torch(options):
    rng = np.random.default_rng(17)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((2, 2))]
    ours, theirs = zip(*(pair(a) for a in arrays))
    opt = minigrad.optim.SGD(ours, lr=0.1, **options)
    topt = torch.optim.SGD(theirs, lr=0.1, **options)
    for step in range(3):
        for lib, params, o in ((minigrad, ours, opt), (torch, theirs, topt)):
            o.zero_grad()
            loss = (params[0] * params[0]).sum() + params[1].sin().sum()
            loss.backward()   # the third parameter has no gradient: skipped
            o.step()
        for p, tp in zip(ours, theirs):
            np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12)
    assert ours[2].grad is None and theirs[2].grad is None


def test_sgd_step_bumps_the_version_as_torch():
    for lib in (minigrad, torch):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        y = (p * p).sum()
        y.backward(retain_graph=True)
        version = p._version
        opt.step()
        assert p._version == version + 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_step_hooks_registered_while_stepping_run_as_in_torch():
    for lib in (minigrad, torch):
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        seen = []

        def pre_hook(optimizer, args, kwargs):
            seen.append("pre")
            optimizer.register_step_post_hook(lambda *a: seen.append("post"))
        opt.register_step_pre_hook(pre_hook)
        opt.step()
        assert seen == ["pre", "post"], lib.__name__


def test_zero_grad_to_zeros_and_to_none_match_torch():
    for lib in (minigrad, torch):
        p, q = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        p.grad = lib.full((2,), 3.0)
        opt = lib.optim.SGD([p, q], lr=0.1)
        grad = p.grad
        opt.zero_grad(set_to_none=False)
        assert p.grad is grad and not p.grad.any() and q.grad is None
        opt.zero_grad()
        assert p.grad is None and q.grad is None
