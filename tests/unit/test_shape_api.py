"""Shape, view and indexing ops called the way a PyTorch user calls them.

Two kinds of test:
- ``test_matches_torch``: every case runs in minigrad and in torch (when installed) on
  the same float64 data; values and gradients of a random weighted sum must match.
- the rest: hard-coded expectations (values, gradients, view semantics, errors), so
  the behaviour is pinned down without torch too.
"""
import numpy as np
import pytest

import minigrad as mg

ARANGE12 = np.arange(12.0).reshape(3, 4)


def _leaf(lib, array):
    return lib.tensor(np.array(array, dtype=np.float64), requires_grad=True)


def _run(lib, fn, arrays, seed=0):
    """Outputs (as arrays) and the gradients of a random weighted sum of them."""
    leaves = [_leaf(lib, a) for a in arrays]
    out = fn(lib, *leaves)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    rng = np.random.default_rng(seed)
    total = 0
    for o in outs:
        w = rng.standard_normal(tuple(o.shape))
        total = total + (o * lib.tensor(w)).sum()
    total.backward()
    values = [o.detach().numpy() for o in outs]
    grads = [np.zeros(np.shape(a)) if leaf.grad is None else leaf.grad.numpy() for a, leaf in zip(arrays, leaves)]
    return values, grads


def _index(lib, values, dtype="int64"):
    return lib.tensor(np.array(values, dtype=dtype))


