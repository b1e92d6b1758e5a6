"""Array kernels of the fused recurrent cells: the elementwise part of one LSTM or GRU step.

The matmuls of a step stay separate ops (linear, addmm), so one matmul can project every
time step's input at once; these kernels do the rest of the step in one node instead
of a dozen (sigmoid, tanh, mul, add, chunk).  Gates are in torch's order: LSTM i, f, g, o;
GRU r, z, n.

The formulas (and the GRU kernel) write every gate activation as one tanh: sigmoid(x) =
0.5 * tanh(x / 2) + 0.5, so the four LSTM gates are one ``tanh(gates * scale) * scale +
shift`` over the whole (N, 4H) array (scale 1/2 and shift 1/2 on the sigmoid gates, 1 and
0 on g), a few calls per step instead of a few per gate.

The LSTM kernels (cell and layer) compute the same values through exp instead:
sigmoid(x) = 1 / (1 + exp(-x)) and tanh(x) = 2 sigmoid(2x) - 1, one exp over the (N, 4H)
gates.  On float32 numpy's exp is twice as fast as its tanh (the four gates of a
20 x 200 step: 28 us against 54 us); the two forms differ by rounding (1e-7 on
float32).  exp(-x) overflows to inf for very negative x, which gives the exact limit 0
(the generated forward silences numpy's warning).  The layer returns the activations, so its backward computes no exp.
"""
import functools

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import on_device_of


@functools.lru_cache(maxsize=64)
def _host_gate_scale_shift(hidden_size, chunks, tanh_chunk, dtype):
    scale = np.full((chunks, hidden_size), 0.5, dtype=dtype)
    shift = np.full((chunks, hidden_size), 0.5, dtype=dtype)
    if tanh_chunk is not None:
        scale[tanh_chunk], shift[tanh_chunk] = 1.0, 0.0
    return scale.reshape(-1), shift.reshape(-1)


def gate_scale_shift(like, hidden_size, chunks, tanh_chunk):
    """(scale, shift) rows, arrays of ``like``'s namespace: sigmoid gates use 0.5 and 0.5,
    the ``tanh_chunk``-th gate (or none) 1 and 0, so act = tanh(x * scale) * scale + shift."""
    scale, shift = _host_gate_scale_shift(hidden_size, chunks, tanh_chunk,
                                          np.dtype(like.dtype).str)
    like = getattr(like, "_data", like)  # (a Tensor in a create_graph formula)
    return on_device_of(like, scale), on_device_of(like, shift)


@functools.lru_cache(maxsize=64)
def _host_lstm_rates(hidden_size, dtype):
    rates = np.full((4, hidden_size), -1.0, dtype=dtype)
    rates[2] = -2.0  # g: tanh(x) = 2 sigmoid(2x) - 1
    return rates.reshape(-1)


def lstm_rates(like, hidden_size):
    """The (4H,) row -1, -1, -2, -1 (per gate i, f, g, o) that _lstm_activate_into scales
    the pre-activations by, in ``like``'s namespace: make it once per layer, not per step."""
    return on_device_of(like, _host_lstm_rates(hidden_size, np.dtype(like.dtype).str))


def _lstm_activate_into(gates, rates, act):
    """act = (sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)) of the (N, 4H) ``gates``."""
    xp = namespace_of(gates)
    h = gates.shape[-1] // 4
    xp.multiply(gates, rates, out=act)
    xp.exp(act, out=act)
    act += 1
    xp.divide(1, act, out=act)
    g = act[..., 2 * h:3 * h]
    g *= 2
    g -= 1


def _check_gates(op, gates, state, chunks, gates_name, state_name):
    h = state.shape[-1] if state.ndim else 0
    if state.ndim not in (1, 2) or gates.shape[:-1] != state.shape[:-1] \
            or gates.shape[-1] != chunks * h:
        raise RuntimeError(f"{op}: expected {gates_name} of shape (N, {chunks} * hidden_size) "
                           f"and {state_name} of shape (N, hidden_size) (or both without N), "
                           f"but got {tuple(gates.shape)} and {tuple(state.shape)}")
    return h


