"""Leaks: growing re-walks of consumed graph warn; ordinary programs stay silent."""
import os
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import GradientLeakError, GradientLeakWarning


@pytest.fixture(autouse=True)
def _fresh_leak_state():
    with mg.autograd.set_leak_mode("warn"):   # also forgets earlier tests' history
        yield


def _truck(n, fixed=False):
    truck = {"v": mg.tensor(3.142), "p": mg.tensor(2.718)}
    my_velocity, my_position = mg.tensor(0.01), mg.tensor(0.0)
    for _ in range(n):
        my_velocity.requires_grad_()
        my_position = (my_position.detach() if fixed else my_position) + my_velocity
        truck["p"] = truck["p"] + truck["v"]
        loss = mg.abs(truck["p"] - my_position)
        loss.backward()
        my_velocity = my_velocity.detach() - my_velocity.grad * 0.01
    return loss


class _Silent:
    def __enter__(self):
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def test_truck_loop_warns_once_with_a_useful_message():
    with pytest.warns(GradientLeakWarning) as record:
        _truck(12)
    leaks = [w for w in record if w.category is GradientLeakWarning]
    assert len(leaks) == 1   # once per growing streak, not once per iteration
    message = str(leaks[0].message)
    assert "walked 4 nodes" in message and "AddBackward0" in message
    assert "1, 2, 3, 4" in message          # how the count grew
    assert "detach" in message              # the fix
    assert "`my_position = my_position.detach() + ...`" in message   # names the carried state
    assert "first walked 4 backward calls ago" in message
    assert os.path.basename(leaks[0].filename) == os.path.basename(__file__)


def test_truck_loop_fixed_is_silent():
    with _Silent():
        _truck(100, fixed=True)


def test_strict_mode_raises():
    with mg.autograd.set_leak_mode("error"):
        with pytest.raises(GradientLeakError, match="detach"):
            _truck(10)


def test_off_mode_is_silent():
    with mg.autograd.set_leak_mode("off"), _Silent():
        _truck(20)
    assert mg.autograd.get_leak_mode() == "warn"


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError):
        mg.autograd.set_leak_mode("sometimes")


# --------------------------------------------------------------- no false positives
def _mlp_params():
    rng = np.random.default_rng(0)
    w1 = mg.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    w2 = mg.tensor(rng.normal(size=(4, 1)), requires_grad=True)
    return w1, w2


def test_training_loop_is_silent():
    w1, w2 = _mlp_params()
    x = mg.tensor(np.linspace(-1, 1, 15).reshape(5, 3))
    target = mg.tensor(np.ones((5, 1)))
    with _Silent():
        for _ in range(60):
            loss = ((mg.tanh(x @ w1) @ w2 - target) ** 2).mean()
            loss.backward()
            with mg.no_grad():
                w1 -= 0.1 * w1.grad
                w2 -= 0.1 * w2.grad
            w1.grad = None
            w2.grad = None


def test_gradient_accumulation_over_microbatches_is_silent():
    w1, w2 = _mlp_params()
    with _Silent():
        for step in range(20):
            for micro in range(4):
                x = mg.tensor(np.full((2, 3), 0.1 * micro))
                ((x @ w1) @ w2).sum().backward()
            w1.grad = w2.grad = None


def test_retain_graph_reuse_is_silent():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    loss = (mg.exp(x) * x + x).sum()
    with _Silent():
        for _ in range(20):
            loss.backward(retain_graph=True)
        loss.backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 21 * (np.exp([1.0, 2.0]) * [2.0, 3.0] + 1))


def test_double_backward_loop_is_silent():
    w = mg.tensor([0.5, -0.3], requires_grad=True)
    with _Silent():
        for _ in range(30):
            loss = (mg.sin(w) * w).sum()
            g, = mg.autograd.grad(loss, w, create_graph=True)
            penalty = (g * g).sum()
            (loss + penalty).backward()
            w.grad = None


def test_unrolled_inner_loop_with_create_graph_is_silent():
    # MAML-style: differentiating through a growing history on purpose (create_graph)
    w0 = mg.tensor([1.0, -1.0], requires_grad=True)
    with _Silent():
        for outer in range(3):
            w = w0
            for inner in range(8):
                loss = (w * w * w).sum()
                g, = mg.autograd.grad(loss, w, create_graph=True)
                w = w - 0.01 * g
            (w * w).sum().backward()


def test_hand_checkpointing_is_silent():
    x = mg.tensor([0.2, 0.4, 0.6], requires_grad=True)

    def block(t):
        return mg.tanh(t * 2.0) * t

    with _Silent():
        for _ in range(20):
            with mg.no_grad():
                mid = block(x)
            mid_leaf = mid.detach().requires_grad_()
            (mid_leaf * mid_leaf).sum().backward()
            recomputed = block(x)              # forward again, this time recording
            recomputed.backward(mid_leaf.grad)


