"""Views and in-place ops: values and gradients compared with PyTorch where installed.

Every scenario is written once against a library namespace ``L`` (minigrad or
torch) and run on both; the values and the gradients of the inputs must match,
and where PyTorch raises, minigrad must raise too.
"""
import numpy as np
import pytest

import minigrad as mg

X = np.array([0.3, -0.7, 1.2, 0.5, -1.1, 0.9])
W = np.array([0.25, -1.5, 2.0])
M = np.arange(6, dtype=np.float64).reshape(2, 3) / 5.0 - 0.4


def _inputs(L):
    return [L.tensor(a.copy(), requires_grad=True) for a in (X, W, M)]


def base_inplace_seen_through_view(L, x, w, m):
    b = x.clone()
    v = b[:2]
    b.mul_(2.0)
    return (v * v).sum() + b.sum()


def talk_zeros_setitem(L, x, w, m):
    y = L.zeros(3, dtype=L.float64)
    y[:2] = x[:2] * 3
    y[2] = x[0] * x[1]
    return (y * w).sum()


def view_of_view_inplace(L, x, w, m):
    b = x.clone()
    v = b[1:]
    v2 = v[0]
    v2.mul_(3.0)
    return (b * b).sum()


def transpose_row_add(L, x, w, m):
    b = m.clone()
    bt = b.transpose(0, 1)
    bt[0].add_(x[:2])
    return (b ** 2).sum()


def exp_inplace(L, x, w, m):
    b = x.clone()
    b.exp_()
    return (b * x).sum()


def exp_inplace_on_view(L, x, w, m):
    b = x.clone()
    b[1:].exp_()
    return (b * b).sum()


def binary_ops_on_view(L, x, w, m):
    b = m.clone()
    b[0].add_(w, alpha=2.0)
    b[1].mul_(w)
    b[:, 1].div_(w[:2] + 3.0)
    b[:, 2].sub_(x[:2])
    b[1, :2].pow_(2.0)
    return (b * m).sum()


def clamp_on_view(L, x, w, m):
    b = x.clone()
    b[1:4].clamp_(-0.5, 0.6)
    return (b * b).sum()


def advanced_setitem(L, x, w, m):
    b = x.clone()
    b[[0, 2, 5]] = w
    return (b * b * x).sum()


def mask_setitem(L, x, w, m):
    b = x.clone()
    b[b > 0.4] = 0.0
    return (b * b).sum()


def mask_setitem_tensor_value(L, x, w, m):
    b = x.clone()
    b[x.detach() > 0.4] = w
    return (b * x).sum()


def setitem_scalar_int_key(L, x, w, m):
    b = m.clone()
    b[1, 2] = w[0] * w[1]
    b[0] = w
    return (b * m).sum()


def iadd_operators(L, x, w, m):
    b = m.clone()
    v = b[0]
    v += w
    v *= w
    b[1] -= x[:3]
    b[1] /= 2.0
    return (b * b).sum()


def fill_zero_copy_on_views(L, x, w, m):
    b = m.clone()
    b[0].fill_(2.0)
    b[1, :1].zero_()
    b[1, 1:].copy_(w[:2])
    return (b * m).sum()


def other_view_refreshed(L, x, w, m):
    b = x.clone()
    v = b[:3]
    b[2:5] = w          # writes through another view: v[2] changes
    return (v * v).sum()


def expanded_view_refreshed(L, x, w, m):
    b = w.clone()
    e = b.unsqueeze(0).expand((4, 3))
    b.mul_(x[:3])
    return (e * e).sum()


def reshape_view_inplace(L, x, w, m):
    b = x.clone()
    r = b.reshape((2, 3))
    r[1].mul_(w)
    return (b * b).sum()


def detach_inplace_is_not_tracked(L, x, w, m):
    b = x.clone()
    d = b.detach()
    d.mul_(2.0)
    return (b * b).sum()


def copy_requires_grad_into_zeros_row(L, x, w, m):
    base = L.zeros(2, 3, dtype=L.float64)
    base[1].copy_(w)
    return (base * m).sum()


def permute_view_inplace(L, x, w, m):
    b = m.clone().unsqueeze(0)
    p = b.permute((2, 0, 1))
    p[1].mul_(3.0)
    return (b * b).sum()


SCENARIOS = [base_inplace_seen_through_view, talk_zeros_setitem, view_of_view_inplace,
             transpose_row_add, exp_inplace, exp_inplace_on_view, binary_ops_on_view,
             clamp_on_view, advanced_setitem, mask_setitem, mask_setitem_tensor_value,
             setitem_scalar_int_key, iadd_operators, fill_zero_copy_on_views,
             other_view_refreshed, expanded_view_refreshed, reshape_view_inplace,
             detach_inplace_is_not_tracked, copy_requires_grad_into_zeros_row,
             permute_view_inplace]
