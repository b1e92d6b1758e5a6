"""Seed ports: core reverse-mode behaviour of minigrad.

Ported from the seed documents in shared/seeds/:
  000_* essay "clogs and leaks"            (Preliminaries section)
  001_*/003_* notebook "Simple Autograd"   (Using grad, Zero Gradients, Gradients of Gradients)
  004_* talk "Autodiff & PyTorch for the gifted amateur" (PyTorch slides, new module slides,
        retain_graph excursus, detach() & clone() slides)

Every expected number was computed with PyTorch 2.13 (float64) on the same inputs and
hard-coded here; the tests themselves only need minigrad and numpy.
"""
import numpy as np
import pytest

import minigrad as mg
from tests.seed_data import A_A, A_B, B_A, B_B, C_A, C_B, PRINTED_ATOL, assert_close as _close, np_of as _np  # noqa: F401


@pytest.fixture(autouse=True)
def _float64_default():
    """These ports check hand-computed values to ~1e-12, so they run in float64, as the
    PyTorch originals would after torch.set_default_dtype(torch.float64)."""
    previous = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    yield
    mg.set_default_dtype(previous)


def simple(a, b):
    # 003_* "Using grad": def simple(a, b): t = a + b; return t * b
    t = a + b
    return t * b


# ---------------------------------------------------------------------------------------------
# Essay and talk: basic forward / backward
# ---------------------------------------------------------------------------------------------

def test_essay_preliminaries_d_2x_squared_at_3_is_12():
    # 000_* essay, "Preliminaries: PyTorch's Pipes": y = 2 * x**2, x = 3 -> x.grad = 12
    x = mg.tensor(3.0, requires_grad=True)
    y = 2 * x ** 2
    y.backward()
    assert x.grad.item() == pytest.approx(12.0)


def test_talk_pytorch_x1_times_x1_plus_x2_grads_7_and_2():
    # 004_* talk, "PyTorch" slide: y = x1 * (x1 + x2) -> "(1): tensor(7.), tensor(2.)"
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    assert y.item() == pytest.approx(10.0)
    y.backward()
    assert x1.grad.item() == pytest.approx(7.0)
    assert x2.grad.item() == pytest.approx(2.0)


def test_talk_backward_twice_without_retain_graph_raises():
    # 004_* talk, "PyTorch" slide: second y.backward() -> "Trying to backward through the graph a second time"
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time") as exc:
        y.backward()
    assert "retain_graph=True" in str(exc.value)
    # the failed call must not have changed the accumulated gradients
    assert x1.grad.item() == pytest.approx(7.0)
    assert x2.grad.item() == pytest.approx(2.0)


def test_talk_rebuilding_graph_accumulates_grads_14_and_4():
    # 004_* talk, "PyTorch" slide: rebuild y and backward again -> "(2): tensor(14.), tensor(4.)"
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    y.backward()
    y = x1 * (x1 + x2)
    y.backward()
    assert x1.grad.item() == pytest.approx(14.0)
    assert x2.grad.item() == pytest.approx(4.0)


def test_talk_grad_zero_then_rebuild_gives_7_and_2():
    # 004_* talk, "PyTorch" slide with x1.grad.zero_() ("Code smell!") -> "(2): tensor(7.), tensor(2.)"
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    y.backward()
    x1.grad.zero_()
    x2.grad.zero_()
    y = x1 * (x1 + x2)
    y.backward()
    assert x1.grad.item() == pytest.approx(7.0)
    assert x2.grad.item() == pytest.approx(2.0)


def test_talk_scalar_toy_sequence_with_retain_graph_accumulates_correctly():
    # 004_* talk, "Let's implement autodiff!" Scalar slides (outputs (2),(3),(4)); the toy prints
    # 16,6 and 11,6 because it re-walks shared nodes; a real engine gives 7,2 -> 14,4 -> 7,2.
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    y.backward(retain_graph=True)
    assert (x1.grad.item(), x2.grad.item()) == pytest.approx((7.0, 2.0))
    y.backward(retain_graph=True)
    assert (x1.grad.item(), x2.grad.item()) == pytest.approx((14.0, 4.0))
    x1.grad.zero_()
    x2.grad.zero_()
    y.backward()
    assert (x1.grad.item(), x2.grad.item()) == pytest.approx((7.0, 2.0))