def _lstm_step_into(gates, cx, rates, act, tmp, hy, cy):
    """One LSTM step from the pre-activations ``gates`` (N, 4H) and cell ``cx``, written
    into ``cy`` and ``hy``; ``act`` (N, 4H) and ``tmp`` (N, H) are scratch buffers.  In
    place with out=: a layer's loop allocates nothing per step."""
    xp = namespace_of(gates)
    h = cx.shape[-1]
    _lstm_activate_into(gates, rates, act)
    i, f, g, o = (act[..., k * h:(k + 1) * h] for k in range(4))
    xp.multiply(f, cx, out=cy)
    xp.multiply(i, g, out=tmp)
    cy += tmp
    xp.tanh(cy, out=tmp)
    xp.multiply(o, tmp, out=hy)


def lstm_cell_array(gates, cx):
    """(hy, cy) of one LSTM step from its pre-activation ``gates`` (N, 4H) and cell ``cx``."""
    h = _check_gates("_lstm_cell", gates, cx, 4, "gates", "cx")
    xp = namespace_of(gates)
    dtype = xp.result_type(gates, cx)
    hy, cy = xp.empty(cx.shape, dtype=dtype), xp.empty(cx.shape, dtype=dtype)
    act = xp.empty(gates.shape, dtype=dtype)
    _lstm_step_into(gates, cx, lstm_rates(act, h), act, xp.empty_like(hy), hy, cy)
    return hy, cy


def gru_cell_array(input_gates, hidden_gates, hx):
    """One GRU step: ``input_gates`` = x W_ih^T + b_ih and ``hidden_gates`` = h W_hh^T + b_hh."""
    h = _check_gates("_gru_cell", input_gates, hx, 3, "input_gates", "hx")
    _check_gates("_gru_cell", hidden_gates, hx, 3, "hidden_gates", "hx")
    xp = namespace_of(input_gates)
    reset_update = xp.tanh((input_gates[..., :2 * h] + hidden_gates[..., :2 * h]) * 0.5)
    reset_update *= 0.5
    reset_update += 0.5
    n = xp.tanh(input_gates[..., 2 * h:] + reset_update[..., :h] * hidden_gates[..., 2 * h:])
    return n + reset_update[..., h:] * (hx - n)  # (1 - z) * n + z * h


def lstm_layer_array(inputs, reverse):
    """A whole LSTM layer in one direction: (output, cells, activations), each by time.

    ``inputs`` is [x_proj (L, N, 4H), h0 (N, H), c0 (N, H), w_hh (4H, H)], where x_proj
    holds every step's x W_ih^T + b_ih + b_hh.  ``activations`` are the gates i, f, g, o
    after their sigmoid / tanh, returned so that the backward redoes neither the
    matmuls nor the activations.
    """
    x_proj, h0, c0, w_hh = inputs
    if x_proj.ndim != 3 or h0.ndim != 2 or c0.shape != h0.shape or w_hh.ndim != 2 \
            or x_proj.shape[1:] != (h0.shape[0], w_hh.shape[0]) \
            or w_hh.shape != (4 * h0.shape[1], h0.shape[1]):
        raise RuntimeError(f"_lstm_layer: expected x_proj (L, N, 4H), h0 and c0 (N, H) and "
                           f"w_hh (4H, H), but got {tuple(x_proj.shape)}, {tuple(h0.shape)}, "
                           f"{tuple(c0.shape)} and {tuple(w_hh.shape)}")
    xp = namespace_of(x_proj)
    dtype = xp.result_type(x_proj, h0, c0, w_hh)
    w_t = xp.ascontiguousarray(w_hh.T, dtype=dtype)  # C order: each step's matmul is 2x faster
    activations = xp.empty(x_proj.shape, dtype=dtype)
    output = xp.empty((x_proj.shape[0],) + tuple(h0.shape), dtype=dtype)
    cells = xp.empty_like(output)
    gates, tmp = xp.empty(x_proj.shape[1:], dtype=dtype), xp.empty(h0.shape, dtype=dtype)
    rates = lstm_rates(gates, h0.shape[1])
    h, c = h0, c0
    for t in _time_steps(x_proj.shape[0], reverse):
        xp.matmul(h, w_t, out=gates)
        gates += x_proj[t]
        _lstm_step_into(gates, c, rates, activations[t], tmp, output[t], cells[t])
        h, c = output[t], cells[t]
    return output, cells, activations


