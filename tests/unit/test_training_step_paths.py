"""The eager paths a training step takes (issue #14's MLP), against PyTorch: where(mask, 0, x)
on big arrays (a bitwise and), the optimizer's in-place update under no_grad (one numpy
call), ``2 * x`` (the Tensor first), the mean of a loss, and the cases that must take
the general paths instead."""
import warnings

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def bits(array):
    return np.ascontiguousarray(array).view(np.uint8)


def special_values(shape, dtype, seed=0):
    """Random values with inf, -inf, nan, -0.0 and 0.0 among them."""
    values = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    flat = values.reshape(-1)
    flat[:5] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    return values


# ------------------------------------------------------------------ where with a zero
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("zero_first", [True, False])
@pytest.mark.parametrize("zero", [0.0, 0])
def test_where_with_a_zero_matches_torch_bit_for_bit(dtype, zero_first, zero):
    values = special_values((64, 48), dtype)   # 3,072 elements: the bitwise path
    mask = np.random.default_rng(1).standard_normal((64, 48)) < 0
    mask.reshape(-1)[:5] = [True, False, False, True, False]
    args = (zero, values) if zero_first else (values, zero)
    got = minigrad.where(minigrad.tensor(mask), *[minigrad.tensor(a) if isinstance(a, np.ndarray)
                                                   else a for a in args])
    expected = torch.where(torch.tensor(mask), *[torch.tensor(a) if isinstance(a, np.ndarray)
                                                  else a for a in args])
    assert got.dtype == minigrad.tensor(expected.numpy()).dtype
    np.testing.assert_array_equal(bits(got.numpy()), bits(expected.numpy()))


@pytest.mark.parametrize("case", ["minus zero", "broadcast mask", "ints", "small", "transposed"])
def test_where_cases_outside_the_bitwise_path_match_torch(case):
    values = special_values((40, 50), np.float32)
    mask = np.random.default_rng(2).standard_normal((40, 50)) < 0
    zero = 0.0
    if case == "minus zero":
        zero = -0.0
    elif case == "broadcast mask":
        mask = mask[:1]
    elif case == "ints":
        values = np.arange(2000, dtype=np.int64).reshape(40, 50)
    elif case == "small":
        values, mask = values[:2, :3], mask[:2, :3]
    elif case == "numpy scalar":
        zero = np.float64(0.0)
    elif case == "transposed":
        values, mask = values.T, mask.T
    got = minigrad.where(minigrad.tensor(mask), zero, minigrad.tensor(values))
    expected = torch.where(torch.tensor(mask), zero, torch.tensor(values))
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(bits(got.numpy()), bits(expected.numpy()))


def test_relu_gradient_passes_through_nan_results_and_zeroes_the_rest_as_torch():
    x = special_values((80, 60), np.float64)
    g = special_values((80, 60), np.float64, seed=3)
    ours = minigrad.tensor(x, requires_grad=True)
    ours.relu().backward(minigrad.tensor(g))
    theirs = torch.tensor(x, requires_grad=True)
    theirs.relu().backward(torch.tensor(g))
    np.testing.assert_array_equal(bits(ours.grad.numpy()), bits(theirs.grad.numpy()))


