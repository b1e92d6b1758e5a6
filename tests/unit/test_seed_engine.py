"""Seed ports: engine features of minigrad (views / in-place, setitem, hooks, custom Function,
anomaly mode, checkpointing, re-entrant backward).

Ported from the seed documents in shared/seeds/:
  001_*/003_* notebook "Simple Autograd"  (Gradients of Gradients, Creating Aggregate Operations)
  002_* podcast "Why Is Autograd So Complicated" (views and mutation, version counters, anomaly
        mode, hooks, reentrant execution, checkpointing)
  004_* talk "Autodiff & PyTorch for the gifted amateur" (indexing slide, numpy slide, hooks
        slides, custom autograd functions slides)

Every expected number was computed with PyTorch 2.13 (float64) on the same inputs and
hard-coded here; the tests themselves only need minigrad and numpy.
"""
import functools
import math
import types
import warnings

import numpy as np
import pytest

import minigrad as mg
from tests.seed_data import A_A, A_B, B_A, B_B, PRINTED_ATOL, assert_close as _close, np_of as _np  # noqa: F401


@pytest.fixture(autouse=True)
def _float64_default():
    """These ports check hand-computed values to ~1e-12, so they run in float64, as the
    PyTorch originals would after torch.set_default_dtype(torch.float64)."""
    previous = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    yield
    mg.set_default_dtype(previous)

INPLACE_MSG = "one of the variables needed for gradient computation has been modified by an inplace operation"


# ---------------------------------------------------------------------------------------------
# Talk: "!!! WARNING: indexing is also in-place !!!" and podcast: views and mutation
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ctor", ["empty", "zeros"])
def test_talk_indexing_fancy_model_raises_inplace_error(ctor):
    # 004_* talk, "indexing is also in-place": y = empty(3); y[:2] = x; y[2] = x[0] * y[0]; y[0].backward() -> error
    x = mg.tensor([0.25, 0.75], requires_grad=True)
    y = getattr(mg, ctor)(3)
    y[:2] = x
    y[2] = x[0] * y[0]   # saves the view y[0], then writes into y again
    out = y[0]
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        out.backward()


def test_talk_indexing_setitem_without_reading_back_works():
    # 004_* talk, "indexing is also in-place" model without reading y back: y[2] = x[0] * x[0]
    x = mg.tensor([0.25, 0.75], requires_grad=True)
    y = mg.zeros(3)
    y[:2] = x
    y[2] = x[0] * x[0]
    _close(y, [0.25, 0.75, 0.0625])
    assert y.requires_grad
    y.sum().backward()
    _close(x.grad, [1.5, 1.0])


def test_talk_indexing_use_cat_instead():
    # 004_* talk, "Be explicit and use torch.cat if necessary": same model built with mg.cat
    x = mg.tensor([0.25, 0.75], requires_grad=True)
    y = mg.cat([x, (x[0] * x[0]).reshape(1)])
    _close(y, [0.25, 0.75, 0.0625])
    y[0].backward()
    _close(x.grad, [1.0, 0.0])
    x.grad = None
    y = mg.cat([x, (x[0] * x[0]).reshape(1)])
    y.sum().backward()
    _close(x.grad, [1.5, 1.0])


