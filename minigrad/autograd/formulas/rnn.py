"""Formula helpers of the fused recurrent cells (see formulas/__init__.py for the rules).

The cells' formulas recompute the gate activations from the saved pre-activations (a
few elementwise ops over the whole gate array, cheaper than saving them); _lstm_layer
saves the activations themselves.  All compute with the ops of ``F``, so on Tensors the
gradient is itself differentiable.  Activations are the one-tanh form (kernels/rnn.py):
act = tanh(x * scale) * scale + shift, whose derivative is (1 - tanh^2) * scale^2, that
is a(1 - a) for a sigmoid gate and 1 - g^2 for the tanh gate g.
"""
from minigrad import _tensor  # a module: read at call time (import cycle)
from minigrad.autograd.formulas.core import ops_for
from minigrad.kernels.rnn import gate_scale_shift, lstm_layer_backward_array


def _gate(F, x, k, hidden_size):
    """The k-th (N, H) gate of the (N, chunks * H) array ``x``."""
    return F.narrow(x, -1, k * hidden_size, hidden_size)


def _lstm_activations(F, gates, hidden_size):
    """(act, slope): the gates after sigmoid / tanh, and d act / d gates."""
    scale, shift = gate_scale_shift(gates, hidden_size, 4, 2)
    t = F.tanh(gates * scale)
    return t * scale + shift, (1 - t * t) * (scale * scale)


def _activation_slope(F, act, hidden_size):
    """d act / d gates from the activations themselves: a(1 - a) for the sigmoid gates
    i, f, o, and 1 - g^2 for the tanh gate g."""
    i_f = F.narrow(act, -1, 0, 2 * hidden_size)
    g, o = _gate(F, act, 2, hidden_size), _gate(F, act, 3, hidden_size)
    return F.cat([i_f * (1 - i_f), 1 - g * g, o * (1 - o)], -1)


def _lstm_step_grads(F, grad_hy, grad_cy, grad_act, act, slope, cx, cy):
    """(d/d gates, d/d cx) of one LSTM step cy = f cx + i g, hy = o tanh(cy), from the
    activations ``act``, their ``slope`` d act / d gates and a gradient ``grad_act``
    reaching them from outside (or None)."""
    h = cx.shape[-1]
    i, f, g, o = (_gate(F, act, k, h) for k in range(4))
    tanh_cy = F.tanh(cy)
    grad_c = grad_cy + grad_hy * o * (1 - tanh_cy * tanh_cy)  # directly, and through hy
    total = F.cat([grad_c * g, grad_c * cx, grad_c * i, grad_hy * tanh_cy], -1)
    if grad_act is not None:
        total = total + grad_act
    return total * slope, grad_c * f


def lstm_cell_gates_grad(grad_hy, grad_cy, gates, cx, cy):
    """d(hy, cy)/d(gates) of cy = f cx + i g, hy = o tanh(cy): one (N, 4H) gradient."""
    F = ops_for(gates)
    act, slope = _lstm_activations(F, gates, cx.shape[-1])
    return _lstm_step_grads(F, grad_hy, grad_cy, None, act, slope, cx, cy)[0]


def lstm_cell_cx_grad(grad_hy, grad_cy, gates, cy):
    """d(hy, cy)/d(cx): the cell gradient times the forget gate."""
    F = ops_for(gates)
    h = cy.shape[-1]
    forget = F.tanh(_gate(F, gates, 1, h) * 0.5) * 0.5 + 0.5
    output = F.tanh(_gate(F, gates, 3, h) * 0.5) * 0.5 + 0.5
    tanh_cy = F.tanh(cy)
    return (grad_cy + grad_hy * output * (1 - tanh_cy * tanh_cy)) * forget