# (id, input arrays, fn(lib, *tensors)) -- every fn is plain PyTorch code
CASES = [
    ("view-varargs", [ARANGE12], lambda lib, x: x.view(2, 6)),
    ("view-tuple", [ARANGE12], lambda lib, x: x.view((4, -1))),
    ("view-keyword", [ARANGE12], lambda lib, x: x.view(size=(12,))),
    ("reshape-varargs", [ARANGE12], lambda lib, x: x.reshape(2, 2, 3)),
    ("reshape-list", [ARANGE12], lambda lib, x: x.reshape([6, 2])),
    ("reshape-function", [ARANGE12], lambda lib, x: lib.reshape(x, (-1,))),
    ("reshape-noncontiguous", [ARANGE12], lambda lib, x: x.t().reshape(12)),
    ("flatten", [np.ones((2, 3, 2))], lambda lib, x: x.flatten(start_dim=1)),
    ("flatten-function", [np.ones((2, 3, 2))], lambda lib, x: lib.flatten(x, 0, -2)),
    ("unflatten", [ARANGE12], lambda lib, x: x.unflatten(1, (2, 2))),
    ("transpose-negative", [np.ones((2, 3, 4))], lambda lib, x: x.transpose(-1, 0)),
    ("swapaxes", [np.ones((2, 3, 4))], lambda lib, x: x.swapaxes(0, 2)),
    ("swapdims", [np.ones((2, 3, 4))], lambda lib, x: lib.swapdims(x, 1, 2)),
    ("permute-varargs", [np.ones((2, 3, 4))], lambda lib, x: x.permute(2, 0, 1)),
    ("permute-tuple", [np.ones((2, 3, 4))], lambda lib, x: x.permute((1, -1, 0))),
    ("permute-function", [np.ones((2, 3, 4))], lambda lib, x: lib.permute(x, dims=(2, 1, 0))),
    ("movedim", [np.ones((2, 3, 4))], lambda lib, x: x.movedim(0, -1)),
    ("movedim-lists", [np.ones((2, 3, 4))], lambda lib, x: lib.movedim(x, (0, 1), (2, 0))),
    ("t", [ARANGE12], lambda lib, x: x.t()),
    ("T", [ARANGE12], lambda lib, x: x.T),
    ("mT", [np.ones((2, 3, 4))], lambda lib, x: x.mT * 2),
    ("expand-varargs", [np.ones((3, 1))], lambda lib, x: x.expand(2, 3, 4)),
    ("expand-minus-one", [np.ones((3, 1))], lambda lib, x: x.expand(-1, 5)),
    ("expand_as", [np.ones((3, 1)), np.ones((3, 4))], lambda lib, x, y: x.expand_as(y) * y),
    ("broadcast_to", [np.ones(4)], lambda lib, x: lib.broadcast_to(x, (3, 4))),
    ("squeeze-all", [np.ones((3, 1, 4, 1))], lambda lib, x: x.squeeze()),
    ("squeeze-dim", [np.ones((3, 1, 4, 1))], lambda lib, x: x.squeeze(-1)),
    ("squeeze-dims", [np.ones((3, 1, 4, 1))], lambda lib, x: x.squeeze((1, 3))),
    ("unsqueeze", [ARANGE12], lambda lib, x: x.unsqueeze(dim=-2)),
    ("cat", [np.ones((2, 3)), np.ones((2, 1))], lambda lib, x, y: lib.cat([x, y], dim=1)),
    ("cat-empty-piece", [np.ones((2, 3)), np.ones((0, 3))], lambda lib, x, y: lib.cat((x, y))),
    ("stack", [np.ones((2, 3)), np.ones((2, 3))], lambda lib, x, y: lib.stack([x, y], dim=-1)),
    ("split-int", [np.ones((5, 2))], lambda lib, x: x.split(2)),
    ("split-sizes", [ARANGE12], lambda lib, x: x.split([1, 3], dim=1)),
    ("split-function", [ARANGE12], lambda lib, x: lib.split(x, [2, 1], 0)),
    ("split-one-piece-used", [ARANGE12], lambda lib, x: x.split([1, 3], dim=1)[1] * 3),
    ("chunk-uneven", [np.ones((5, 2))], lambda lib, x: x.chunk(3)),
    ("chunk-fewer", [np.ones((2, 6))], lambda lib, x: lib.chunk(x, 4, dim=1)),
    ("unbind", [ARANGE12], lambda lib, x: x.unbind(1)),
    ("unbind-partial", [ARANGE12], lambda lib, x: lib.unbind(x)[2] ** 2),
    ("select", [ARANGE12], lambda lib, x: x.select(1, -1)),
    ("view_as", [ARANGE12, np.ones((2, 6))], lambda lib, x, y: x.view_as(y) * y),
    ("reshape_as", [ARANGE12, np.ones(12)], lambda lib, x, y: x.t().reshape_as(y)),
    ("narrow", [ARANGE12], lambda lib, x: x.narrow(1, 1, 2)),
    ("narrow-negative", [ARANGE12], lambda lib, x: lib.narrow(x, -1, -3, 2)),
    ("flip", [np.ones((2, 3, 4))], lambda lib, x: x.flip(0, -1) * lib.tensor(np.arange(24.0).reshape(2, 3, 4))),
    ("flip-function", [ARANGE12], lambda lib, x: lib.flip(x, dims=[1])),
    ("roll", [ARANGE12], lambda lib, x: x.roll(1)),
    ("roll-dims", [ARANGE12], lambda lib, x: lib.roll(x, shifts=(1, -1), dims=(0, 1))),
    ("repeat", [np.ones((2, 3))], lambda lib, x: x.repeat(2, 1, 3)),
    ("tile", [np.ones((2, 3))], lambda lib, x: x.tile((2,))),
    ("tile-varargs", [np.ones(3)], lambda lib, x: x.tile(2, 2)),
    ("tril", [ARANGE12], lambda lib, x: x.tril()),
    ("triu-diagonal", [ARANGE12], lambda lib, x: lib.triu(x, diagonal=1)),
    ("diag-vector", [np.arange(3.0)], lambda lib, x: lib.diag(x, 1)),
    ("diag-matrix", [ARANGE12], lambda lib, x: x.diag(-1)),
    ("diagonal", [np.ones((2, 3, 4))], lambda lib, x: x.diagonal(offset=1, dim1=1, dim2=2)),
    ("diag_embed", [np.ones((2, 3))], lambda lib, x: lib.diag_embed(x, offset=-1)),
    ("getitem-int", [ARANGE12], lambda lib, x: x[1]),
    ("getitem-slices", [ARANGE12], lambda lib, x: x[1:, ::2]),
    ("getitem-negative-step-free", [ARANGE12], lambda lib, x: x[-1, 1:3]),
    ("getitem-ellipsis-none", [np.ones((2, 3, 4))], lambda lib, x: x[..., None]),
    ("getitem-none-first", [ARANGE12], lambda lib, x: x[None, :, 2]),
    ("getitem-list-repeats", [ARANGE12], lambda lib, x: x[[0, 0, 2]]),
    ("getitem-two-lists", [ARANGE12], lambda lib, x: x[[0, 2, 2], [3, 3, 1]]),
    ("getitem-list-and-slice", [ARANGE12], lambda lib, x: x[1:, [3, 0, 3]]),
    ("getitem-mask", [ARANGE12], lambda lib, x: x[x > 4.5]),
    ("getitem-row-mask", [ARANGE12],
     lambda lib, x: x[_index(lib, [True, False, True], "bool")]),
    ("getitem-index-tensor", [ARANGE12], lambda lib, x: x[_index(lib, [[2, 0], [2, 2]])]),
    ("getitem-ellipsis-index-tensor", [np.ones((2, 3, 4))],
     lambda lib, x: x[..., _index(lib, [0, 3, 0])]),
    ("index_select", [ARANGE12], lambda lib, x: x.index_select(1, _index(lib, [3, 0, 3]))),
    ("gather", [ARANGE12], lambda lib, x: x.gather(1, _index(lib, [[0, 0], [3, 1], [2, 2]]))),
    ("gather-smaller-index", [ARANGE12], lambda lib, x: lib.gather(x, 0, _index(lib, [[2, 0, 2]]))),
    ("scatter", [ARANGE12, np.ones((3, 2))],
     lambda lib, x, s: x.scatter(1, _index(lib, [[3, 0], [1, 2], [0, 3]]), s * 2)),
    ("scatter-value", [ARANGE12], lambda lib, x: x.scatter(0, _index(lib, [[2, 0, 1, 1]]), 7.5)),
    ("scatter_add", [ARANGE12, np.ones((1, 4))],
     lambda lib, x, s: lib.scatter_add(x, 0, _index(lib, [[2, 0, 2, 2]]), s * s)),
    ("index_add", [ARANGE12, np.ones((3, 3))],
     lambda lib, x, s: x.index_add(1, _index(lib, [3, 0, 3]), s, alpha=2.0)),
    ("masked_fill", [ARANGE12], lambda lib, x: x.masked_fill(x > 6.5, 0.0)),
    ("masked_fill-broadcast-mask", [ARANGE12],
     lambda lib, x: x.masked_fill(_index(lib, [True, False, False, True], "bool"), -1.0)),
    ("masked_fill-tensor-value", [ARANGE12, np.array(2.0)],
     lambda lib, x, v: lib.masked_fill(x, x < 3.5, v)),
    ("take_along_dim", [ARANGE12], lambda lib, x: lib.take_along_dim(x, _index(lib, [[0, 0], [3, 1], [2, 2]]), dim=1)),
    ("take_along_dim-flat", [ARANGE12], lambda lib, x: x.take_along_dim(_index(lib, [11, 0, 0, 5]))),
    ("take_along_dim-broadcast", [np.ones((3, 1))], lambda lib, x: lib.take_along_dim(x, _index(lib, [[0, 0, 0]]), 0)),
]


