"""minigrad.compile's forward and backward of ``-log_softmax(x, dim).gather(dim, index).mean()``
(one helper each, compile/losses.py) and the backward of 2-D matmuls and bias sums
(compile/helpers.py): bit for bit eager's, in the shapes and values they take and in
those where the ops and formulas run one by one (an intermediate read twice or
returned, other dims, repeated indices), and close to PyTorch's."""
import numpy as np
import pytest

import minigrad


def logits(rows, cols, dtype=np.float64, special=False, seed=0):
    values = np.random.default_rng(seed).normal(scale=3.0, size=(rows, cols)).astype(dtype)
    if special:
        values[0, 0], values[1, :] = np.inf, -np.inf
        values[2, 1], values[3, 0] = np.nan, 1e30
    return values


def picks(rows, cols, width=1, seed=1):
    return minigrad.tensor(np.random.default_rng(seed).integers(0, cols, (rows, width)))


def compiled_and_eager(fn, *arrays_and_tensors, calls=3):
    """(compiled value and grads, eager value and grads) of ``fn(*inputs)``: float arrays
    become leaves."""
    def inputs():
        return [minigrad.tensor(a.copy(), requires_grad=True) if isinstance(a, np.ndarray)
                else a for a in arrays_and_tensors]
    compiled = minigrad.compile(fn)
    for _ in range(calls):   # (the first call traces; later ones run the generated code)
        got = inputs()
        got_value = compiled(*got)
        got_value.backward()
    expected = inputs()
    expected_value = fn(*expected)
    expected_value.backward()
    leaves = [i for i, a in enumerate(arrays_and_tensors) if isinstance(a, np.ndarray)]
    return ([got_value._data] + [got[i].grad._data for i in leaves],
            [expected_value._data] + [expected[i].grad._data for i in leaves])


def assert_bits_equal(got, expected):
    for a, e in zip(got, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a.reshape(-1).view(np.uint8), e.reshape(-1).view(np.uint8))


def cross_entropy(x, index):
    return -x.log_softmax(1).gather(1, index).mean()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("rows, cols", [(16, 10), (700, 100)])   # small and big programs
def test_cross_entropy_backward_is_eagers(dtype, special, rows, cols):
    got, expected = compiled_and_eager(cross_entropy, logits(rows, cols, dtype, special),
                                       picks(rows, cols))
    assert_bits_equal(got, expected)


