"""Anomaly mode: the failing node is named, its forward stack is shown; off costs nothing."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import anomaly


def test_nan_in_backward_names_node_and_output_index():
    x = mg.tensor([-4.0, 4.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mg.autograd.detect_anomaly():
            y = mg.sqrt(x).sum()
            with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values "
                                                   r"in its 0th output\."):
                y.backward()
    texts = [str(w.message) for w in caught]
    assert texts[0].startswith("Anomaly Detection has been enabled")
    trace = [t for t in texts if t.startswith("Error detected in SqrtBackward0")]
    assert trace and "y = mg.sqrt(x).sum()" in trace[0]   # the user's forward line


def test_error_inside_backward_names_node_and_keeps_original_error():
    class Boom(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = mg.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.autograd.detect_anomaly():
            out = Boom.apply(x).sum()
            with pytest.raises(ValueError, match="boom") as err:
                out.backward()
    assert any("Error detected in BoomBackward" in n for n in err.value.__notes__)
    assert any("out = Boom.apply(x).sum()" in n for n in err.value.__notes__)


def test_check_nan_false_lets_nan_through():
    x = mg.tensor(-1.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.autograd.detect_anomaly(check_nan=False):
            mg.sqrt(x).backward()
    assert np.isnan(x.grad.item())


def test_set_detect_anomaly_function_and_context():
    assert not mg.autograd.is_anomaly_enabled()
    mg.autograd.set_detect_anomaly(True)
    try:
        assert mg.autograd.is_anomaly_enabled()
        x = mg.tensor([1.0], requires_grad=True)
        y = x * 2
        assert anomaly.forward_stack(y.grad_fn) is not None
    finally:
        mg.autograd.set_detect_anomaly(False)
    assert not mg.autograd.is_anomaly_enabled()
    with mg.autograd.set_detect_anomaly(True):
        assert mg.autograd.is_anomaly_enabled()
    assert not mg.autograd.is_anomaly_enabled()


def test_off_by_default_records_nothing():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    assert anomaly.forward_stack(y.grad_fn) is None


def test_node_made_without_anomaly_mode_says_so():
    x = mg.tensor(-1.0, requires_grad=True)
    y = mg.sqrt(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mg.autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match="returned nan"):
                y.backward()
    assert any("No forward pass information available" in str(w.message) for w in caught)


def test_decorator_form():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        @mg.autograd.detect_anomaly()
        def run():
            return mg.autograd.is_anomaly_enabled()

        assert run()
    assert not mg.autograd.is_anomaly_enabled()


def test_matches_pytorch_message():
    torch = pytest.importorskip("torch")
    for L in (mg, torch):
        x = L.tensor(-4.0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.autograd.detect_anomaly():
                y = L.sqrt(x) + x
                with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output."):
                    y.backward()