UNARY = ["sigmoid_", "tanh_", "relu_", "neg_", "exp_", "sin_", "abs_"]


def _unary(op):
    def scenario(L, x, w, m):
        b = x.clone()
        getattr(b[::2], op)()
        return (b * b * x).sum()
    scenario.__name__ = f"unary_{op}_on_view"
    return scenario


ALL = SCENARIOS + [_unary(op) for op in UNARY]


def _run(L, scenario):
    inputs = _inputs(L)
    loss = scenario(L, *inputs)
    loss.backward()
    return float(loss.detach().numpy()), [None if t.grad is None else t.grad.numpy().copy() for t in inputs]


@pytest.mark.parametrize("scenario", ALL, ids=lambda s: s.__name__)
def test_inplace_scenarios_match_pytorch(scenario):
    torch = pytest.importorskip("torch")
    value, grads = _run(mg, scenario)
    ref_value, ref_grads = _run(torch, scenario)
    assert value == pytest.approx(ref_value, rel=1e-12)
    for got, ref in zip(grads, ref_grads):
        if ref is None:
            assert got is None or not np.any(got)
        else:
            np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("scenario", [s for s in ALL if s is not detach_inplace_is_not_tracked],
                         ids=lambda s: s.__name__)
def test_inplace_scenarios_gradcheck(scenario):
    # Without torch, finite differences are the reference.
    def fn(x, w, m):
        return scenario(mg, x, w, m)
    assert mg.autograd.gradcheck(fn, _inputs(mg))


# ------------------------------------------------------------------ basic facts
def test_views_share_data_and_version():
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    views = [x[0], x[:, 1:], x.transpose(0, 1), x.reshape((6,)), x.unsqueeze(0), x.permute((1, 0)),
             x.expand((2, 2, 3)), x.squeeze(), x.T]
    for v in views:
        assert v._base is x
    views.append(x.detach())  # shares storage and version, but is no autograd view (torch)
    assert views[-1]._base is None
    x.add_(1.0)
    assert all(v._version == 1 for v in views)
    assert x[0, 1].item() == 3.0
    x[0].mul_(0.0)
    np.testing.assert_array_equal(x.numpy()[0], 0.0)
    assert x._version == 2


@pytest.mark.parametrize("name, args", [("view", ((6,),)), ("t", ()), ("diagonal", ()),
                                        ("narrow", (1, 0, 2)), ("unbind", ()), ("split", (1,))])
def test_other_view_ops_share_storage(name, args):
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = getattr(x, name)(*args)
    pieces = out if isinstance(out, (tuple, list)) else [out]
    for p in pieces:
        assert p._base is x
    pieces[0].mul_(2.0)   # writes through
    assert x._version == 1


def test_reshape_copy_is_not_a_view():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]]).transpose(0, 1)
    r = x.reshape((4,))   # needs a copy: a fresh tensor
    assert r._base is None


def test_inplace_rebases_grad_fn():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    y.exp_()
    assert y.grad_fn.name() == "ExpBackward0"
    assert y._version == 1
    b = x.clone()
    b[0].mul_(2.0)
    assert b.grad_fn.name() == "CopySlices"


def test_inplace_on_leaf_requiring_grad_raises():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0].mul_(2.0)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x[0] = 3.0
    with mg.no_grad():
        x.add_(1.0)    # the usual parameter update
    np.testing.assert_array_equal(x.numpy() if not x.requires_grad else x.detach().numpy(), [2.0, 3.0])


def test_version_error_at_backward_with_anomaly_hint():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1.0)         # exp saved its result
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as err:
        y.sum().backward()
    assert "set_detect_anomaly(True, check_nan=False)" in str(err.value)
    assert "version 1; expected version 0" in str(err.value)


def test_version_error_for_saved_input_modified_through_view():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x.clone()
    z = b.sin()
    b[1:].mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_view_made_in_no_grad_then_modified_raises():
    torch = pytest.importorskip("torch")
    for L in (mg, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        b = x.clone()
        with L.no_grad():
            v = b[0]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
            v.mul_(2.0)


def test_expanded_tensor_cannot_be_written():
    x = mg.tensor([1.0, 2.0])
    e = x.expand((3, 2))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1.0)