def _gru_parts(F, input_gates, hidden_gates, hx, grad):
    """r, and the pre-activation gradients of r and z, and of n as input_gates sees it."""
    h = hx.shape[-1]
    rz = F.tanh((_gate2(F, input_gates, h) + _gate2(F, hidden_gates, h)) * 0.5)
    r_z = rz * 0.5 + 0.5
    r, z = _gate(F, r_z, 0, h), _gate(F, r_z, 1, h)
    hn = _gate(F, hidden_gates, 2, h)
    n = F.tanh(_gate(F, input_gates, 2, h) + r * hn)
    grad_n = grad * (1 - z) * (1 - n * n)
    # d sigmoid(x)/dx = (1 - tanh(x/2)^2) / 4 for both r and z at once
    grad_rz = F.cat([grad_n * hn, grad * (hx - n)], -1) * (1 - rz * rz) * 0.25
    return r, grad_rz, grad_n


def _gate2(F, x, hidden_size):
    """The first two (N, H) gates of ``x`` together (GRU's r and z)."""
    return F.narrow(x, -1, 0, 2 * hidden_size)


def gru_cell_gates_grad(grad, input_gates, hidden_gates, hx, hidden):
    """d(hy)/d(input_gates), or d(hy)/d(hidden_gates) when ``hidden`` (n sees r * hn there)."""
    F = ops_for(input_gates)
    r, grad_rz, grad_n = _gru_parts(F, input_gates, hidden_gates, hx, grad)
    return F.cat([grad_rz, grad_n * r if hidden else grad_n], -1)


def gru_cell_hx_grad(grad, input_gates, hidden_gates):
    """d(hy)/d(hx) of hy = (1 - z) n + z hx, holding the gates: grad times z."""
    F = ops_for(input_gates)
    h = input_gates.shape[-1] // 3
    pre_z = _gate(F, input_gates, 1, h) + _gate(F, hidden_gates, 1, h)
    return grad * (F.tanh(pre_z * 0.5) * 0.5 + 0.5)


def lstm_layer_grads(grad_output, grad_cells, grad_activations, inputs, output, cells,
                     activations, reverse):
    """[x_proj, h0, c0, w_hh] gradients of _lstm_layer: the cell's backward step by step,
    back in time, then the hidden weight's gradient as one matmul over all steps."""
    if not isinstance(activations, _tensor.Tensor):  # a plain backward: the array kernel
        return lstm_layer_backward_array(grad_output, grad_cells, grad_activations, inputs,
                                         output, cells, activations, reverse)
    x_proj, h0, c0, w_hh = inputs
    F = ops_for(x_proj)
    length, hidden = x_proj.shape[0], w_hh.shape[1]
    before = 1 if reverse else -1  # the previous step is t + before
    grad_gates_by_step = [None] * length
    grad_h = grad_c = None
    for t in (range(length) if reverse else range(length - 1, -1, -1)):
        c_prev = c0 if not 0 <= t + before < length else cells[t + before]
        grad_hy = grad_output[t] if grad_h is None else grad_output[t] + grad_h
        grad_cy = grad_cells[t] if grad_c is None else grad_cells[t] + grad_c
        slope = _activation_slope(F, activations[t], hidden)
        step, grad_c = _lstm_step_grads(F, grad_hy, grad_cy, grad_activations[t],
                                        activations[t], slope, c_prev, cells[t])
        grad_h = F.matmul(step, w_hh)
        grad_gates_by_step[t] = step
    grad_x_proj = F.stack(grad_gates_by_step)
    h_prev = (F.cat([F.narrow(output, 0, 1, length - 1), F.unsqueeze(h0, 0)]) if reverse
              else F.cat([F.unsqueeze(h0, 0), F.narrow(output, 0, 0, length - 1)]))
    grad_w_hh = F.matmul(F.transpose(F.reshape(grad_x_proj, (-1, 4 * hidden)), 0, 1),
                         F.reshape(h_prev, (-1, hidden)))
    return [grad_x_proj, grad_h, grad_c, grad_w_hh]