def test_talk_autograd_grad_returns_7_and_2_without_touching_dot_grad():
    # 004_* talk, "PyTorch" slide example computed with mg.autograd.grad instead of backward()
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    g1, g2 = mg.autograd.grad(y, [x1, x2])
    assert g1.item() == pytest.approx(7.0)
    assert g2.item() == pytest.approx(2.0)
    assert x1.grad is None
    assert x2.grad is None


# ---------------------------------------------------------------------------------------------
# Talk: "A new PyTorch module" slides (nn.Module replaced by plain tensors: see NOTES.md)
# ---------------------------------------------------------------------------------------------

_W0 = [0.1, 0.2, 0.3, 0.4, 0.5]   # stands in for torch.rand(5) (the parameter)
_X0 = [1.0, 2.0, 3.0, 4.0, 5.0]   # stands in for torch.rand(5) (the input)


def test_talk_module_non_scalar_backward_raises():
    # 004_* talk, "A new PyTorch module": y = f(x); y.backward() -> "grad can be implicitly created only for scalar outputs"
    w = mg.tensor(_W0, requires_grad=True)
    weights = w ** 2
    x = mg.tensor(_X0)
    y = x * weights
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()


def test_talk_module_weights_squared_once_second_backward_raises():
    # 004_* talk, "A new PyTorch module": self.weights = Parameter(rand(n)) ** 2, two steps -> second time error
    w = mg.tensor(_W0, requires_grad=True)
    weights = w ** 2  # computed once, "in __init__"
    x = mg.tensor(_X0)
    y = mg.sum(x * weights)
    y.backward()
    _close(w.grad, [0.2, 0.8, 1.8, 3.2, 5.0])  # x * 2w
    w.grad = None  # f.zero_grad()
    y = mg.sum(x * weights)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_talk_module_weights_squared_in_forward_works_twice():
    # 004_* talk, "A new PyTorch module": forward returns x * (self.weights ** 2) -> both steps work
    w = mg.tensor(_W0, requires_grad=True)
    x = mg.tensor(_X0)
    for _ in range(2):
        w.grad = None  # f.zero_grad()
        y = mg.sum(x * (w ** 2))
        y.backward()
        _close(w.grad, [0.2, 0.8, 1.8, 3.2, 5.0])


def test_talk_module_parameter_of_squared_rand_is_a_leaf_and_works_twice():
    # 004_* talk, "A new PyTorch module": self.weights = Parameter(rand(n) ** 2) -> leaf, both steps work
    w = mg.tensor((np.array(_W0) ** 2).tolist(), requires_grad=True)
    assert w.is_leaf
    x = mg.tensor(_X0)
    for _ in range(2):
        w.grad = None
        y = mg.sum(x * w)
        y.backward()
        _close(w.grad, _X0)


# ---------------------------------------------------------------------------------------------
# Talk: "Excusus: backward's retain_graph"
# ---------------------------------------------------------------------------------------------

_XR = [0.57, 0.895, 0.515, 0.80]  # stands in for torch.rand(4)


def _retain_graph_setup():
    n = 4
    x = mg.tensor(_XR, requires_grad=True)
    d = x ** 2
    c = d * 2.0
    b = c.mean()
    a = c.sum()
    return n, x, c, b, a