def test_inplace_shape_mismatch_is_clear():
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.add_(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("name, args", [("masked_fill_", "mask"), ("index_add_", "index"),
                                        ("scatter_", "scatter")])
def test_generated_inplace_variants_of_library_ops(name, args):
    torch = pytest.importorskip("torch")

    def run(L):
        x = L.tensor(X.copy(), requires_grad=True)
        w = L.tensor(W.copy(), requires_grad=True)
        b = x.clone()
        if args == "mask":
            b.masked_fill_(L.tensor(X > 0.4), 0.5)
        elif args == "index":
            b.index_add_(0, L.tensor([0, 2, 4]), w)
        else:
            b.scatter_(0, L.tensor([5, 1, 3]), w)
        (b * b).sum().backward()
        return x.grad.numpy(), None if w.grad is None else w.grad.numpy()

    for got, ref in zip(run(mg), run(torch)):
        if ref is not None:
            np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize("scenario", [s for s in ALL if s is not detach_inplace_is_not_tracked],
                         ids=lambda s: s.__name__)
def test_inplace_scenarios_gradgradcheck(scenario):
    # CopySlices and the refreshed views are differentiable themselves (create_graph)
    def fn(x, w, m):
        return scenario(mg, x, w, m)
    assert mg.autograd.gradgradcheck(fn, _inputs(mg))


def _random_program(L, seed):
    """A random mix of views, in-place ops through them, and uses of their values."""
    import random
    rng = random.Random(seed)
    x = L.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=L.float64, requires_grad=True)
    w = L.tensor(np.linspace(0.5, 1.5, 4), dtype=L.float64, requires_grad=True)
    b = x.clone() if rng.random() < 0.7 else L.zeros(3, 4, dtype=L.float64)
    tensors, terms = [b], []
    for _ in range(6):
        t = rng.choice(tensors)
        r = rng.random()
        if r < 0.35 and t.dim() >= 1:
            k = rng.randrange(4)
            v = (t[rng.randrange(t.shape[0])] if k == 0 else t[1:] if k == 1 else
                 t.transpose(0, 1) if k == 2 and t.dim() == 2 else t.unsqueeze(0))
            if v.numel() > 0:
                tensors.append(v)
        elif r < 0.75:
            k = rng.randrange(6)
            last = t.dim() >= 1 and t.shape[-1] == 4
            try:
                if k == 0:
                    t.mul_(1.5)
                elif k == 1:
                    t.exp_() if t.numel() < 13 else t.sigmoid_()
                elif k == 2:
                    t.add_(w) if last else t.add_(0.25)
                elif k == 3:
                    t.sigmoid_()
                elif k == 4:
                    if last:
                        t[..., 0] = w[1] * w[2]
                    else:
                        t.tanh_()
                else:
                    t.copy_(t * 2 + 1)
            except RuntimeError as e:
                return ("error", str(e))
        else:
            terms.append((t * t).sum())
    terms.append((b * b).sum())
    terms.extend((v * 0.5).sum() for v in tensors[1:])
    loss = sum(terms)
    try:
        loss.backward()
    except RuntimeError as e:
        return ("error", str(e))
    grads = [None if t.grad is None else t.grad.numpy().copy() for t in (x, w)]
    return ("ok", float(loss.detach().numpy()), grads)


def test_random_view_inplace_programs_never_give_a_wrong_number():
    # Where PyTorch computes, minigrad must compute the same numbers; where PyTorch
    # raises, minigrad raises too or (a few programs that PyTorch rejects because a
    # view's history is regenerated lazily) gives the numbers PyTorch gives once it is.
    torch = pytest.importorskip("torch")
    import warnings
    outcomes = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(300):
            got, ref = _random_program(mg, seed), _random_program(torch, seed)
            outcomes[(got[0], ref[0])] = outcomes.get((got[0], ref[0]), 0) + 1
            if ref[0] == "ok":
                assert got[0] == "ok", (seed, got)
                assert got[1] == pytest.approx(ref[1], rel=1e-9), seed
                for g, r in zip(got[2], ref[2]):
                    if r is None or g is None:
                        assert not np.any(g) and not np.any(r), seed
                    else:
                        np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-12, err_msg=str(seed))
    assert outcomes.get(("ok", "ok"), 0) > 50 and outcomes.get(("error", "error"), 0) > 50


def test_inplace_with_tensor_keyword_argument_records():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.zeros(3, 2)
    b[1].add_(other=w, alpha=3.0)
    b.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("key", [slice(None, 2), [0, 1], (Ellipsis, slice(None, 2))])
@pytest.mark.parametrize("value", [np.array([5.0, 6.0]), [5.0, 6.0], (5.0, 6.0)])
def test_setitem_refuses_numpy_and_list_values_as_torch(key, value):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as expected:
        torch.zeros(3)[key] = value
    with pytest.raises(TypeError) as got:
        mg.zeros(3)[key] = value
    assert str(got.value) == str(expected.value).replace("torch.", "minigrad.")