def test_podcast_setitem_slice_of_zeros_makes_base_require_grad():
    # 002_* podcast, views and mutation: writing a requires-grad tensor into a slice makes the base require grad
    x = mg.tensor([0.25, 0.75], requires_grad=True)
    y = mg.zeros(3)
    assert not y.requires_grad
    y[:2] = x * 3
    assert y.requires_grad
    _close(y, [0.75, 2.25, 0.0])
    (y * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    _close(x.grad, [3.0, 6.0])


def test_podcast_fill_row_through_view_writes_base():
    # 002_* podcast, views and mutation: "view out that row and then just run fill on it" (views share storage)
    base = mg.zeros(2, 3)
    row = base[1]
    row.fill_(7.0)
    _close(base, [[0.0, 0.0, 0.0], [7.0, 7.0, 7.0]])


def test_podcast_copy_requires_grad_tensor_into_view_of_base():
    # 002_* podcast, views and mutation: "take out a view and then write [into] that view with [a] tensor which requires gradients"
    xr = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = mg.zeros(2, 3)
    row = base[1]
    row.copy_(xr)
    assert base.requires_grad
    assert row.requires_grad
    (base * mg.tensor([[1.0, 1.0, 1.0], [10.0, 20.0, 30.0]])).sum().backward()
    _close(xr.grad, [10.0, 20.0, 30.0])


def test_podcast_fill_row_of_clone_blocks_that_rows_gradient():
    # 002_* podcast, views and mutation: in-place fill_ on a view of a non-leaf is differentiated through
    xx = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    m = xx.clone()
    m[0].fill_(0.0)
    _close(m, [[0.0, 0.0, 0.0], [4.0, 5.0, 6.0]])
    _close(xx, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # clone does not share storage
    (m * m).sum().backward()
    _close(xx.grad, [[0.0, 0.0, 0.0], [8.0, 10.0, 12.0]])


def test_podcast_version_counter_catches_setitem_after_save():
    # 002_* podcast, version counters ("is it still only three mutations?") + 004_* talk "indexing is also in-place"
    xs = mg.tensor([0.5, 1.0, 1.5], requires_grad=True)
    y = xs.clone()
    z = y.sin()          # saves y
    y[0] = 0.0           # mutation through indexing bumps y's version
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        z.sum().backward()


def test_podcast_version_counter_catches_inplace_on_a_view_of_saved_tensor():
    # 002_* podcast, version counters: a mutation through a view counts as a mutation of the saved base
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    z = y * y            # saves y
    v = y[1:]
    v.mul_(2.0)
    _close(y, [1.0, 4.0, 6.0])
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        z.sum().backward()


def test_talk_numpy_boolean_mask_indexing_values_and_grad():
    # 004_* talk, "PyTorch" numpy slide: x = np.random.rand(4, 2, 3); sel = [False, False, True]; torch.tensor(x)[0, :, sel]
    xn = np.arange(24, dtype=np.float64).reshape(4, 2, 3) / 24.0
    sel = [False, False, True]
    t = mg.tensor(xn, requires_grad=True)
    out = t[0, :, sel]
    # values are x[0, 0, 2] and x[0, 1, 2]; the layout (1, 2) vs (2, 1) is not asserted (see NOTES.md)
    assert out.numel() == 2
    np.testing.assert_allclose(np.sort(_np(out).ravel()), [2.0 / 24.0, 5.0 / 24.0], rtol=1e-12)
    out.sum().backward()
    expected = np.zeros((4, 2, 3))
    expected[0, :, 2] = 1.0
    _close(t.grad, expected)


def test_talk_tensor_from_float64_numpy_stays_float64():
    # 004_* talk, "PyTorch" numpy slide: torch.tensor(x) of a float64 array prints dtype=torch.float64
    xn = np.random.default_rng(0).random((4, 2, 3))
    t = mg.tensor(xn)
    assert t.dtype == mg.float64
    np.testing.assert_array_equal(t.numpy(), xn)


# ---------------------------------------------------------------------------------------------
# Talk: "Inspecting the backward path" (retain_grad and hooks)
# ---------------------------------------------------------------------------------------------

# x such that the slide's printed "grad of x: tensor([2.28, 3.58, 2.06, 3.20])" (= 4x) is reproduced
_XH = [0.57, 0.895, 0.515, 0.80]


def test_talk_retain_grad_prints_grads_of_y_b_a_x():
    # 004_* talk, "Inspecting the backward path": a/b/y.retain_grad(); outputs grad of y/b/a/x
    x = mg.tensor(_XH, requires_grad=True)
    a = x ** 2
    b = a * 2.0
    y = b.sum()
    a.retain_grad()
    b.retain_grad()
    y.retain_grad()
    y.backward()
    assert y.grad.item() == pytest.approx(1.0)
    _close(b.grad, [1.0, 1.0, 1.0, 1.0])
    _close(a.grad, [2.0, 2.0, 2.0, 2.0])
    _close(x.grad, [2.28, 3.58, 2.06, 3.20])
    _close(x.grad, _np(x * 4))   # "Exp. grad of x"


def test_talk_register_hooks_print_in_backward_order():
    # 004_* talk, "Inspecting the backward path": register_hooks(y=y, b=b, a=a, x=x) with functools.partial(hook, msg)
    log = []

    def hook(msg, grad):
        log.append((msg, _np(grad).copy()))   # the slide prints; returning None keeps the gradient

    x = mg.tensor(_XH, requires_grad=True)
    a = x ** 2
    b = a * 2.0
    y = b.sum()
    for k, v in dict(y=y, b=b, a=a, x=x).items():
        v.register_hook(functools.partial(hook, f"grad of {k}:"))
    y.backward()
    assert [m for m, _ in log] == ["grad of y:", "grad of b:", "grad of a:", "grad of x:"]
    np.testing.assert_allclose(log[0][1], 1.0)
    np.testing.assert_allclose(log[1][1], [1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(log[2][1], [2.0, 2.0, 2.0, 2.0])
    np.testing.assert_allclose(log[3][1], [2.28, 3.58, 2.06, 3.20], rtol=1e-12)
    _close(x.grad, [2.28, 3.58, 2.06, 3.20])


def test_talk_hooks_are_called_each_time_the_node_is_backpropagated():
    # 004_* talk, "Hooks are called each time the node is called during back propagation"
    calls = []
    x = mg.tensor(_XH, requires_grad=True)
    a = x ** 2
    b = a * 2.0
    y = b.sum()
    b.register_hook(lambda g: calls.append("b"))
    x.register_hook(lambda g: calls.append("x"))
    y.backward(retain_graph=True)
    y.backward()
    assert calls == ["b", "x", "b", "x"]
    _close(x.grad, 2 * 4 * np.array(_XH))


def test_talk_hook_return_value_replaces_gradient():
    # 004_* talk, "Hooks are allow[ed] to change gradients": hook on b returns grad * 10
    x = mg.tensor(_XH, requires_grad=True)
    a = x ** 2
    b = a * 2.0
    y = b.sum()
    b.register_hook(lambda g: g * 10)
    y.backward()
    _close(x.grad, [22.8, 35.8, 20.6, 32.0])


def test_talk_hook_handle_remove():
    # 004_* talk, hooks slides: a removed hook (handle.remove()) neither runs nor changes gradients
    calls = []
    x = mg.tensor(_XH, requires_grad=True)
    a = x ** 2
    b = a * 2.0
    y = b.sum()
    handle = b.register_hook(lambda g: calls.append(1) or g * 10)
    handle.remove()
    y.backward()
    assert calls == []
    _close(x.grad, [2.28, 3.58, 2.06, 3.20])


def test_talk_hook_on_leaf_changes_accumulated_grad():
    # 004_* talk, "Hooks are allow[ed] to change gradients" on the leaf x itself
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: g + 1)
    (x * x).sum().backward()
    _close(x.grad, [3.0, 5.0, 7.0])


def test_talk_module_backward_hook_values_via_tensor_hooks():
    # 004_* talk, module hooks slide: x = [1,2,3]; a = x**2; y = (a*2).sum() -> "bwd: ... (tensor([4., 8., 12.]), (tensor([2., 2., 2.]),)"
    seen = {}
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x ** 2                                    # the module's forward
    _close(a, [1.0, 4.0, 9.0])                    # "fwd: MyFancyModel() (tensor([1., 2., 3.]), tensor([1., 4., 9.]))"
    a.register_hook(lambda g: seen.__setitem__("grad_output", _np(g).copy()))
    x.register_hook(lambda g: seen.__setitem__("grad_input", _np(g).copy()))
    b = a * 2.0
    y = b.sum()
    y.backward()
    np.testing.assert_allclose(seen["grad_output"], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(seen["grad_input"], [4.0, 8.0, 12.0])


def test_notebook_grad_of_grad_reruns_first_backward_part():
    # 003_* notebook, "Gradients of Gradients": "entries that are run in the first call to grad actually get run again"
    seen = []
    a = mg.tensor(B_A, requires_grad=True)
    b = mg.tensor(B_B, requires_grad=True)
    t = a + b
    t.register_hook(lambda g: seen.append(_np(g).copy()))
    L0 = (t * b).sum()
    dL0_da, dL0_db = mg.autograd.grad(L0, [a, b], create_graph=True)
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], B_B, rtol=1e-12)
    L1 = (dL0_da * dL0_da + dL0_db * dL0_db).sum()
    mg.autograd.grad(L1, [a, b])
    assert len(seen) == 2   # t's backward runs again for the second loss
    np.testing.assert_allclose(seen[1], [1.2610, 2.1306, 5.8396, 3.3868], rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Talk: "Custom autograd functions"
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _talk_functions():
    """The talk's Function classes, built lazily so a missing mg.autograd.Function fails only these tests."""
    class MyFancyFun(mg.autograd.Function):
        # 004_* talk, "Custom autograd functions" first version
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * mg.sin(b)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return mg.sin(b) * grad, a * mg.cos(b) * grad

    class MyFancyFunFromResult(mg.autograd.Function):
        # 004_* talk, "Custom autograd functions" second version (sin_b = res / a, sign via where)
        @staticmethod
        def forward(ctx, a, b):
            res = a * mg.sin(b)
            ctx.save_for_backward(a, b, res)
            return res

        @staticmethod
        def backward(ctx, grad):
            a, b, res = ctx.saved_tensors
            sin_b = res / a
            sign = mg.where(mg.abs(b) < math.pi / 2.0, +1.0, -1.0)
            return sin_b * grad, sign * a * mg.sqrt(1.0 - sin_b ** 2) * grad

    return MyFancyFun, MyFancyFunFromResult


def _talk_grad_exp(x_val):
    # the slide's closed form: grad_exp = 4 * x * s * (2 * s + 6 * x * c)
    s, c = math.sin(3.0 * x_val), math.cos(3.0 * x_val)
    return 4 * x_val * s * (2.0 * s + 6.0 * x_val * c)


def test_talk_custom_function_my_fancy_fun_at_half():
    # 004_* talk, "Custom autograd functions": x = [0.5]; f = fun(2x, 3x); y = f**2 -> x.grad == grad_exp
    MyFancyFun, _ = _talk_functions()
    fun = MyFancyFun.apply
    x = mg.tensor([0.5], requires_grad=True)
    a = 2.0 * x
    b = 3.0 * x
    f = fun(a, b)
    assert f.requires_grad
    _close(f, [1.0 * math.sin(1.5)])
    y = f ** 2
    y.backward()
    _close(x.grad, [4.403345017380492])
    assert x.grad.item() == pytest.approx(_talk_grad_exp(0.5), rel=1e-12)


@pytest.mark.parametrize("x_val, expected", [(0.5, 4.403345017380492), (0.7, -0.9521352420379335)])
def test_talk_custom_function_from_saved_result(x_val, expected):
    # 004_* talk, "Custom autograd functions" second version; 0.7 makes |b| > pi/2 so the sign branch is used
    x = mg.tensor([x_val], requires_grad=True)
    _, MyFancyFunFromResult = _talk_functions()
    f = MyFancyFunFromResult.apply(2.0 * x, 3.0 * x)
    (f ** 2).backward()
    assert x.grad.item() == pytest.approx(expected, rel=1e-9)
    assert x.grad.item() == pytest.approx(_talk_grad_exp(x_val), rel=1e-9)


# ---------------------------------------------------------------------------------------------
# Notebook: "Creating Aggregate Operations" (simple as a single autograd.Function)
# ---------------------------------------------------------------------------------------------

def simple(a, b):
    t = a + b
    return t * b


def _run_gradients(my_fn, a_val, b_val, second_loss=True, allow_unused=False):
    # 003_* notebook, "Gradients of Gradients": run_gradients
    a = mg.tensor(a_val, requires_grad=True)
    b = mg.tensor(b_val, requires_grad=True)
    L0 = my_fn(a, b).sum()
    dL0_da, dL0_db = mg.autograd.grad(L0, [a, b], create_graph=True)
    if not second_loss:
        return dL0_da, dL0_db
    L1 = (dL0_da * dL0_da + dL0_db * dL0_db).sum()
    return mg.autograd.grad(L1, [a, b], allow_unused=allow_unused)


@functools.lru_cache(maxsize=None)
def _notebook_functions():
    """The notebook's aggregate ops as Function classes, built lazily (see _talk_functions)."""
    class SimpleRecompute(mg.autograd.Function):
        # 003_* notebook, simple_recompute: backward recomputes t = a + b with differentiable ops
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return (a + b) * b

        @staticmethod
        def backward(ctx, dL_dr):
            a, b = ctx.saved_tensors
            t = a + b                     # RECOMPUTE!
            dL_dt = dL_dr * b
            return dL_dt, dL_dt + dL_dr * t

    class SimpleVariableWrong(mg.autograd.Function):
        # 003_* notebook, simple_variable_wrong: saves the intermediate t, which is not an output
        @staticmethod
        def forward(ctx, a, b):
            t = a + b
            ctx.save_for_backward(b, t)
            return t * b

        @staticmethod
        def backward(ctx, dL_dr):
            b, t = ctx.saved_tensors
            dL_dt = dL_dr * b
            return dL_dt, dL_dt + dL_dr * t

    class SimpleVariable(mg.autograd.Function):
        # 003_* notebook, simple_variable_almost: t is returned as a second output; zero-filled grads
        calls = []

        @staticmethod
        def forward(ctx, a, b):
            t = a + b
            r = t * b
            ctx.save_for_backward(b, t)
            return r, t

        @staticmethod
        def backward(ctx, dL_dr, dL_dt0):
            SimpleVariable.calls.append((_np(dL_dr).copy(), _np(dL_dt0).copy()))
            b, t = ctx.saved_tensors
            dL_dt = dL_dt0 + dL_dr * b
            return dL_dt, dL_dr * t + dL_dt

    def _add_optional(a, b):
        # 003_* notebook, add_optional
        if a is None:
            return b
        if b is None:
            return a
        return a + b

    class SimpleVariableOptional(mg.autograd.Function):
        # 003_* notebook, simple_variable: None-aware backward (ctx.set_materialize_grads(False))
        calls = []

        @staticmethod
        def forward(ctx, a, b):
            ctx.set_materialize_grads(False)
            t = a + b
            r = t * b
            ctx.save_for_backward(b, t)
            return r, t

        @staticmethod
        def backward(ctx, dL_dr, dL_dt0):
            SimpleVariableOptional.calls.append((dL_dr is None, dL_dt0 is None))
            b, t = ctx.saved_tensors
            dL_dt = dL_dt0
            if dL_dr is not None:
                dL_dt = _add_optional(dL_dt, dL_dr * b)
            dL_db = dL_dr * t if dL_dr is not None else None
            if dL_dt is not None:
                dL_da = dL_dt
                dL_db = _add_optional(dL_db, dL_dt)
            else:
                dL_da = None
            return dL_da, dL_db

    return types.SimpleNamespace(SimpleRecompute=SimpleRecompute, SimpleVariableWrong=SimpleVariableWrong,
                                 SimpleVariable=SimpleVariable, SimpleVariableOptional=SimpleVariableOptional)


_B_SECOND_DA = [1.2610, 2.1306, 5.8396, 3.3868]       # torch on data set B
_B_SECOND_DB = [2.6920, 4.9204, 13.6568, 8.0724]
_B_PRINTED_DA = [1.2611, 2.1304, 5.8394, 3.3869]      # 003_* printed
_B_PRINTED_DB = [2.6923, 4.9201, 13.6563, 8.0727]
_A_SECOND_DA = [1.5438, 2.8498, 3.2622, 1.3136]
_A_SECOND_DB = [3.8424, 6.9612, 7.5722, 2.9046]
_A_PRINTED_DA = [1.5438, 2.8499, 3.2622, 1.3134]
_A_PRINTED_DB = [3.8424, 6.9614, 7.5721, 2.9042]


def test_notebook_simple_recompute_function_matches_composite():
    # 003_* notebook, "da, db = run_gradients(simple_recompute); da_ref, db_ref = run_gradients(simple)"
    nb = _notebook_functions()
    d1 = _run_gradients(nb.SimpleRecompute.apply, B_A, B_B, second_loss=False)
    r1 = _run_gradients(simple, B_A, B_B, second_loss=False)
    for got, ref in zip(d1, r1):
        _close(got, _np(ref))
    da, db = _run_gradients(nb.SimpleRecompute.apply, B_A, B_B)
    da_ref, db_ref = _run_gradients(simple, B_A, B_B)
    _close(da, _np(da_ref))
    _close(db, _np(db_ref))
    _close(da, _B_SECOND_DA)
    _close(db, _B_SECOND_DB)
    np.testing.assert_allclose(_np(da), _B_PRINTED_DA, atol=PRINTED_ATOL)
    np.testing.assert_allclose(_np(db), _B_PRINTED_DB, atol=PRINTED_ATOL)


def test_notebook_simple_variable_wrong_first_order_is_right():
    # 003_* notebook, "run_gradients(simple_variable_wrong, second_loss=False)" == reference
    nb = _notebook_functions()
    da, db = _run_gradients(nb.SimpleVariableWrong.apply, B_A, B_B, second_loss=False)
    _close(da, [0.0850, 0.3296, 0.9888, 0.6494])
    _close(db, [0.6305, 1.0653, 2.9198, 1.6934])
    np.testing.assert_allclose(_np(db), [0.6306, 1.0652, 2.9197, 1.6935], atol=PRINTED_ATOL)


def test_notebook_simple_variable_wrong_second_order_loses_da():
    # 003_* notebook, simple_variable_wrong: "da None" and "db tensor([1.4312, 2.7896, 7.8169, 4.6857])"
    nb = _notebook_functions()
    da, db = _run_gradients(nb.SimpleVariableWrong.apply, B_A, B_B, allow_unused=True)
    assert da is None
    _close(db, [1.4310, 2.7898, 7.8172, 4.6856])   # 2a + 6b: the saved t is treated as a constant
    np.testing.assert_allclose(_np(db), [1.4312, 2.7896, 7.8169, 4.6857], atol=PRINTED_ATOL)


def test_notebook_simple_variable_wrong_second_order_without_allow_unused_raises():
    # 003_* notebook, simple_variable_wrong: "While we do not get an error" there; PyTorch's grad does raise
    nb = _notebook_functions()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        _run_gradients(nb.SimpleVariableWrong.apply, B_A, B_B)


@pytest.mark.parametrize("cls_name", ["SimpleVariable", "SimpleVariableOptional"], ids=["almost", "optional"])
def test_notebook_simple_variable_with_t_output_second_order(cls_name):
    # 003_* notebook, simple_variable_almost / simple_variable: "da tensor([1.5438, ...])" "db tensor([3.8424, ...])"
    fn_cls = getattr(_notebook_functions(), cls_name)

    def fn(a, b):
        r, t = fn_cls.apply(a, b)
        return r

    da, db = _run_gradients(fn, A_A, A_B)
    da_ref, db_ref = _run_gradients(simple, A_A, A_B)
    _close(da, _np(da_ref))
    _close(db, _np(db_ref))
    _close(da, _A_SECOND_DA)
    _close(db, _A_SECOND_DB)
    np.testing.assert_allclose(_np(da), _A_PRINTED_DA, atol=PRINTED_ATOL)
    np.testing.assert_allclose(_np(db), _A_PRINTED_DB, atol=PRINTED_ATOL)


def test_notebook_simple_variable_backward_runs_twice_with_zero_filled_grads():
    # 003_* notebook, simple_variable_almost: first call dL_dt0 is zero, second call dL_dr is zero ("Excercise")
    SimpleVariable = _notebook_functions().SimpleVariable
    SimpleVariable.calls.clear()

    def fn(a, b):
        return SimpleVariable.apply(a, b)[0]

    _run_gradients(fn, A_A, A_B)
    assert len(SimpleVariable.calls) == 2     # "expect it to run multiple times!"
    (dr1, dt1), (dr2, dt2) = SimpleVariable.calls
    np.testing.assert_allclose(dr1, [1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(dt1, [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(dr2, [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(dt2, _A_SECOND_DA, rtol=1e-12)


def test_notebook_simple_variable_optional_receives_none_for_unused_outputs():
    # 003_* notebook, simple_variable (None-aware): with set_materialize_grads(False) unused grads arrive as None
    SimpleVariableOptional = _notebook_functions().SimpleVariableOptional
    SimpleVariableOptional.calls.clear()

    def fn(a, b):
        return SimpleVariableOptional.apply(a, b)[0]

    _run_gradients(fn, A_A, A_B)
    assert SimpleVariableOptional.calls == [(False, True), (True, False)]


def test_podcast_reentrant_autograd_inside_backward():
    # 002_* podcast, reentrant execution: "inside one of those backward functions, you actually execute autograd again"
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            with mg.enable_grad():
                xd = x.detach().requires_grad_()
                out = xd ** 3
                gx, = mg.autograd.grad(out, xd, g)
            return gx

    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Cube.apply(x).sum().backward()
    _close(x.grad, [3.0, 12.0, 27.0])


# ---------------------------------------------------------------------------------------------
# Podcast: anomaly mode (applied to the essay's sqrt program at a point where sqrt is nan)
# ---------------------------------------------------------------------------------------------

def test_podcast_anomaly_mode_names_sqrt_backward_returning_nan():
    # 002_* podcast, anomaly mode ("debug why are NANS showing up"), on 000_* essay's y = sqrt(x) + x at x = -4
    x = mg.tensor(-4.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.autograd.detect_anomaly():
            y = mg.sqrt(x) + x
            with pytest.raises(RuntimeError, match="SqrtBackward") as exc:
                y.backward()
    assert "nan" in str(exc.value)


def test_podcast_anomaly_mode_reports_forward_traceback():
    # 002_* podcast, anomaly mode: "this was the forward operation, the back trace that actually caused that situation"
    x = mg.tensor(-4.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mg.autograd.detect_anomaly():
            y = mg.sqrt(x) + x
            with pytest.raises(RuntimeError):
                y.backward()
    texts = [str(w.message) for w in caught]
    assert any("SqrtBackward" in t and "test_podcast_anomaly_mode_reports_forward_traceback" in t for t in texts), texts


def test_podcast_without_anomaly_mode_nan_grad_is_silent():
    # 002_* podcast, anomaly mode is opt-in: the same program without it just yields a nan gradient
    x = mg.tensor(-4.0, requires_grad=True)
    y = mg.sqrt(x) + x
    y.backward()
    assert math.isnan(x.grad.item())


def test_podcast_anomaly_mode_leaves_correct_results_alone():
    # 002_* podcast, anomaly mode + 000_* essay clog section: d(sqrt(x) + x)/dx at 4 is still 1.25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.autograd.detect_anomaly():
            x = mg.tensor(4.0, requires_grad=True)
            y = mg.sqrt(x) + x
            y.backward()
    assert x.grad.item() == pytest.approx(1.25)


def test_podcast_anomaly_mode_names_custom_function_backward():
    # 002_* podcast, anomaly mode: "when something fails in a backwards operation, I'll tell you"
    class BadFun(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match="BadFunBackward"):
                BadFun.apply(x).sum().backward()


# ---------------------------------------------------------------------------------------------
# Podcast: checkpointing ("we just rerun the forwards again")
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("use_reentrant", [True, False])
def test_podcast_checkpoint_same_grads_as_plain_run(use_reentrant):
    # 002_* podcast, checkpointing, applied to 003_* notebook's simple on data set B
    from minigrad.utils.checkpoint import checkpoint

    a = mg.tensor(B_A, requires_grad=True)
    b = mg.tensor(B_B, requires_grad=True)
    out = checkpoint(simple, a, b, use_reentrant=use_reentrant)
    assert out.requires_grad
    _close(out, _np(simple(mg.tensor(B_A), mg.tensor(B_B))))
    out.sum().backward()
    _close(a.grad, [0.0850, 0.3296, 0.9888, 0.6494])
    _close(b.grad, [0.6305, 1.0653, 2.9198, 1.6934])


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_podcast_checkpoint_reruns_forward_during_backward(use_reentrant):
    # 002_* podcast, checkpointing: "we run the forwards, and we just don't save anything ... rerun the forwards again"
    from minigrad.utils.checkpoint import checkpoint

    calls = []

    def block(x):
        calls.append(1)
        return mg.sin(x) * mg.exp(x)

    x = mg.tensor([0.1, 0.5, 1.0], requires_grad=True)
    out = checkpoint(block, x, use_reentrant=use_reentrant)
    assert len(calls) == 1
    out.sum().backward()
    assert len(calls) == 2
    x_plain = mg.tensor([0.1, 0.5, 1.0], requires_grad=True)
    block(x_plain).sum().backward()
    _close(x.grad, _np(x_plain.grad))
    _close(x.grad, [1.2099826555596132, 2.2373281197977843, 3.7560492270947274])