def test_talk_retain_graph_mean_then_sum_accumulates_1_true_2_false():
    # 004_* talk, retain_graph excursus: outputs "(1) True" "(2) False" (a.backward() accumulates onto b's grad)
    n, x, c, b, a = _retain_graph_setup()
    b.backward(retain_graph=True)
    grads_exp = 4.0 * x.detach() / n
    assert np.allclose(_np(x.grad), _np(grads_exp))                 # (1) True
    a.backward()
    assert not np.allclose(_np(x.grad), _np(n * grads_exp))         # (2) False
    _close(x.grad, (n + 1) * np.array(_XR))                          # 5x: b's x plus a's 4x


def test_talk_retain_graph_difference_of_grads_1_true_2_true():
    # 004_* talk, retain_graph excursus: grads = x.grad.clone(); (2) allclose(x.grad - grads, n * grads_exp) -> True
    n, x, c, b, a = _retain_graph_setup()
    b.backward(retain_graph=True)
    grads = x.grad.clone()
    grads_exp = 4.0 * x.detach() / n
    assert np.allclose(_np(grads), _np(grads_exp))
    a.backward()
    assert np.allclose(_np(x.grad - grads), _np(n * grads_exp))
    # the clone must not have been changed by the accumulation into x.grad
    _close(grads, _XR)


def test_talk_retain_graph_zero_then_sum_gives_4x():
    # 004_* talk, retain_graph excursus: x.grad.zero_() between the two backward calls
    n, x, c, b, a = _retain_graph_setup()
    b.backward(retain_graph=True)
    grads_exp = 4.0 * x.detach() / n
    assert np.allclose(_np(x.grad), _np(grads_exp))
    x.grad.zero_()
    a.backward()
    assert np.allclose(_np(x.grad), _np(n * grads_exp))
    _close(x.grad, 4.0 * np.array(_XR))


def test_talk_retain_graph_two_backwards_equal_backward_of_sum():
    # 004_* talk, "Still, retain_graph is a code smell": b.backward + a.backward == (a + b).backward
    n, x, c, b, a = _retain_graph_setup()
    b.backward(retain_graph=True)
    a.backward(retain_graph=True)
    grads = x.grad.clone()
    x.grad.zero_()
    loss = a + b
    loss.backward()
    assert np.allclose(_np(x.grad), _np(grads))
    _close(x.grad, 5.0 * np.array(_XR))


def test_talk_backward_with_explicit_gradient_ones_like():
    # 004_* talk, "... and there are alternatives": c.backward(gradient=torch.ones_like(x)) == a's grads
    n, x, c, b, a = _retain_graph_setup()
    a.backward(retain_graph=True)
    grads_exp = x.grad.clone()
    x.grad.zero_()
    c.backward(gradient=mg.ones_like(x))
    assert np.allclose(_np(x.grad), _np(grads_exp))
    _close(x.grad, 4.0 * np.array(_XR))


# ---------------------------------------------------------------------------------------------
# Talk: "detach() & clone()" slides
# ---------------------------------------------------------------------------------------------

def test_talk_two_backwards_through_shared_c_raises():
    # 004_* talk, "detach() & clone()" first slide: a.backward(); b.backward() -> second time error
    p = mg.tensor(2.0, requires_grad=True)
    q = mg.tensor(3.0, requires_grad=True)
    c = 2 * p
    b = c * q
    a = c ** 2
    a.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        b.backward()


def test_talk_detach_gives_8p_and_2p_and_shares_storage():
    # 004_* talk, "detach() & clone()": c_cpy = c.detach(); outputs "(1) tensor(4.)" "(2) tensor(8.)"
    p_val, q_val = 2.0, 3.0
    p = mg.tensor(p_val, requires_grad=True)
    q = mg.tensor(q_val, requires_grad=True)
    c = 2 * p
    c_cpy = c.detach()
    b = c_cpy * q
    a = c ** 2
    a.backward()
    b.backward()
    assert np.isclose(p.grad.item(), 8 * p_val)
    assert np.isclose(q.grad.item(), 2 * p_val)
    assert not c_cpy.requires_grad
    assert c_cpy.item() == pytest.approx(4.0)   # (1)
    c.mul_(2)
    assert c_cpy.item() == pytest.approx(8.0)   # (2): detach shares storage