def _lstm_step_jvp(F, act_t, cx_t, act, cx, cy):
    """Tangents (hy_t, cy_t) of cy = f cx + i g, hy = o tanh(cy), from the activations'
    tangent ``act_t`` and the cell's ``cx_t``."""
    h = cx.shape[-1]
    i, f, g, o = (_gate(F, act, k, h) for k in range(4))
    i_t, f_t, g_t, o_t = (_gate(F, act_t, k, h) for k in range(4))
    tanh_cy = F.tanh(cy)
    cy_t = f_t * cx + f * cx_t + i_t * g + i * g_t
    return o_t * tanh_cy + o * (1 - tanh_cy * tanh_cy) * cy_t, cy_t


def lstm_cell_jvp(gates_t, cx_t, gates, cx, cy):
    """Tangents (hy_t, cy_t) of cy = f cx + i g, hy = o tanh(cy), from gates_t and cx_t."""
    F = ops_for(gates)
    act, slope = _lstm_activations(F, gates, cx.shape[-1])
    return _lstm_step_jvp(F, gates_t * slope, cx_t, act, cx, cy)


def gru_cell_jvp(input_gates_t, hidden_gates_t, hx_t, input_gates, hidden_gates, hx):
    """Tangent of hy = (1 - z) n + z hx, n = tanh(i_n + r h_n), r and z sigmoids."""
    F = ops_for(input_gates)
    h = hx.shape[-1]
    rz = F.tanh((_gate2(F, input_gates, h) + _gate2(F, hidden_gates, h)) * 0.5)
    rz_t = (_gate2(F, input_gates_t, h) + _gate2(F, hidden_gates_t, h)) * ((1 - rz * rz) * 0.25)
    r_z = rz * 0.5 + 0.5
    r, z = _gate(F, r_z, 0, h), _gate(F, r_z, 1, h)
    r_t, z_t = _gate(F, rz_t, 0, h), _gate(F, rz_t, 1, h)
    hn, hn_t = _gate(F, hidden_gates, 2, h), _gate(F, hidden_gates_t, 2, h)
    n = F.tanh(_gate(F, input_gates, 2, h) + r * hn)
    n_t = (_gate(F, input_gates_t, 2, h) + r_t * hn + r * hn_t) * (1 - n * n)
    return (1 - z) * n_t + z_t * (hx - n) + z * hx_t


def lstm_layer_jvp(inputs_t, inputs, output, cells, activations, reverse):
    """Tangents (output_t, cells_t, activations_t) of _lstm_layer: the recurrence run on
    tangents.

    Time is indexed from the end (dim -3 of (L, N, .)) so that a batch of tangents in front
    (jacfwd) passes through unchanged.
    """
    x_proj_t, h0_t, c0_t, w_hh_t = inputs_t
    x_proj, h0, c0, w_hh = inputs
    F = ops_for(x_proj)
    length, hidden = x_proj.shape[0], w_hh.shape[1]
    before = 1 if reverse else -1
    h_t, c_t = h0_t, c0_t
    outs, cell_ts, act_ts = [None] * length, [None] * length, [None] * length
    for t in (range(length - 1, -1, -1) if reverse else range(length)):
        h_prev = h0 if not 0 <= t + before < length else output[t + before]
        c_prev = c0 if not 0 <= t + before < length else cells[t + before]
        step = [F.select(x_proj_t, -3, t) if x_proj_t is not None else None,
                F.matmul(h_t, F.transpose(w_hh, 0, 1)) if h_t is not None else None,
                F.matmul(h_prev, F.transpose(w_hh_t, -2, -1)) if w_hh_t is not None else None]
        gates_t = sum(term for term in step if term is not None)
        if c_t is None:
            c_t = F.zeros_like(c_prev)
        act_t = gates_t * _activation_slope(F, activations[t], hidden)
        h_t, c_t = _lstm_step_jvp(F, act_t, c_t, activations[t], c_prev, cells[t])
        outs[t], cell_ts[t], act_ts[t] = h_t, c_t, act_t
    return F.stack(outs, -3), F.stack(cell_ts, -3), F.stack(act_ts, -3)