def lstm_layer_backward_array(grad_output, grad_cells, grad_activations, inputs, output, cells,
                              activations, reverse):
    """[x_proj, h0, c0, w_hh] gradients of lstm_layer_array (numpy or CuPy, no graph).

    Back in time one step at a time, in place on (N, 4H) and (N, H) buffers that stay in
    cache (whole-sequence elementwise passes were slower: they stream from memory), then
    the hidden weight's gradient as one matmul over all steps."""
    x_proj, h0, c0, w_hh = inputs
    xp = namespace_of(activations)
    length, four_h = activations.shape[0], activations.shape[-1]
    dtype = activations.dtype
    grad_gates = xp.empty_like(activations)
    grad_h = xp.zeros(h0.shape, dtype=dtype)  # from the step after, through w_hh
    grad_c = xp.zeros(h0.shape, dtype=dtype)  # from the step after, through f
    scratch = _BackwardScratch(xp, activations.shape[1:], dtype)
    w = w_hh.astype(dtype, copy=False)
    for t in reversed(_time_steps(length, reverse)):
        before = t + (1 if reverse else -1)
        c_prev = cells[before] if 0 <= before < length else c0
        _lstm_step_backward_into(activations[t], c_prev, cells[t], grad_output[t],
                                 grad_cells[t], grad_activations[t], grad_h, grad_c, scratch,
                                 grad_gates[t])
        xp.matmul(grad_gates[t], w, out=grad_h)
    h_prev = _previous_in_time(output, h0, reverse)
    grad_w_hh = xp.matmul(grad_gates.reshape(-1, four_h).T, h_prev.reshape(-1, four_h // 4))
    return [grad_gates, grad_h, grad_c, grad_w_hh]


class _BackwardScratch:
    """The per-step buffers of the layer's backward, allocated once per call."""

    def __init__(self, xp, gate_shape, dtype):
        h = gate_shape[-1] // 4
        self.slope = xp.empty(gate_shape, dtype=dtype)
        self.grad_hy = xp.empty(gate_shape[:-1] + (h,), dtype=dtype)
        self.tanh_c = xp.empty_like(self.grad_hy)
        self.tmp = xp.empty_like(self.grad_hy)


def _lstm_step_backward_into(act, c_prev, c, grad_output, grad_cells, grad_act, grad_h,
                             grad_c, s, out):
    """One step of the layer's backward: ``out`` gets d gates (N, 4H), the pre-activation
    gradient; ``grad_c`` (the cell gradient from the step after) becomes the one for
    c_prev.  ``grad_h`` is the hidden gradient from the step after (d gates[t+1] @ w_hh)."""
    xp = namespace_of(act)
    h = c.shape[-1]
    i, f, g, o = (act[..., k * h:(k + 1) * h] for k in range(4))
    xp.add(grad_output, grad_h, out=s.grad_hy)
    xp.tanh(c, out=s.tanh_c)
    # d c = the cell gradients from after and from outside, and d hy * o * (1 - tanh(c)^2)
    xp.multiply(s.tanh_c, s.tanh_c, out=s.tmp)
    xp.subtract(1, s.tmp, out=s.tmp)
    s.tmp *= o
    s.tmp *= s.grad_hy
    grad_c += s.tmp
    grad_c += grad_cells
    # d act for i, f, g, o, then times d act / d gates: a(1 - a) for sigmoids, 1 - g^2
    for k, factor, grad in ((0, g, grad_c), (1, c_prev, grad_c), (2, i, grad_c),
                            (3, s.tanh_c, s.grad_hy)):
        xp.multiply(grad, factor, out=out[..., k * h:(k + 1) * h])
    out += grad_act
    xp.subtract(1, act, out=s.slope)
    s.slope *= act
    slope_g = s.slope[..., 2 * h:3 * h]
    xp.multiply(g, g, out=slope_g)
    xp.subtract(1, slope_g, out=slope_g)
    out *= s.slope
    grad_c *= f


def _previous_in_time(steps, first, reverse, out=None):
    """(L, ...) array of each step's predecessor in time: ``first``, then ``steps`` shifted."""
    if out is None:
        out = namespace_of(steps).empty(steps.shape, dtype=steps.dtype)
    if reverse:
        out[:-1], out[-1] = steps[1:], first
    else:
        out[1:], out[0] = steps[:-1], first
    return out


def _time_steps(length, reverse):
    return range(length - 1, -1, -1) if reverse else range(length)