def test_talk_detach_clone_does_not_share_storage():
    # 004_* talk, "detach() & clone()" Line 11: c.detach().clone() -> "(1) tensor(4.)" "(2) tensor(4.)"
    p_val, q_val = 2.0, 3.0
    p = mg.tensor(p_val, requires_grad=True)
    q = mg.tensor(q_val, requires_grad=True)
    c = 2 * p
    c_cpy = c.detach().clone()
    b = c_cpy * q
    a = c ** 2
    a.backward()
    b.backward()
    assert np.isclose(p.grad.item(), 8 * p_val)
    assert np.isclose(q.grad.item(), 2 * p_val)
    assert c_cpy.item() == pytest.approx(4.0)
    c.mul_(2)
    assert c_cpy.item() == pytest.approx(4.0)
    assert c.item() == pytest.approx(8.0)


def test_talk_inplace_mul_before_detach_is_fine():
    # 004_* talk, "detach() & clone()": c.mul_(1.0) right after c = 2 * p -> no error, 8p and 2p
    p_val, q_val = 2.0, 3.0
    p = mg.tensor(p_val, requires_grad=True)
    q = mg.tensor(q_val, requires_grad=True)
    c = 2 * p
    c.mul_(1.0)
    c_cpy = c.detach()
    b = c_cpy * q
    a = c ** 2
    a.backward()
    b.backward()
    assert np.isclose(p.grad.item(), 8 * p_val)
    assert np.isclose(q.grad.item(), 2 * p_val)


def test_talk_inplace_mul_after_detach_raises_inplace_error():
    # 004_* talk, "detach() & clone()" Line 13: c.mul_(1.0) after b = c_cpy * q -> "modified by an inplace operation"
    p = mg.tensor(2.0, requires_grad=True)
    q = mg.tensor(3.0, requires_grad=True)
    c = 2 * p
    c_cpy = c.detach()
    b = c_cpy * q          # saves c_cpy, which shares storage/version with c
    c.mul_(1.0)
    a = c ** 2
    a.backward()           # a saved c after the mutation: fine
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                                           "has been modified by an inplace operation"):
        b.backward()


def test_talk_augmented_imul_after_detach_raises_inplace_error():
    # 004_* talk, "detach() & clone()": c *= 1.0 -> same in-place error
    p = mg.tensor(2.0, requires_grad=True)
    q = mg.tensor(3.0, requires_grad=True)
    c = 2 * p
    c_cpy = c.detach()
    b = c_cpy * q
    c *= 1.0
    a = c ** 2
    a.backward()
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
        b.backward()


def test_talk_out_of_place_overwrite_is_fine():
    # 004_* talk, "Rule of thumb: avoid in-place operations": c = c * 1.0 -> works, 8p and 2p
    p_val, q_val = 2.0, 3.0
    p = mg.tensor(p_val, requires_grad=True)
    q = mg.tensor(q_val, requires_grad=True)
    c = 2 * p
    c_cpy = c.detach()
    b = c_cpy * q
    c = c * 1.0
    a = c ** 2
    a.backward()
    b.backward()
    assert np.isclose(p.grad.item(), 8 * p_val)
    assert np.isclose(q.grad.item(), 2 * p_val)


