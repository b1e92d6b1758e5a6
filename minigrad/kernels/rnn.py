"""Array kernels of the fused recurrent cells: the elementwise part of one LSTM or GRU step.

The matmuls of a step stay separate ops (linear, addmm), so one matmul can project every
time step's input at once; these kernels do the rest of the step in one node instead
of a dozen (sigmoid, tanh, mul, add, chunk).  Gates are in torch's order: LSTM i, f, g, o;
GRU r, z, n.

Every gate activation is one tanh: sigmoid(x) = 0.5 * tanh(x / 2) + 0.5.  That makes the
four LSTM gates one ``tanh(gates * scale) * scale + shift`` over the whole (N, 4H) array
(scale 1/2 and shift 1/2 on the sigmoid gates, 1 and 0 on g): a few numpy calls per step
instead of a few per gate, and no exp overflow.  The formulas recompute it the same way.
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


def _check_gates(op, gates, state, chunks, gates_name, state_name):
    h = state.shape[-1] if state.ndim else 0
    if state.ndim not in (1, 2) or gates.shape[:-1] != state.shape[:-1] \
            or gates.shape[-1] != chunks * h:
        raise RuntimeError(f"{op}: expected {gates_name} of shape (N, {chunks} * hidden_size) "
                           f"and {state_name} of shape (N, hidden_size) (or both without N), "
                           f"but got {tuple(gates.shape)} and {tuple(state.shape)}")
    return h


def lstm_cell_array(gates, cx):
    """(hy, cy) of one LSTM step from its pre-activation ``gates`` (N, 4H) and cell ``cx``."""
    h = _check_gates("_lstm_cell", gates, cx, 4, "gates", "cx")
    xp = namespace_of(gates)
    scale, shift = gate_scale_shift(gates, h, 4, 2)
    act = xp.tanh(gates * scale)
    act *= scale
    act += shift
    i, f, g, o = (act[..., k * h:(k + 1) * h] for k in range(4))
    cy = f * cx + i * g
    return o * xp.tanh(cy), cy


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
    """A whole LSTM layer in one direction: (output, cells, gates), each indexed by time.

    ``inputs`` is [x_proj (L, N, 4H), h0 (N, H), c0 (N, H), w_hh (4H, H)], where x_proj
    holds every step's x W_ih^T + b_ih + b_hh.  ``gates`` are the pre-activations
    x_proj[t] + h[t-1] W_hh^T, returned so that the backward does not redo the matmuls.
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
    gates = xp.empty(x_proj.shape, dtype=dtype)
    output = xp.empty((x_proj.shape[0],) + tuple(h0.shape), dtype=dtype)
    cells = xp.empty_like(output)
    h, c = h0, c0
    for t in _time_steps(x_proj.shape[0], reverse):
        xp.matmul(h, w_t, out=gates[t])
        gates[t] += x_proj[t]
        h, c = lstm_cell_array(gates[t], c)
        output[t], cells[t] = h, c
    return output, cells, gates


def _time_steps(length, reverse):
    return range(length - 1, -1, -1) if reverse else range(length)
