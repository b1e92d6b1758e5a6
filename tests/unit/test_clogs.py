"""Clogs: implicit conversions of tensors that require grad warn, explicit exits do not."""
import math
import operator
import os
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import GradientClogError, GradientClogWarning


@pytest.fixture(autouse=True)
def _default_mode():
    mg.autograd.clogs.clear()  # each test's call sites warn afresh (a site warns once)
    with mg.autograd.set_clog_mode("warn"):
        yield


@pytest.mark.parametrize("convert", [float, int, complex, np.asarray, np.array,
                                     lambda t: math.sqrt(t), lambda t: math.exp(t)],
                         ids=["float", "int", "complex", "asarray", "array", "math.sqrt", "math.exp"])
def test_implicit_conversion_of_tensor_requiring_grad_warns(convert):
    x = mg.tensor(2.0, requires_grad=True)
    with pytest.warns(GradientClogWarning):
        convert(x * 1.5)


def test_message_names_the_user_line_the_grad_fn_and_the_fix():
    x = mg.tensor(4.0, requires_grad=True)
    h = x * 2.0
    with pytest.warns(GradientClogWarning) as record:
        math.sqrt(h)
    warning = record[0]
    assert os.path.basename(warning.filename) == os.path.basename(__file__)
    message = str(warning.message)
    assert f"{os.path.basename(__file__)}:{warning.lineno}" in message
    assert "MulBackward0" in message
    assert "'h'" in message
    assert ".detach()" in message and "minigrad.sqrt" in message


def test_leaf_message_says_leaf():
    x = mg.tensor(4.0, requires_grad=True)
    with pytest.warns(GradientClogWarning, match="leaf with requires_grad=True"):
        float(x)


def test_explicit_exits_are_silent():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y[0].item() == 3.0
        assert y.tolist() == [3.0, 6.0]
        assert float(y[1].detach()) == 6.0
        np.testing.assert_allclose(np.asarray(y.detach()), [3.0, 6.0])
        assert y.detach().numpy().tolist() == [3.0, 6.0]


def test_numpy_method_on_tensor_requiring_grad_raises_like_pytorch():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        x.numpy()


def test_conversions_without_grad_are_silent():
    x = mg.tensor(2.0, requires_grad=True)
    i = mg.tensor(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mg.no_grad():
            assert float(x) == 2.0
            assert np.asarray(x).shape == ()
        assert float(mg.tensor(2.5)) == 2.5
        assert operator.index(i) == 3
        assert [10, 20, 30, 40][i] == 40
        assert int(mg.tensor(7.9)) == 7


def test_error_mode_raises_and_context_manager_restores():
    x = mg.tensor(2.0, requires_grad=True)
    with mg.autograd.set_clog_mode("error"):
        with pytest.raises(GradientClogError, match="float\\(\\) converted 'x'"):
            float(x)
    assert mg.autograd.get_clog_mode() == "warn"
    with pytest.warns(GradientClogWarning):
        float(x)


def test_off_mode_is_silent_and_set_clog_mode_takes_effect_immediately():
    x = mg.tensor(2.0, requires_grad=True)
    previous = mg.autograd.get_clog_mode()
    mg.autograd.set_clog_mode("off")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert float(x) == 2.0
    finally:
        mg.autograd.set_clog_mode(previous)
    with mg.autograd.clog_mode("off"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            float(x)


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="warn"):
        mg.autograd.set_clog_mode("loud")


def test_grad_of_unused_input_names_the_conversion_site():
    x = mg.tensor(4.0, requires_grad=True)
    w = mg.tensor(1.0, requires_grad=True)
    with pytest.warns(GradientClogWarning) as record:
        s = math.sqrt(x)
    y = w * s
    with pytest.raises(RuntimeError, match="appears to not have been used") as info:
        mg.autograd.grad(y, [w, x])
    message = str(info.value)
    assert "x was converted to a Python float" in message
    assert f"{os.path.basename(__file__)}:{record[0].lineno}" in message
    assert "the graph was cut there" in message


def test_grad_of_unused_input_through_converted_intermediate():
    x = mg.tensor(4.0, requires_grad=True)
    w = mg.tensor(1.0, requires_grad=True)
    h = x * x
    with pytest.warns(GradientClogWarning):
        s = float(h)
    with pytest.raises(RuntimeError, match="h was converted"):
        mg.autograd.grad(w * s, [x])


def test_unused_input_without_a_clog_keeps_the_plain_message():
    x = mg.tensor(4.0, requires_grad=True)
    w = mg.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        mg.autograd.grad(w * 2, [x])
    assert "converted" not in str(info.value)


def test_backward_of_a_result_cut_off_by_a_clog_says_where():
    x = mg.tensor(4.0, requires_grad=True)
    with pytest.warns(GradientClogWarning):
        y = mg.tensor(math.sqrt(x))
    with pytest.raises(RuntimeError, match="does not require grad.*x was converted"):
        y.backward()


def test_formatting_a_loss_is_silent():
    x = mg.tensor(2.0, requires_grad=True)
    loss = x * x
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f"{loss:.3f}" == "4.000"
        assert f"{loss}" == repr(loss)


def test_a_clog_in_a_training_loop_warns_once_per_call_site():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")   # even where every warning would show each time
        for _ in range(50):
            math.sqrt((w * w).sum())       # one site
            float(w.sum())                 # another site
    clogs = [r for r in record if issubclass(r.category, GradientClogWarning)]
    assert len(clogs) == 2
    assert len({r.lineno for r in clogs}) == 2


def test_minigrad_optimizers_and_schedulers_never_clog():
    from minigrad import optim
    w = mg.tensor([0.5, -1.5, 2.0], requires_grad=True)
    makers = [lambda: optim.SGD([w], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
              lambda: optim.Adam([w], amsgrad=True), lambda: optim.AdamW([w]),
              lambda: optim.RMSprop([w], centered=True, momentum=0.5),
              lambda: optim.Adagrad([w]), lambda: optim.Adadelta([w]),
              lambda: optim.LBFGS([w], line_search_fn="strong_wolfe")]
    with mg.autograd.set_clog_mode("error"):   # a clog anywhere raises
        for make in makers:
            opt = make()
            plateau = optim.lr_scheduler.ReduceLROnPlateau(opt)

            def closure():
                opt.zero_grad()
                loss = ((w - 1) ** 2).sum()
                loss.backward()
                return loss
            for _ in range(3):
                loss = opt.step(closure)
                plateau.step(loss)   # torch calls float(loss) here; minigrad uses .item()