# ---------------------------------------------------------------------------------------------
# Notebook: "Using grad", "Zero Gradients", "Gradients of Gradients"
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "a_val, b_val, printed_da, printed_db, exact_db",
    [
        # 003_* "Using grad" cell output
        (A_A, A_B, [0.3774, 0.6308, 0.5239, 0.1387], [0.7719, 1.4249, 1.6311, 0.6567],
         [0.7719, 1.4249, 1.6311, 0.6568]),
        # 001_* (JSON) execution_count 8 output
        (C_A, C_B, [0.2517, 0.3470, 0.8960, 0.3315], [0.8638, 1.6829, 2.6688, 1.2043],
         [0.8639, 1.6829, 2.6688, 1.2043]),
    ],
    ids=["003_using_grad", "001_using_grad"],
)
def test_notebook_using_grad_simple_vector_loss(a_val, b_val, printed_da, printed_db, exact_db):
    # 003_*/001_* notebook, "Using grad": loss = simple(a, b); da, db = grad(loss, [a, b]) seeded with ones
    a = mg.tensor(a_val, requires_grad=True)
    b = mg.tensor(b_val, requires_grad=True)
    loss = simple(a, b)
    da, db = mg.autograd.grad(loss, [a, b], grad_outputs=mg.ones_like(loss))
    _close(da, b_val)
    _close(db, exact_db)
    np.testing.assert_allclose(_np(da), printed_da, atol=PRINTED_ATOL)
    np.testing.assert_allclose(_np(db), printed_db, atol=PRINTED_ATOL)


@pytest.mark.parametrize(
    "a_val, b_val, printed_da",
    [
        (B_A, B_B, [0.9209, 0.8121, 1.8843, 0.7893]),   # 003_* "Zero Gradients" output
        (C_A, C_B, [0.7210, 1.9778, 1.7535, 1.0827]),   # 001_* execution_count 9 output
    ],
    ids=["003_zero_gradients", "001_zero_gradients"],
)
def test_notebook_zero_gradients_unused_input_is_none(a_val, b_val, printed_da):
    # 003_*/001_* notebook, "Zero Gradients": loss = a*a; grad(loss, [a, b]) -> da = 2a, db None
    a = mg.tensor(a_val, requires_grad=True)
    b = mg.tensor(b_val, requires_grad=True)
    loss = a * a
    da, db = mg.autograd.grad(loss, [a, b], grad_outputs=mg.ones_like(loss), allow_unused=True)
    assert db is None
    _close(da, 2.0 * np.array(a_val))
    np.testing.assert_allclose(_np(da), printed_da, atol=PRINTED_ATOL)


def test_notebook_zero_gradients_without_allow_unused_raises():
    # 003_* notebook, "Zero Gradients": in PyTorch an unused input is an error unless allow_unused=True
    a = mg.tensor(B_A, requires_grad=True)
    b = mg.tensor(B_B, requires_grad=True)
    loss = (a * a).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        mg.autograd.grad(loss, [a, b])


def _run_gradients(my_fn, a_val, b_val, second_loss=True):
    # 003_* notebook, "Gradients of Gradients": run_gradients(my_fn, second_loss=True)
    a = mg.tensor(a_val, requires_grad=True)
    b = mg.tensor(b_val, requires_grad=True)
    L0 = my_fn(a, b).sum()
    dL0_da, dL0_db = mg.autograd.grad(L0, [a, b], create_graph=True)
    if not second_loss:
        return dL0_da, dL0_db
    L1 = (dL0_da * dL0_da + dL0_db * dL0_db).sum()
    dL1_da, dL1_db = mg.autograd.grad(L1, [a, b])
    return dL1_da, dL1_db


def test_notebook_run_gradients_simple_first_order():
    # 003_* notebook, "run_gradients(simple, second_loss=False)" reference output (da_ref, db_ref)
    da, db = _run_gradients(simple, B_A, B_B, second_loss=False)
    _close(da, [0.0850, 0.3296, 0.9888, 0.6494])
    _close(db, [0.6305, 1.0653, 2.9198, 1.6934])
    np.testing.assert_allclose(_np(da), [0.0850, 0.3296, 0.9888, 0.6494], atol=PRINTED_ATOL)
    np.testing.assert_allclose(_np(db), [0.6306, 1.0652, 2.9197, 1.6935], atol=PRINTED_ATOL)