@pytest.mark.parametrize("arrays, fn", [pytest.param(a, f, id=name) for name, a, f in CASES])
def test_matches_torch(arrays, fn):
    torch = pytest.importorskip("torch")
    got_values, got_grads = _run(mg, fn, arrays)
    want_values, want_grads = _run(torch, fn, arrays)
    assert len(got_values) == len(want_values)
    for got, want in zip(got_values, want_values):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want)
    for got, want in zip(got_grads, want_grads):
        np.testing.assert_allclose(got, want)


def test_second_order_matches_torch_for_repeated_indices():
    torch = pytest.importorskip("torch")

    def grads(lib):
        x = _leaf(lib, ARANGE12 / 10)
        y = (x[[0, 0, 2]] ** 3).sum() + (x.split([1, 3], dim=1)[1] ** 2).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)
        return g.detach().numpy(), gg.numpy()

    for got, want in zip(grads(mg), grads(torch)):
        np.testing.assert_allclose(got, want)


# ------------------------------------------------------------------ without torch
def _grad_of(fn, array, weights=None):
    x = mg.tensor(np.array(array, dtype=np.float64), requires_grad=True)
    out = fn(x)
    outs = out if isinstance(out, (list, tuple)) else [out]
    sum(o.sum() if weights is None else (o * weights).sum() for o in outs).backward()
    detached = [o.detach() for o in outs] if isinstance(out, (list, tuple)) else out.detach()
    return detached, x.grad.numpy()