def test_cross_entropy_backward_is_close_to_torchs():
    torch = pytest.importorskip("torch")
    x, index = logits(64, 10), picks(64, 10)
    got, _ = compiled_and_eager(cross_entropy, x, index)
    ours = torch.tensor(x, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(ours, torch.tensor(index._data[:, 0]))
    loss.backward()
    np.testing.assert_allclose(got[0], loss.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(got[1], ours.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("fn", [
    lambda x, i: -x.log_softmax(-1).gather(-1, i).mean(),                  # negative dims
    lambda x, i: (x * 2.0).log_softmax(1).gather(1, i).mean() * 3.0,       # around it
    lambda x, i: -x.log_softmax(1).gather(1, i[:5]).mean(),                # fewer rows
    lambda x, i: x.log_softmax(1).gather(1, i).mean() + x.log_softmax(1).sum(),
], ids=["negative dims", "ops around", "index smaller", "two log_softmaxes"])
def test_cross_entropy_variants_are_eagers(fn):
    assert_bits_equal(*compiled_and_eager(fn, logits(12, 7), picks(12, 7)))


def test_repeated_indices_add_up_as_in_eager():
    index = minigrad.tensor(np.array([[0, 0, 3]] * 6))
    assert_bits_equal(*compiled_and_eager(cross_entropy, logits(6, 5), index))


@pytest.mark.parametrize("fn", [
    lambda x, i: (lambda lp: lp.gather(1, i).mean() + lp.exp().sum())(x.log_softmax(1)),
    lambda x, i: (lambda g: g.mean() * g.sum())(x.log_softmax(1).gather(1, i)),
    lambda x, i: x.log_softmax(1).gather(1, i).mean(0).sum(),
    lambda x, i: x.log_softmax(1).gather(1, i).mean(dtype=minigrad.float64),
    lambda x, i: x.log_softmax(0).gather(1, i).mean(),
    lambda x, i: (lambda lp: (lp.gather(1, i).mean(), lp))(x.log_softmax(1)),
], ids=["log_softmax read twice", "gather read twice", "mean over a dim", "mean dtype",
        "other dims", "log_softmax returned"])
def test_chains_the_helper_leaves_to_the_formulas_are_eagers(fn):
    def loss(x, i):
        out = fn(x, i)
        return out[0] + out[1].sum() if isinstance(out, tuple) else out
    assert_bits_equal(*compiled_and_eager(loss, logits(9, 6), picks(9, 6)))


def test_second_order_through_the_compiled_cross_entropy_is_eagers():
    x, index = logits(8, 5), picks(8, 5)

    def hessian_diagonal_sum(fn):
        leaf = minigrad.tensor(x.copy(), requires_grad=True)
        for _ in range(3):
            leaf.grad = None
            grad, = minigrad.autograd.grad([fn(leaf, index)], [leaf], create_graph=True)
            (grad * grad).sum().backward()
        return leaf.grad._data
    np.testing.assert_allclose(hessian_diagonal_sum(minigrad.compile(cross_entropy)),
                               hessian_diagonal_sum(cross_entropy), rtol=1e-13)


# ------------------------------------------------------------------ matmuls and bias sums
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_gradients_are_eagers(dtype):
    rng = np.random.default_rng(3)
    x = minigrad.tensor(rng.normal(size=(32, 20)).astype(dtype))
    w1, b1 = rng.normal(size=(20, 16)).astype(dtype), rng.normal(size=16).astype(dtype)
    w2, b2 = rng.normal(size=(16, 4)).astype(dtype), rng.normal(size=4).astype(dtype)

    def loss(x, index, w1, b1, w2, b2):
        return cross_entropy((x @ w1 + b1).relu() @ w2 + b2, index)
    assert_bits_equal(*compiled_and_eager(loss, x, picks(32, 4), w1, b1, w2, b2))


@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: (a @ b).tanh().sum(), [(6, 1), (1, 5)]),          # an outer product
    (lambda a, b: (a @ b).tanh().sum(), [(3, 6, 4), (4, 5)]),       # batched
    (lambda a, b: (a @ b).tanh().sum(), [(6,), (6, 5)]),            # a vector
    (lambda a, b: (a + b).tanh().sum(), [(4, 5), (1, 5)]),          # a kept dim of 1
    (lambda a, b: (a + b).tanh().sum(), [(2, 4, 5), (5,)]),         # two leading dims
])
def test_matmul_and_sum_to_shapes_are_eagers(fn, shapes):
    rng = np.random.default_rng(4)
    arrays = [rng.normal(size=s) for s in shapes]
    assert_bits_equal(*compiled_and_eager(fn, *arrays))


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "class weights"])
def test_the_mnist_example_loss_compiles_and_matches_torch(weighted):
    """pytorch/examples' MNIST loss, F.nll_loss(F.log_softmax(x, 1), y): one graph
    (fullgraph), its class checks in nll_loss's kernel on every call, torch's values and
    gradients (first and second order), and an ignored class."""
    torch = pytest.importorskip("torch")
    F, TF = minigrad.nn.functional, torch.nn.functional
    x, y = logits(6, 5), np.array([0, 4, 2, 2, 1, 3])
    weight = np.linspace(0.5, 2.0, 5)
    results = []
    for lib, fns in ((minigrad, F), (torch, TF)):
        weights = lib.tensor(weight) if weighted else None

        def loss(x, y):
            return fns.nll_loss(fns.log_softmax(x, 1), y, ignore_index=3, weight=weights)
        fn = minigrad.compile(loss, fullgraph=True) if lib is minigrad else loss
        for call in range(2):
            leaf = lib.tensor(x + call, requires_grad=True)
            value = fn(leaf, lib.tensor(y))
            first, = lib.autograd.grad(value, leaf, create_graph=True)
            second, = lib.autograd.grad((first * first).sum(), leaf)
            results.append([value.detach().numpy(), first.detach().numpy(), second.numpy()])
        if lib is minigrad:
            with pytest.raises(IndexError, match="Target 7 is out of bounds"):
                fn(leaf, lib.tensor([0, 1, 2, 3, 4, 7]))
    for mine, theirs in zip(results[:2], results[2:]):
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