@pytest.mark.parametrize(
    "a_val, b_val, exact_da, exact_db, printed_da, printed_db",
    [
        # 003_* "Gradients of Gradients": da, db = run_gradients(simple)
        (B_A, B_B, [1.2610, 2.1306, 5.8396, 3.3868], [2.6920, 4.9204, 13.6568, 8.0724],
         [1.2611, 2.1304, 5.8394, 3.3869], [2.6923, 4.9201, 13.6563, 8.0727]),
        # 003_* simple_variable / simple_variable_almost cells (reference values on data set A)
        (A_A, A_B, [1.5438, 2.8498, 3.2622, 1.3136], [3.8424, 6.9612, 7.5722, 2.9046],
         [1.5438, 2.8499, 3.2622, 1.3134], [3.8424, 6.9614, 7.5721, 2.9042]),
        # 001_* (JSON) execution_count 10 output
        (C_A, C_B, [1.7278, 3.3658, 5.3376, 2.4086], [3.9590, 7.4256, 12.4672, 5.4802],
         [1.7276, 3.3659, 5.3377, 2.4085], [3.9586, 7.4258, 12.4675, 5.4800]),
    ],
    ids=["003_run_gradients", "003_simple_variable_ref", "001_run_gradients"],
)
def test_notebook_run_gradients_simple_second_order(a_val, b_val, exact_da, exact_db, printed_da, printed_db):
    # 003_*/001_* notebook, "Gradients of Gradients": L1 = (dL0_da**2 + dL0_db**2).sum(); grad(L1, [a, b])
    da, db = _run_gradients(simple, a_val, b_val)
    _close(da, exact_da)
    _close(db, exact_db)
    np.testing.assert_allclose(_np(da), printed_da, atol=PRINTED_ATOL)
    np.testing.assert_allclose(_np(db), printed_db, atol=PRINTED_ATOL)


def test_notebook_create_graph_makes_first_gradients_differentiable():
    # 003_* notebook, "Gradients of Gradients": propagate works on Variables so a gradient can be differentiated
    a = mg.tensor(B_A, requires_grad=True)
    b = mg.tensor(B_B, requires_grad=True)
    dL0_da, dL0_db = mg.autograd.grad(simple(a, b).sum(), [a, b], create_graph=True)
    assert dL0_da.requires_grad and dL0_db.requires_grad
    a2 = mg.tensor(B_A, requires_grad=True)
    b2 = mg.tensor(B_B, requires_grad=True)
    g_da, g_db = mg.autograd.grad(simple(a2, b2).sum(), [a2, b2])
    assert not g_da.requires_grad and not g_db.requires_grad
    _close(g_db, _np(dL0_db))


# ---------------------------------------------------------------------------------------------
# Talk: gradient-descent update x_{n+1} = x_n - gamma * grad, done under no_grad
# ---------------------------------------------------------------------------------------------

def test_talk_gradient_descent_step_under_no_grad():
    # 004_* talk, "Before we start": x_{n+1} = x_n - gamma * grad y; one step on y = x1 * (x1 + x2)
    lr = 0.1
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    y.backward()
    with mg.no_grad():
        for p in (x1, x2):
            p -= lr * p.grad
    assert x1.item() == pytest.approx(1.3)
    assert x2.item() == pytest.approx(2.8)
    assert x1.is_leaf and x1.requires_grad and x1.grad_fn is None
    assert x1.grad.item() == pytest.approx(7.0)  # the update does not touch .grad
    # the updated parameters are usable for the next step
    x1.grad = None
    x2.grad = None
    y = x1 * (x1 + x2)
    y.backward()
    assert x1.grad.item() == pytest.approx(2 * 1.3 + 2.8)
    assert x2.grad.item() == pytest.approx(1.3)


def test_talk_gradient_descent_step_without_no_grad_raises_leaf_error():
    # 004_* talk, "Before we start" update rule written in place without no_grad -> leaf in-place error
    x1 = mg.tensor(2.0, requires_grad=True)
    x2 = mg.tensor(3.0, requires_grad=True)
    y = x1 * (x1 + x2)
    y.backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x1 -= 0.1 * x1.grad