def test_view_accepts_varargs_tuple_and_keyword():
    x = mg.tensor(ARANGE12)
    for y in (x.view(2, 6), x.view((2, 6)), x.view([2, -1]), x.view(size=(2, 6)),
              x.reshape(2, 6), x.reshape((2, 6)), mg.reshape(x, (2, 6))):
        assert y.shape == (2, 6)
        np.testing.assert_array_equal(y.numpy(), ARANGE12.reshape(2, 6))
    assert x.view(-1).shape == (12,)
    assert x.permute(1, 0).shape == x.permute((1, 0)).shape == (4, 3)
    assert x.expand(2, 3, 4).shape == (2, 3, 4)


def test_view_of_a_non_contiguous_tensor_raises_and_points_to_reshape():
    x = mg.tensor(ARANGE12).t()
    with pytest.raises(RuntimeError, match=r"Use \.reshape"):
        x.view(12)
    assert x.reshape(12).tolist() == ARANGE12.T.reshape(12).tolist()


def test_getitem_repeated_indices_accumulate():
    out, grad = _grad_of(lambda x: x[[0, 0, 2]], ARANGE12)
    np.testing.assert_array_equal(out.numpy(), ARANGE12[[0, 0, 2]])
    np.testing.assert_array_equal(grad, [[2.0] * 4, [0.0] * 4, [1.0] * 4])


def test_getitem_boolean_mask():
    x0 = mg.tensor(ARANGE12)
    out, grad = _grad_of(lambda x: x[x0 > 8.5] * 3, ARANGE12)
    np.testing.assert_array_equal(out.numpy(), [27.0, 30.0, 33.0])
    np.testing.assert_array_equal(grad, [[0.0] * 4, [0.0] * 4, [0.0, 3.0, 3.0, 3.0]])


def test_getitem_ellipsis_none_and_index_tensor():
    out, grad = _grad_of(lambda x: x[..., None], ARANGE12)
    assert out.shape == (3, 4, 1)
    np.testing.assert_array_equal(grad, np.ones((3, 4)))
    out, grad = _grad_of(lambda x: x[mg.tensor([2, 2]), 1:3], ARANGE12)
    np.testing.assert_array_equal(out.numpy(), [[9.0, 10.0], [9.0, 10.0]])
    np.testing.assert_array_equal(grad, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 2, 2, 0]])


def test_split_with_sizes_and_unused_pieces():
    x = mg.tensor(ARANGE12, requires_grad=True)
    a, b = x.split([1, 3], dim=1)
    assert a.shape == (3, 1) and b.shape == (3, 3)
    (b * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 2, 2, 2]] * 3)
    assert [p.shape for p in mg.split(x, 2, dim=1)] == [(3, 2), (3, 2)]


def test_chunk_with_uneven_sizes():
    x = mg.tensor(np.arange(5.0), requires_grad=True)
    pieces = x.chunk(3)
    assert [p.tolist() for p in pieces] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert len(mg.tensor(np.arange(6.0)).chunk(4)) == 3  # ceil(6 / 4) = 2 per chunk, as torch
    (pieces[0] * 1 + 0).sum().backward()
    (pieces[2] * 5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 0.0, 0.0, 5.0])


def test_unbind_and_stack_round_trip():
    out, grad = _grad_of(lambda x: mg.stack(x.unbind(1), dim=1) * 2, ARANGE12)
    np.testing.assert_array_equal(out.numpy(), ARANGE12 * 2)
    np.testing.assert_array_equal(grad, np.full((3, 4), 2.0))