def test_checkpoint_utility_is_silent():
    checkpoint_module = pytest.importorskip("minigrad.utils.checkpoint")
    x = mg.tensor([0.2, 0.4, 0.6], requires_grad=True)
    with _Silent():
        for _ in range(20):
            y = checkpoint_module.checkpoint(lambda t: mg.tanh(t) * t, x, use_reentrant=False)
            y.sum().backward()


def test_truncated_bptt_with_detach_is_silent():
    w = mg.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
    h = mg.zeros(2)
    with _Silent():
        for step in range(60):
            h = mg.tanh(w @ h + mg.tensor([1.0, 2.0]))
            if step % 5 == 4:
                h.sum().backward()
                h = h.detach()
                w.grad = None


def test_truncated_bptt_with_retain_graph_each_step_is_silent():
    # backward every step within a window of 5, detach at the window's end
    w = mg.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
    h = mg.zeros(2)
    with _Silent():
        for step in range(60):
            h = mg.tanh(w @ h + mg.tensor([1.0, 2.0]))
            h.sum().backward(retain_graph=True)
            if step % 5 == 4:
                h = h.detach()


def test_two_losses_sharing_a_node_each_iteration_are_silent():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with _Silent():
        for _ in range(30):
            shared = x + 1.0               # AddBackward0 saves nothing: re-walking is allowed
            (shared * 2.0).sum().backward()
            (shared * 3.0).sum().backward()


def test_constant_reuse_of_an_old_subgraph_is_silent():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    offset = x + 1.0                       # made once, walked by every backward: not growing
    with _Silent():
        for _ in range(30):
            (offset * 2.0).sum().backward()


# -------------------------------------------------------------------- other shapes
def test_rnn_state_carried_with_retain_graph_warns():
    # retain_graph=True asked for re-walks, so it takes a longer streak to call it a leak
    w = mg.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
    h = mg.zeros(2)
    with pytest.warns(GradientLeakWarning, match="(?s)TanhBackward0.*retain_graph=True"):
        for step in range(mg.autograd.leaks.GROWING_CALLS_RETAINED + 2):
            h = mg.tanh(w @ h + mg.tensor([1.0, 2.0]))
            h.sum().backward(retain_graph=True)


def test_rnn_state_carried_without_retain_graph_error_suggests_detach():
    w = mg.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
    h = mg.zeros(2)
    with pytest.raises(RuntimeError, match="backward through the graph a second time") as info:
        for step in range(3):
            h = mg.tanh(w @ h + mg.tensor([1.0, 2.0]))
            h.sum().backward()
    assert "state.detach()" in str(info.value)
    assert "retain_graph=True would silence" in str(info.value)


def test_graph_stats():
    a = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([0.5, 0.5, 0.5, 0.5], dtype=mg.float64, requires_grad=True)
    loss = ((a + b) * b).sum()
    s = mg.autograd.graph.stats(loss)
    assert (s.nodes, s.depth, s.stale, s.leaves) == (3, 3, 0, 2)
    assert s.saved_bytes == 2 * 4 * 8   # MulBackward0 saves a + b and b (float64)
    loss.backward()
    s = mg.autograd.graph.stats(loss)
    assert s.stale == 3 and s.released >= 1
    assert mg.autograd.graph.stats(mg.tensor(1.0)).nodes == 0


def test_graph_stats_counts_the_truck_leak():
    truck_v, truck_p = mg.tensor(3.142), mg.tensor(2.718)
    my_velocity, my_position = mg.tensor(0.01), mg.tensor(0.0)
    stale = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GradientLeakWarning)
        for _ in range(5):
            my_velocity.requires_grad_()
            my_position = my_position + my_velocity
            truck_p = truck_p + truck_v
            loss = mg.abs(truck_p - my_position)
            stale.append(mg.autograd.graph.stats(loss).stale)
            loss.backward()
            my_velocity = my_velocity.detach() - my_velocity.grad * 0.01
    assert stale == [0, 1, 2, 3, 4]


def test_anomaly_mode_shows_where_the_carried_state_was_made():
    with mg.autograd.detect_anomaly(), pytest.warns(GradientLeakWarning) as record:
        _truck(8)
    message = str([w for w in record if w.category is GradientLeakWarning][0].message)
    assert "Forward traceback of the oldest stale node" in message
    assert "my_position = (my_position.detach() if fixed else my_position) + my_velocity" in message
