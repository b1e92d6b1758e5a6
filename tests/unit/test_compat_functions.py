"""nonzero, unique, bincount, searchsorted, bucketize, meshgrid, tril/triu_indices,
cartesian_prod, block_diag, heaviside, cdist, quantile and mode against torch 2.13:
values, dtypes, gradients (first and second order through minigrad's gradcheck for the
differentiable ones) and errors."""
import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)


def _same(m, t):
    if isinstance(t, (tuple, list)):
        assert len(m) == len(t)
        for a, b in zip(m, t):
            _same(a, b)
        return
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(m.shape) == tuple(t.shape)
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-7, atol=1e-12)


def _both(fn, *arrays, grad=False):
    """fn over minigrad and over torch tensors made from the same arrays."""
    ms = [mg.tensor(a, requires_grad=grad) for a in arrays]
    ts = [torch.tensor(a, requires_grad=grad) for a in arrays]
    return (fn(mg, *ms), ms), (fn(torch, *ts), ts)


def _same_errors(fn, *arrays, error=RuntimeError):
    with pytest.raises(error) as texc:
        fn(torch, *[torch.tensor(a) for a in arrays])
    with pytest.raises(error) as mexc:
        fn(mg, *[mg.tensor(a) for a in arrays])
    assert str(mexc.value) == str(texc.value)


INTS = np.array([[0, 3, 0], [1, 0, 2]])
FLOATS = np.array([[0.5, -1.0, 0.0], [2.0, 0.0, 3.5]])