def test_repeat_and_tile_sum_copies():
    out, grad = _grad_of(lambda x: x.repeat(2, 3), [[1.0, 2.0]])
    assert out.shape == (2, 6)
    np.testing.assert_array_equal(grad, [[6.0, 6.0]])
    out, grad = _grad_of(lambda x: x.tile((2,)), [[1.0, 2.0]])
    assert out.shape == (1, 4)
    np.testing.assert_array_equal(grad, [[2.0, 2.0]])


def test_diag_diagonal_and_diag_embed():
    out, grad = _grad_of(lambda x: x.diagonal(), ARANGE12)
    np.testing.assert_array_equal(out.numpy(), [0.0, 5.0, 10.0])
    np.testing.assert_array_equal(grad, np.eye(3, 4))
    out, _ = _grad_of(lambda x: mg.diag(x), [1.0, 2.0])
    np.testing.assert_array_equal(out.numpy(), [[1.0, 0.0], [0.0, 2.0]])
    out, grad = _grad_of(lambda x: mg.diag_embed(x), [[1.0, 2.0]])
    np.testing.assert_array_equal(out.numpy(), [[[1.0, 0.0], [0.0, 2.0]]])
    np.testing.assert_array_equal(grad, [[1.0, 1.0]])


def test_index_ops_against_hand_computed_results():
    idx = mg.tensor([3, 0, 3])
    out, grad = _grad_of(lambda x: x.index_select(1, idx), ARANGE12)
    np.testing.assert_array_equal(out.numpy(), ARANGE12[:, [3, 0, 3]])
    np.testing.assert_array_equal(grad, [[1, 0, 0, 2]] * 3)
    out, grad = _grad_of(lambda x: x.gather(0, mg.tensor([[2, 0, 2]])), ARANGE12)
    np.testing.assert_array_equal(out.numpy(), [[8.0, 1.0, 10.0]])
    np.testing.assert_array_equal(grad, [[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 0]])
    out, grad = _grad_of(lambda x: x.masked_fill(x > 9.5, 0.0), ARANGE12)
    np.testing.assert_array_equal(out.numpy(), np.where(ARANGE12 > 9.5, 0.0, ARANGE12))
    np.testing.assert_array_equal(grad, np.where(ARANGE12 > 9.5, 0.0, 1.0))
    zeros = mg.zeros(2, 4, dtype=mg.float64)   # (src's dtype: scatter_add does not promote)
    out, grad = _grad_of(lambda x: zeros.scatter_add(0, mg.tensor([[1, 1, 0, 1]]), x),
                         [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    np.testing.assert_array_equal(out.numpy(), [[0, 0, 3, 0], [1, 2, 0, 4]])
    np.testing.assert_array_equal(grad, [[1, 1, 1, 1], [0, 0, 0, 0]])
    out, grad = _grad_of(lambda x: mg.take_along_dim(x, mg.tensor([11, 0, 0])), ARANGE12)
    np.testing.assert_array_equal(out.numpy(), [11.0, 0.0, 0.0])
    assert grad[0, 0] == 2.0 and grad[2, 3] == 1.0 and grad.sum() == 3.0


def test_views_share_the_version_counter_and_copies_do_not():
    base = mg.zeros(3, 4)
    views = [base.view(12), base.reshape(4, 3), base.flatten(), base.transpose(0, 1),
             base.permute(1, 0), base.t(), base.mT, base.unsqueeze(0), base[None].squeeze(0),
             base.narrow(1, 1, 2), base.select(0, 1), base.view_as(base), base.diagonal(), base[1:, ::2], base.movedim(0, 1),
             *base.split([1, 3], dim=1), *base.chunk(2), *base.unbind(0), base.expand(2, 3, 4)]
    for v in views:
        assert v._version_counter is base._version_counter
    copies = [base.flip(0), base.roll(1), base.repeat(1, 1), base.tril(), base[[0, 1]],
              base[base > 0], base.index_select(0, mg.tensor([0])), base.clone()]
    for c in copies:
        assert c._version_counter is not base._version_counter
    base.view(12)[1:3].add_(1.0)  # writes through the view, bumps the shared version
    assert base[0].tolist() == [0.0, 1.0, 1.0, 0.0]
    assert base._version == 1
    base.diagonal().fill_(5.0)
    assert base.diagonal().tolist() == [5.0, 5.0, 5.0]


def test_clear_errors():
    x = mg.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="transpose"):
        x.t()
    with pytest.raises(RuntimeError, match="mT"):
        mg.zeros(3).mT
    with pytest.raises(RuntimeError, match="sum exactly"):
        x.split([1, 1], dim=1)
    with pytest.raises(RuntimeError, match="repeat dims"):
        x.repeat(2, 2)
    with pytest.raises(RuntimeError, match="exceeds dimension size"):
        x.narrow(2, 3, 2)
    with pytest.raises(RuntimeError, match="boolean"):
        x.masked_fill(mg.tensor([0, 1, 0, 1]), 1.0)



# torch.split and friends, functions and Tensor methods (Tensor[] results are tuples)
SPLITS = [lambda L, x: L.split(x, [1, 2], 1), lambda L, x: L.chunk(x, 2),
          lambda L, x: L.unbind(x, 1), lambda L, x: L.tensor_split(x, 2, 1),
          lambda L, x: L.hsplit(x, 3), lambda L, x: L.vsplit(x, [1]), lambda L, x: L.split(x, 1),
          lambda L, x: x.chunk(2, 1), lambda L, x: x.split(1), lambda L, x: x.unbind(),
          lambda L, x: x.tensor_split(2, 1), lambda L, x: x.hsplit(3), lambda L, x: x.vsplit(2),
          lambda L, x: x.split_with_sizes([1, 1])]


@pytest.mark.parametrize("case", range(len(SPLITS)))
def test_splits_return_tuples_as_torch(case):
    torch = pytest.importorskip("torch")
    ours = SPLITS[case](mg, mg.arange(6.0).view(2, 3))
    theirs = SPLITS[case](torch, torch.arange(6.0).view(2, 3))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("split", ["x.hsplit(3)", "x.vsplit(2)", "x.dsplit(2)", "x.hsplit([1])",
                                   "x.dsplit((1, 3))", "x.dsplit(1, 3)"])
def test_hsplit_vsplit_dsplit_methods_as_torch(split):
    """One int is a count of sections (x.hsplit(3) split at index 3); a list, or several
    ints, the indices."""
    torch = pytest.importorskip("torch")
    results = [[tuple(t.shape) for t in eval(split, {"x": lib.arange(24.0).view(2, 3, 4)})]
               for lib in (mg, torch)]
    assert results[0] == results[1]


def test_index_put_as_torch():
    """torch.index_put / x.index_put / x.index_put_: written or (accumulate) added at the
    indices, repeated ones adding up; gradients to both tensors; torch's argument errors."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mg, torch):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        v = lib.tensor([5.0, 6.0], dtype=lib.float64, requires_grad=True)
        y = x.index_put((lib.tensor([0, 0]), lib.tensor([1, 1])), v, accumulate=True)
        z = x.index_put((lib.tensor([0, 2]),), lib.tensor(7.0, dtype=lib.float64))
        (y * y).sum().backward()
        w = lib.zeros(3, 4)
        w.index_put_((lib.tensor([1]),), lib.ones(4))
        u = lib.index_put(lib.zeros(3), [lib.tensor([2, 2])], lib.tensor([1.0, 2.0]), True)
        errors = []
        for bad in (lambda: w.index_put(lib.tensor([0]), lib.tensor(1.0)),
                    lambda: w.index_put((lib.tensor([0]),), 1.0),
                    lambda: w.index_put((lib.tensor([0]),), lib.tensor(1.0, dtype=lib.float64))):
            with pytest.raises((TypeError, RuntimeError)) as error:
                bad()
            errors.append((type(error.value), str(error.value)))
        results.append(([t.detach().numpy() for t in (y, z, x.grad, v.grad, w, u)], errors))
    for mine, theirs in zip(results[0][0], results[1][0]):
        np.testing.assert_array_equal(mine, theirs)
    assert results[0][1] == results[1][1]
