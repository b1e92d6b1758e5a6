"""Seed ports: the essay "clogs and leaks" (000_* in shared/seeds/).

A *clog* is a place where gradients silently stop flowing (math.sqrt on a tensor converts it to
a Python float); a *leak* is state that keeps an ever-growing graph alive across iterations
(the truck loop).  minigrad answers them with two warnings:
  mg.autograd.GradientClogWarning  (a UserWarning subclass) when a tensor requiring grad is
                                   converted with float()
  mg.autograd.GradientLeakWarning  when a loop keeps back-propagating through a graph that grows
                                   from iteration to iteration
numpy ufuncs applied to a Tensor dispatch to differentiable minigrad ops instead of clogging.

Numbers come from running the essay's programs with PyTorch 2.13 in float64 (the essay used
float32 tensors; here mg.tensor of Python floats gives float64).
"""
import math
import warnings

import numpy as np
import pytest

import minigrad as mg
from tests.seed_data import np_of as _np


@pytest.fixture(autouse=True)
def _float64_default():
    """These ports check hand-computed values to ~1e-12, so they run in float64, as the
    PyTorch originals would after torch.set_default_dtype(torch.float64)."""
    previous = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    yield
    mg.set_default_dtype(previous)

# the leak warning must show up within this many iterations of the essay's loop (see NOTES.md)
LEAK_WITHIN = 50




# ---------------------------------------------------------------------------------------------
# Clogs
# ---------------------------------------------------------------------------------------------

def test_essay_clog_warning_is_a_userwarning():
    # 000_* essay, "Clogs": "this situation should at the very least raise an error or a warning"
    assert issubclass(mg.autograd.GradientClogWarning, UserWarning)


def test_essay_clog_math_sqrt_warns_and_deposits_only_1():
    # 000_* essay, "Clogs": from math import sqrt; y = sqrt(x) + x at x = 4 prints 1, not 1.25
    x = mg.tensor(4.0, requires_grad=True)
    with pytest.warns(mg.autograd.GradientClogWarning):
        y = math.sqrt(x) + x
    assert isinstance(y, mg.Tensor)
    assert y.item() == pytest.approx(6.0)
    y.backward()
    assert x.grad.item() == pytest.approx(1.0)


def test_essay_clog_float_conversion_of_tensor_requiring_grad_warns():
    # 000_* essay, "Clogs": "PyTorch tensors implicitly convert to raw floating-point numbers as needed"
    x = mg.tensor(4.0, requires_grad=True)
    with pytest.warns(mg.autograd.GradientClogWarning):
        v = float(x)
    assert v == 4.0
    assert type(v) is float


def test_essay_clog_float_of_non_leaf_requiring_grad_warns():
    # 000_* essay, "Clogs": the essay's sqrt argument could equally be an intermediate value
    x = mg.tensor(2.0, requires_grad=True)
    h = x * 2.0
    with pytest.warns(mg.autograd.GradientClogWarning):
        y = math.sqrt(h) + x
    y.backward()
    assert x.grad.item() == pytest.approx(1.0)


