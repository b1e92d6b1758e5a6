"""Common mistakes feeding a model get PyTorch's errors and warnings: norm layers, RNNs
and PReLU given parameters or inputs of the wrong size or dtype (a float64 numpy batch
into a float32 model is the usual case), losses given a target of another shape."""
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CASES = [
    lambda L: L.nn.functional.batch_norm(L.ones(2, 4), L.zeros(3), L.ones(3), training=True),
    lambda L: L.nn.functional.batch_norm(L.ones(2, 4), None, None, L.ones(3), training=True),
    lambda L: L.nn.functional.batch_norm(L.ones(2, 4), L.zeros(4), L.ones(3)),
    lambda L: L.nn.functional.batch_norm(L.ones(2, 4), L.zeros(4), L.ones(4), None, L.ones(3)),
    lambda L: L.nn.BatchNorm2d(3)(L.ones(2, 4, 2, 2)),
    lambda L: L.nn.BatchNorm1d(3)(L.ones(2, 3, dtype=L.float64)),
    lambda L: L.nn.BatchNorm2d(3).eval()(L.ones(2, 3, 2, 2, dtype=L.float64)),
    lambda L: L.nn.functional.batch_norm(L.ones(2, 4), L.zeros(4, dtype=L.float64), L.ones(4)),
    lambda L: L.nn.functional.batch_norm(L.ones(2, 4, dtype=L.float16), L.zeros(4, dtype=L.float64),
                                         L.ones(4, dtype=L.float64), training=True),
    lambda L: L.nn.LayerNorm(3)(L.ones(2, 3, dtype=L.float64)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 4), (4,), L.ones(4, dtype=L.float64)),
    lambda L: L.nn.GroupNorm(1, 3)(L.ones(2, 3, 2, dtype=L.float64)),
    lambda L: L.nn.InstanceNorm1d(3, affine=True)(L.ones(2, 3, 4, dtype=L.float64)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_norm_parameter_errors_as_torch(case):
    with pytest.raises(RuntimeError) as theirs:
        CASES[case](torch)
    with pytest.raises(RuntimeError) as ours:
        CASES[case](mg)
    assert str(ours.value) == str(theirs.value)


# the same mistakes in the recurrent layers and PReLU (ValueError for the RNNs, as torch)
RECURRENT_AND_PRELU = [
    lambda L: L.nn.LSTM(3, 2)(L.ones(2, 1, 3, dtype=L.float64)),
    lambda L: L.nn.GRU(3, 2).double()(L.ones(2, 1, 3)),
    lambda L: L.nn.RNN(3, 4)(L.ones(5, 2, 3), L.zeros(1, 3, 4)),
    lambda L: L.nn.LSTM(3, 4)(L.ones(5, 2, 3), (L.zeros(1, 3, 4), L.zeros(1, 2, 4))),
    lambda L: L.nn.LSTM(3, 4)(L.ones(5, 2, 3), (L.zeros(1, 2, 4), L.zeros(1, 3, 4))),
    lambda L: L.nn.PReLU()(L.ones(2, dtype=L.float64)),
]


@pytest.mark.parametrize("case", range(len(RECURRENT_AND_PRELU)))
def test_recurrent_and_prelu_errors_as_torch(case):
    with pytest.raises((ValueError, RuntimeError)) as theirs:
        RECURRENT_AND_PRELU[case](torch)
    with pytest.raises(type(theirs.value)) as ours:
        RECURRENT_AND_PRELU[case](mg)
    assert str(ours.value) == str(theirs.value).replace("torch.", "minigrad.")


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_a_target_of_another_shape_warns_as_torch(loss):
    import warnings
    messages = []
    for lib in (torch, mg):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(lib.nn.functional, loss)(lib.ones(3), lib.ones(3, 1))
        messages.append([str(w.message) for w in caught])
    assert messages[1] == [m.replace("torch.", "minigrad.") for m in messages[0]]