CASES = {
    "nonzero": (lambda L, x: L.nonzero(x), [INTS]),
    "nonzero_tuple": (lambda L, x: L.nonzero(x, as_tuple=True), [FLOATS]),
    "nonzero_method": (lambda L, x: x.nonzero(), [FLOATS > 0]),
    "argwhere": (lambda L, x: L.argwhere(x), [INTS]),
    "unique": (lambda L, x: L.unique(x), [np.array([3, 1, 2, 1, 3])]),
    "unique_all": (lambda L, x: L.unique(x, return_inverse=True, return_counts=True),
                   [np.array([[3, 1], [2, 1]])]),
    "unique_dim": (lambda L, x: L.unique(x, dim=0, return_inverse=True, return_counts=True),
                   [np.array([[1, 2], [1, 2], [0, 5]])]),
    "unique_method": (lambda L, x: x.unique(return_counts=True), [np.array([0.5, 0.5, -1.0])]),
    "bincount": (lambda L, x: L.bincount(x), [np.array([0, 1, 1, 3])]),
    "bincount_minlength": (lambda L, x: L.bincount(x, minlength=6), [np.array([0, 1, 1, 3])]),
    "bincount_weights32": (lambda L, x, w: L.bincount(x, w),
                           [np.array([0, 1, 1, 3]), np.array([0.5, 1, 1, 2], dtype=np.float32)]),
    "bincount_weights64": (lambda L, x, w: L.bincount(x, weights=w),
                           [np.array([0, 1, 1, 3]), np.array([0.5, 1, 1, 2])]),
    "searchsorted": (lambda L, s, v: L.searchsorted(s, v),
                     [np.array([1, 3, 5, 7]), np.array([[3, 6], [0, 9]])]),
    "searchsorted_right": (lambda L, s, v: L.searchsorted(s, v, right=True),
                           [np.array([1, 3, 5, 7]), np.array([3, 5])]),
    "searchsorted_side_int32": (lambda L, s, v: L.searchsorted(s, v, side="right", out_int32=True),
                                [np.array([1.0, 3.0, 5.0]), np.array([3.0])]),
    "searchsorted_batched": (lambda L, s, v: L.searchsorted(s, v),
                             [np.array([[1, 3, 5], [2, 4, 6]]), np.array([[3, 4], [1, 7]])]),
    "bucketize": (lambda L, x, b: L.bucketize(x, b), [np.array([[0, 3], [5, 9]]), np.array([1, 3, 5, 7])]),
    "bucketize_right": (lambda L, x, b: L.bucketize(x, b, right=True),
                        [np.array([0, 3, 5, 9]), np.array([1, 3, 5, 7])]),
    "tril_indices": (lambda L: L.tril_indices(3, 4, 1), []),
    "triu_indices": (lambda L: L.triu_indices(4, 3, -1), []),
    "heaviside": (lambda L, x, v: L.heaviside(x, v), [np.array([-1.5, 0.0, 2.0]), np.array(0.5)]),
    "mode": (lambda L, x: tuple(L.mode(x)), [np.array([[1, 2, 2, 3, 3], [4, 4, 1, 1, 5]])]),
    "mode_dim0_keepdim": (lambda L, x: tuple(L.mode(x, 0, True)), [np.array([[1., 2.], [1., 3.], [2., 3.]])]),
    "meshgrid_ij": (lambda L, a, b: L.meshgrid(a, b, indexing="ij"),
                    [np.array([1, 2]), np.array([3, 4, 5])]),
    "meshgrid_xy": (lambda L, a, b, c: L.meshgrid([a, b, c], indexing="xy"),
                    [np.array([1, 2]), np.array([3, 4, 5]), np.array([6, 7])]),
    "cartesian_prod": (lambda L, a, b: L.cartesian_prod(a, b), [np.array([1, 2]), np.array([3, 4, 5])]),
    "cartesian_prod_one": (lambda L, a: L.cartesian_prod(a), [np.array([1, 2])]),
    "block_diag": (lambda L, a, b, c: L.block_diag(a, b, c),
                   [np.array([[1, 2]]), np.array(3.0), np.array([4.0, 5.0], dtype=np.float32)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_dtypes_match_torch(name):
    fn, arrays = CASES[name]
    (m, _), (t, _) = _both(fn, *arrays)
    _same(m, t)


def test_meshgrid_without_indexing_warns_as_torch():
    a = [1, 2]
    with pytest.warns(UserWarning, match="indexing argument"):
        m = mg.meshgrid(mg.tensor(a), mg.tensor(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.meshgrid(torch.tensor(a), torch.tensor(a))
    _same(m, t)


X1 = rng.standard_normal((2, 4, 3))
X2 = rng.standard_normal((2, 5, 3))
DIFFERENTIABLE = {
    "cdist_p2": (lambda L, a, b: L.cdist(a, b), [X1, X2]),
    "cdist_p1": (lambda L, a, b: L.cdist(a, b, p=1.0), [X1[0], X2[0]]),
    "cdist_p3": (lambda L, a, b: L.cdist(a, b, p=3), [X1, X2[:1]]),
    "cdist_inf": (lambda L, a, b: L.cdist(a, b, p=float("inf")), [X1[0], X2[0]]),
    "cdist_zero_distance": (lambda L, a, b: L.cdist(a, b), [X1[0], X1[0][:2]]),
    "quantile_all": (lambda L, x: L.quantile(x, 0.3), [X1]),
    "quantile_dim": (lambda L, x: L.quantile(x, 0.5, dim=1), [X1]),
    "quantile_tensor_q_keepdim": (lambda L, x: L.quantile(x, L.tensor([0.1, 0.5, 0.95], dtype=x.dtype),
                                                          dim=-1, keepdim=True), [X1]),
    "quantile_none_keepdim": (lambda L, x: L.quantile(x, L.tensor([0.25, 1.0], dtype=x.dtype),
                                                      keepdim=True), [X1[0]]),
    "quantile_lower": (lambda L, x: L.quantile(x, 0.3, dim=0, interpolation="lower"), [X1[0]]),
    "quantile_higher": (lambda L, x: L.quantile(x, 0.3, dim=0, interpolation="higher"), [X1[0]]),
    "quantile_midpoint": (lambda L, x: L.quantile(x, 0.3, dim=0, interpolation="midpoint"), [X1[0]]),
    "quantile_nearest": (lambda L, x: L.quantile(x, 0.5, dim=1, interpolation="nearest"), [X1[0]]),
    "quantile_method": (lambda L, x: x.quantile(0.7, dim=-1), [X1]),
    "mode_values": (lambda L, x: L.mode(x, 1)[0], [np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 0.5]])]),
    "meshgrid": (lambda L, a, b: L.stack(L.meshgrid(a, b, indexing="xy")), [X1[0, 0], X2[0, 0, :2]]),
    "cartesian_prod": (lambda L, a, b: L.cartesian_prod(a, b), [X1[0, 0], X2[0, 0]]),
    "block_diag": (lambda L, a, b: L.block_diag(a, b), [X1[0], X2[0, 0]]),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_torch(name):
    fn, arrays = DIFFERENTIABLE[name]
    (m, ms), (t, ts) = _both(fn, *arrays, grad=True)
    _same(m, t)
    weights = rng.standard_normal(tuple(t.shape))
    (m * mg.tensor(weights)).sum().backward()
    (t * torch.tensor(weights)).sum().backward()
    for a, b in zip(ms, ts):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("name", ["cdist_p2", "cdist_p3", "quantile_dim", "quantile_tensor_q_keepdim",
                                  "block_diag", "cartesian_prod"])
def test_second_order(name):
    fn, arrays = DIFFERENTIABLE[name]
    inputs = tuple(mg.tensor(a, requires_grad=True) for a in arrays)
    assert mg.autograd.gradcheck(lambda *xs: fn(mg, *xs), inputs)
    assert mg.autograd.gradgradcheck(lambda *xs: fn(mg, *xs), inputs)


ERRORS = [
    (lambda L, x: L.bincount(x), [np.array([[1]])]),
    (lambda L, x: L.bincount(x), [np.array([-1, 2])]),
    (lambda L, x: L.quantile(x, 1.5), [np.array([1.0, 2.0])]),
    (lambda L, x: L.quantile(x, 0.5), [np.zeros(0)]),
    (lambda L, x: L.quantile(x, 0.5), [np.array([1, 2])]),
    (lambda L, x: L.quantile(x, 0.5, interpolation="foo"), [np.array([1.0, 2.0])]),
    (lambda L, x: L.quantile(x, L.tensor([0.5], dtype=L.float32)), [np.array([1.0, 2.0])]),
    (lambda L, x: L.quantile(x, L.tensor([0.5, 2.0], dtype=x.dtype)), [np.array([1.0, 2.0])]),
    (lambda L, a, b: L.cdist(a, b), [np.ones((2, 3)), np.ones((2, 4))]),
    (lambda L, a, b: L.cdist(a, b), [np.ones(3), np.ones((2, 3))]),
    (lambda L, a, b: L.cdist(a, b), [np.ones((2, 3), dtype=np.int64), np.ones((2, 3))]),
    (lambda L, a, b: L.cdist(a, b, p=-1), [np.ones((2, 3)), np.ones((2, 3))]),
    (lambda L, a, b: L.heaviside(a, b), [np.ones(2), np.ones(2, dtype=np.float32)]),
    (lambda L, a: L.block_diag(a), [np.ones((1, 2, 3))]),
    (lambda L, a, b: L.meshgrid(a, b, indexing="yx"), [np.ones(2), np.ones(2)]),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_torch(case):
    fn, arrays = ERRORS[case]
    _same_errors(fn, *arrays)


@pytest.mark.parametrize("make", [lambda L: L.where(L.tensor([0.0, 1.0, 2.0])),
                                  lambda L: L.where(L.tensor([[True, False], [False, True]])),
                                  lambda L: L.where(L.tensor(True))])
def test_where_of_a_condition_alone_is_nonzero_as_tuple_as_torch(make):
    torch = pytest.importorskip("torch")
    assert repr(make(mg)) == repr(make(torch))


HISTC = [lambda L: L.histc(L.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3),
         lambda L: L.histc(L.tensor([1.0, 2.0, 1.0, 5.0]), bins=3),
         lambda L: L.histc(L.tensor([1.0, 1.0]), bins=2),
         lambda L: L.histc(L.tensor([], dtype=L.float64), bins=2),
         lambda L: L.tensor([0.0, 1.0, 2.0]).histc(2, 0, 2),
         lambda L: L.histc(L.tensor([0.5, 1e9]), bins=2, min=0, max=1),
         lambda L: L.histc(L.tensor([1, 2]), bins=2),
         lambda L: L.histc(L.tensor([1.0, 2.0]), bins=2, min=3, max=1)]


@pytest.mark.parametrize("case", range(len(HISTC)))
def test_histc_as_torch(case):
    try:
        theirs = HISTC[case](torch)
    except (RuntimeError, NotImplementedError) as error:
        with pytest.raises(type(error)) as ours:
            HISTC[case](mg)
        assert str(ours.value) == str(error).replace("torch.", "minigrad.")
        return
    assert repr(HISTC[case](mg)) == repr(theirs).replace("torch", "minigrad")