# ------------------------------------------------------------------ p -= lr * p.grad
def _pair(array, requires_grad=True):
    return (minigrad.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sgd_update_under_no_grad_matches_torch(dtype):
    rng = np.random.default_rng(4)
    (p, tp), (g, tg) = _pair(rng.standard_normal((30, 20)).astype(dtype)), \
        _pair(rng.standard_normal((30, 20)).astype(dtype), requires_grad=False)
    version = p._version
    with minigrad.no_grad():
        p -= 0.01 * g
        p *= 0.5
        p += g
        p /= 3.0
    with torch.no_grad():
        tp -= 0.01 * tg
        tp *= 0.5
        tp += tg
        tp /= 3.0
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
    assert p._version == version + 4 and p.grad_fn is None and p.requires_grad


def test_division_by_zero_in_place_is_silent_as_in_torch():
    p, tp = _pair(np.array([1.0, -1.0, 0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with minigrad.no_grad():
            p /= 0.0
        with torch.no_grad():
            tp /= 0.0
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


@pytest.mark.parametrize("case", ["view written", "overlapping source", "broadcast", "dtypes",
                                  "itself", "inference"])
def test_in_place_updates_outside_the_one_call_path_match_torch(case):
    base = np.arange(12.0).reshape(3, 4)
    p, tp = _pair(base)
    with minigrad.no_grad(), torch.no_grad():
        if case == "view written":
            view, tview = p[1], tp[1]
            view -= 1.5
            tview -= 1.5
        elif case == "overlapping source":
            flat, tflat = p.view(-1), tp.view(-1)
            with pytest.raises(RuntimeError) as ours:
                flat[1:] -= flat[:-1]
            with pytest.raises(RuntimeError) as theirs:
                tflat[1:] -= tflat[:-1]
            assert "single memory location" in str(ours.value) \
                and "single memory location" in str(theirs.value)
        elif case == "broadcast":
            p -= minigrad.tensor([1.0, 2.0, 3.0, 4.0])
            tp -= torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
        elif case == "dtypes":
            p -= minigrad.ones(3, 4, dtype=minigrad.float32)
            tp -= torch.ones(3, 4, dtype=torch.float32)
        elif case == "itself":
            p -= p
            tp -= tp
        else:
            with minigrad.inference_mode():
                q = minigrad.ones(3)
            with torch.inference_mode():
                tq = torch.ones(3)
            with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
                q -= 1.0
            with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
                tq -= 1.0
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


def test_in_place_update_with_grad_mode_on_still_refuses_a_leaf():
    p = minigrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p -= 1.0


# ------------------------------------------------------------------ 2 * x, 2 + x
@pytest.mark.parametrize("op", ["mul", "add"])
def test_a_number_on_the_left_gives_torchs_graph_and_values(op):
    x, tx = _pair(np.array([1.0, -2.0, 3.0]))
    y = 2.5 * x if op == "mul" else 2.5 + x
    ty = 2.5 * tx if op == "mul" else 2.5 + tx
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert [n is None for n, _ in y.grad_fn.next_functions] == \
        [n is None for n, _ in ty.grad_fn.next_functions]
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    z = np.array([1.0, 2.0, 3.0]) * x   # an array on the left: the Tensor's __rmul__ too
    assert type(z) is minigrad.Tensor
    np.testing.assert_array_equal(z.detach().numpy(), np.array([1.0, 2.0, 3.0]) * x.detach().numpy())


# ------------------------------------------------------------------ a bias gradient, a loss's mean
def test_bias_gradients_are_their_own_arrays_and_match_torch():
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((8, 5)), rng.standard_normal((5, 3)), rng.standard_normal(3)
    (tw, ttw), (tb, ttb) = _pair(w), _pair(b)
    for lib, (w_, b_) in ((minigrad, (tw, tb)), (torch, (ttw, ttb))):
        (lib.tensor(x) @ w_ + b_).tanh().sum().backward()
    np.testing.assert_allclose(tb.grad.numpy(), ttb.grad.numpy(), rtol=1e-14)
    before = tw.grad.numpy().copy()
    tb.grad.add_(1.0)   # writing one gradient leaves the others alone
    np.testing.assert_array_equal(tw.grad.numpy(), before)


@pytest.mark.parametrize("values", [np.ones((3, 4)), np.zeros((0, 2)),
                                    np.float32([1.0, np.inf]), np.array(2.5),
                                    np.array([np.nan, 1.0])])
def test_mean_of_everything_matches_torch(values):
    got = minigrad.tensor(values).mean()
    expected = torch.tensor(values).mean()
    assert got.shape == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