def test_essay_float_of_tensor_not_requiring_grad_is_silent():
    # 000_* essay, "Clogs": converting a tensor that carries no gradient cannot clog anything
    x = mg.tensor(4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(x) == 4.0
        assert math.sqrt(x) == pytest.approx(2.0)


def test_essay_float_of_detached_tensor_is_silent():
    # 000_* essay, "Leaks": ".detach() ... creating an artificial clog" -- explicit, so no warning
    x = mg.tensor(4.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(x.detach()) == 4.0


def test_essay_explicit_detach_clog_is_silent_and_gives_1():
    # 000_* essay, "Leaks": detach "snips off all incoming edges": d(sqrt(x.detach()) + x)/dx = 1, no warning
    x = mg.tensor(4.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = mg.sqrt(x.detach()) + x
        y.backward()
    assert x.grad.item() == pytest.approx(1.0)


def test_essay_clog_fixed_with_mg_sqrt_gives_1_25():
    # 000_* essay, "Clogs": with `from torch import sqrt` the AP-calculus answer 1.25 is printed
    from minigrad import sqrt

    x = mg.tensor(4.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = sqrt(x) + x
        y.backward()
    assert float(y.detach()) == pytest.approx(6.0)
    assert x.grad.item() == pytest.approx(1.25)


def test_essay_numpy_sqrt_dispatches_to_differentiable_op():
    # 000_* essay, "Clogs" with np.sqrt in place of math.sqrt: must not clog
    x = mg.tensor(4.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = np.sqrt(x)
        assert isinstance(s, mg.Tensor)
        assert s.requires_grad
        y = s + x
        y.backward()
    assert x.grad.item() == pytest.approx(1.25)


def test_essay_numpy_sqrt_on_vector_tensor():
    # 000_* essay, "Clogs" with np.sqrt on a vector: d sqrt(x)/dx = 1 / (2 sqrt(x))
    x = mg.tensor([4.0, 9.0, 16.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = np.sqrt(x)
        assert isinstance(y, mg.Tensor)
        np.testing.assert_allclose(_np(y), [2.0, 3.0, 4.0])
        y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [0.25, 1.0 / 6.0, 0.125], rtol=1e-12)


def test_essay_reparametrization_naive_sampling_clogs():
    # 000_* essay, "By the way": naively sampling from N(mu, sigma) with a non-differentiable RNG truncates the graph
    rng = np.random.default_rng(0)
    mu = mg.tensor(1.0, requires_grad=True)
    sigma = mg.tensor(0.5, requires_grad=True)
    with pytest.warns(mg.autograd.GradientClogWarning):
        sample = rng.normal(float(mu), float(sigma))
    assert isinstance(sample, float)


def test_essay_reparametrization_trick_lets_gradients_flow():
    # 000_* essay, "By the way": sample eps ~ N(0, 1), then rescale by sigma and add mu
    eps = mg.tensor([0.3, -1.2, 0.8, 0.05, -0.4])   # stands in for a standard-normal draw
    mu = mg.tensor(1.0, requires_grad=True)
    sigma = mg.tensor(0.5, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = mu + sigma * eps
        z.sum().backward()
    assert mu.grad.item() == pytest.approx(5.0)
    assert sigma.grad.item() == pytest.approx(-0.45)


# ---------------------------------------------------------------------------------------------
# Leaks: the truck program
# ---------------------------------------------------------------------------------------------

def _make_truck():
    # 000_* essay, "Leaks": truck_velocity = 3.142, truck_position = 2.718, get_measurement
    truck_velocity = mg.tensor(3.142)
    state = {"truck_position": mg.tensor(2.718)}

    def get_measurement(car_position):
        state["truck_position"] = state["truck_position"] + truck_velocity
        return mg.abs(state["truck_position"] - car_position)

    return get_measurement


def _truck_loop(n, variant):
    """The essay's online learning loop.

    variant: "leaky"  -- the essay's program as written
             "fixed"  -- my_position = my_position.detach() + my_velocity
             "before" -- detach placed before the loop (the essay's "no effect" placement)
             "after"  -- detach placed right after the position update (kills the gradient)
    """
    get_measurement = _make_truck()
    my_velocity = mg.tensor(0.01)
    my_position = mg.tensor(0.)
    if variant == "before":
        my_position = my_position.detach()
    for i in range(n):
        my_velocity.requires_grad_()
        if variant == "fixed":
            my_position = my_position.detach() + my_velocity
        else:
            my_position = my_position + my_velocity
        if variant == "after":
            my_position = my_position.detach()
        loss = get_measurement(my_position)
        loss.backward()
        my_velocity = my_velocity.detach() - my_velocity.grad * 0.01
    return my_velocity, my_position, loss


def test_essay_leak_warning_is_a_warning():
    # 000_* essay, "Leaks": "Just like memory leaks, gradient leaks can be extremely sneaky"
    assert issubclass(mg.autograd.GradientLeakWarning, Warning)


def test_essay_truck_loop_leak_warns_within_a_few_iterations():
    # 000_* essay, "Leaks": the leak is in my_position, which depends on all previous my_velocity values
    with pytest.warns(mg.autograd.GradientLeakWarning):
        my_velocity, my_position, loss = _truck_loop(LEAK_WITHIN, "leaky")
    # the leak does not change the numbers ("This code actually works just fine")
    assert float(my_velocity) == pytest.approx(0.01 * (LEAK_WITHIN + 1))


def test_essay_truck_loop_fixed_is_silent_for_500_iterations():
    # 000_* essay, "Leaks": the essay's 500-iteration loop with my_position = my_position.detach() + my_velocity
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        my_velocity, my_position, loss = _truck_loop(500, "fixed")
        assert not my_velocity.requires_grad
        assert float(my_velocity) == pytest.approx(5.01, rel=1e-12)
        assert float(my_position.detach()) == pytest.approx(1252.5, rel=1e-12)
        assert float(loss.detach()) == pytest.approx(321.218, rel=1e-9)


def test_essay_truck_loop_leaky_and_fixed_follow_the_same_trajectory():
    # 000_* essay, "Leaks": "there's nothing up my sleeve here ... This code actually works just fine"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mg.autograd.GradientLeakWarning)
        v_leaky, p_leaky, l_leaky = _truck_loop(30, "leaky")
    v_fixed, p_fixed, l_fixed = _truck_loop(30, "fixed")
    assert float(v_leaky) == pytest.approx(0.31, rel=1e-12)
    assert float(v_fixed) == pytest.approx(0.31, rel=1e-12)
    assert float(p_leaky.detach()) == pytest.approx(4.65, rel=1e-12)
    assert float(p_fixed.detach()) == pytest.approx(4.65, rel=1e-12)
    assert float(l_leaky.detach()) == pytest.approx(float(l_fixed.detach()), rel=1e-12)
    assert float(l_fixed.detach()) == pytest.approx(92.328, rel=1e-9)


def test_essay_truck_loop_fixed_first_losses():
    # 000_* essay, "Leaks": get_measurement returns |truck_position - car_position| each step
    get_measurement = _make_truck()
    my_velocity = mg.tensor(0.01)
    my_position = mg.tensor(0.)
    losses = []
    for i in range(5):
        my_velocity.requires_grad_()
        my_position = my_position.detach() + my_velocity
        loss = get_measurement(my_position)
        loss.backward()
        assert my_velocity.grad.item() == pytest.approx(-1.0)   # the truck is ahead
        losses.append(float(loss.detach()))
        my_velocity = my_velocity.detach() - my_velocity.grad * 0.01
    np.testing.assert_allclose(losses, [5.85, 8.972, 12.084, 15.186, 18.278], rtol=1e-12)


def test_essay_truck_loop_detach_before_loop_has_no_effect():
    # 000_* essay, "Leaks": "Putting it in the wrong place will either have no effect ..."
    with pytest.warns(mg.autograd.GradientLeakWarning):
        _truck_loop(LEAK_WITHIN, "before")


def test_essay_truck_loop_detach_after_update_cuts_the_gradient():
    # 000_* essay, "Leaks": "... or cause my_velocity to always have gradient 0" (PyTorch: loss has no grad_fn)
    with pytest.raises(RuntimeError, match="does not require grad"):
        _truck_loop(3, "after")


def test_talk_plain_training_loop_does_not_warn_about_leaks():
    # 004_* talk, "Before we start": x_{n+1} = x_n - gamma * grad, graph rebuilt from leaves every step
    w = mg.tensor(0.0, requires_grad=True)
    x = mg.tensor([1.0, 2.0, 3.0])
    target = mg.tensor([2.0, 4.0, 6.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(200):
            loss = ((w * x - target) ** 2).mean()
            loss.backward()
            with mg.no_grad():
                w -= 0.05 * w.grad
            w.grad.zero_()
    assert float(w.detach()) == pytest.approx(2.0, abs=1e-9)
