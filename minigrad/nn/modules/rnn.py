"""RNN, LSTM, GRU and their cells, with torch's parameter names and gate layout
(LSTM: i, f, g, o; GRU: r, z, n), so state dicts load either way.

>>> lstm = nn.LSTM(10, 20, num_layers=2)
>>> out, (h, c) = lstm(minigrad.randn(5, 3, 10))
>>> out.shape, h.shape
((5, 3, 20), (2, 3, 20))
"""
import math

from minigrad.nn import _ops
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.parameter import Parameter
from minigrad.nn.modules.module import Module
from minigrad.nn.utils.rnn import (PackedSequence, invert_permutation, pack_padded_sequence,
                                   pad_packed_sequence, pad_sequence)

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
# modes whose hidden bias can join the input bias: added once to every step's input
# projection instead of once per step (GRU's b_hn sits inside r * (W_hn h + b_hn))
_FOLDS_HIDDEN_BIAS = {"RNN_TANH", "RNN_RELU", "LSTM"}

# nn.LSTM runs a whole layer as one node (_lstm_layer in derivatives.yaml).  RNN, GRU and
# the cells go step by step: a step takes the input projection x W_ih^T + b_ih (+ b_hh
# where folded), the state, the transposed hidden weight W_hh^T (in layers a C-ordered
# copy: its matmul is 2x faster than through a transposed view) and b_hh (None where
# folded).  One addmm per step, then the fused cell (_lstm_cell, _gru_cell).


def _rnn_step(nonlinearity):
    act = _ops.tanh if nonlinearity == "tanh" else F.relu

    def step(x_proj, h, w_hh_t, b_hh):
        return act(_ops.addmm(x_proj, h, w_hh_t))
    return step


def _lstm_step(x_proj, state, w_hh_t, b_hh):
    h, c = state
    return _ops._lstm_cell(_ops.addmm(x_proj, h, w_hh_t), c)


def _gru_step(x_proj, h, w_hh_t, b_hh):
    hidden = _ops.matmul(h, w_hh_t) if b_hh is None else _ops.addmm(b_hh, h, w_hh_t)
    return _ops._gru_cell(x_proj, hidden, h)


def _input_projection(mode, x, w_ih, b_ih, b_hh):
    """x W_ih^T + b_ih, with b_hh added where the mode folds it: (x_proj, b_hh left over).

    A (L, N, in) input is projected as one (L*N, in) matrix: one large matmul forward and
    backward instead of L small ones."""
    if mode in _FOLDS_HIDDEN_BIAS and b_hh is not None:
        b_ih, b_hh = b_ih + b_hh, None
    rows = x.reshape(-1, x.shape[-1]) if x.dim() > 2 else x
    return F.linear(rows, w_ih, b_ih).reshape(*x.shape[:-1], w_ih.shape[0]), b_hh


class RNNBase(Module):
    """Shared by RNN, LSTM and GRU: parameters ``weight_ih_l{k}[_reverse]`` etc."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size != 0:
            raise NotImplementedError("LSTM(proj_size>0) is not supported by minigrad")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        factory = dict(device=device, dtype=dtype)
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_ops.empty(*shape, **factory)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names
                 if n.endswith(f"_l{layer}{sfx}")]
                for layer in range(self.num_layers)
                for sfx in ([""] + (["_reverse"] if self.bidirectional else []))]

    def flatten_parameters(self):
        """Nothing to do without cuDNN (kept so scripts that call it run)."""
        return None

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _layer_params(self, layer, suffix):
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    def _run_direction(self, step, x, state, layer, reverse):
        """One layer in one direction over x (L, N, in): returns outputs (L, N, H), state."""
        w_ih, w_hh, b_ih, b_hh = self._layer_params(layer, "_reverse" if reverse else "")
        # every time step's input part in one matmul; unbind (one node) rather than
        # x_proj[t], whose 35 backward passes would each add a full-size gradient
        x_proj, b_hh = _input_projection(self.mode, x, w_ih, b_ih, b_hh)
        if self.mode == "LSTM":  # the whole layer is one node (derivatives.yaml _lstm_layer)
            output, cells, _ = _ops._lstm_layer([x_proj, state[0], state[1], w_hh], reverse)
            last = 0 if reverse else -1
            return output, (output[last], cells[last])
        x_proj = x_proj.unbind(0)
        w_hh_t = w_hh.t().contiguous()
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outputs = [None] * x.shape[0]
        for t in steps:
            state = step(x_proj[t], state, w_hh_t, b_hh)
            outputs[t] = state[0] if isinstance(state, tuple) else state
        return _ops.stack(outputs), state

    def _check_input(self, input):
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:  # torch's check: else the matmuls' less helpful error
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _check_hidden(self, hx, expected, name="hidden"):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(f"Expected {name} size {tuple(expected)}, got {list(hx.shape)}")

    def _forward(self, input, hx, step, is_lstm):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, step, is_lstm)
        self._check_input(input)
        unbatched = input.dim() == 2
        if unbatched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if is_lstm else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        hx = self._initial_state(hx, input.shape[1], input, is_lstm)
        x, hidden = self._run_layers(input, hx, step, is_lstm)
        if unbatched:
            x = x.squeeze(1)
            hidden = tuple(h.squeeze(1) for h in hidden) if is_lstm else hidden.squeeze(1)
        elif self.batch_first:
            x = x.transpose(0, 1)
        return x, hidden

    def _initial_state(self, hx, batch, like, is_lstm):
        """``hx``, checked, or zeros of ``like``'s dtype and device: (num_layers * directions, batch, hidden)."""
        D = 2 if self.bidirectional else 1
        shape = (self.num_layers * D, batch, self.hidden_size)
        if hx is None:
            zeros = _ops.zeros(*shape, dtype=like.dtype, device=like.device)
            hx = (zeros, zeros) if is_lstm else zeros
        for i, h in enumerate(hx if is_lstm else (hx,)):
            self._check_hidden(h, shape, f"hidden[{i}]" if is_lstm else "hidden")
        return hx

    def _forward_packed(self, input, hx, step, is_lstm):
        """A PackedSequence: the sequences of each length run as one batch of
        ``_run_layers``, so each stops at its own last step, as in torch; the output is
        packed like the input, and h_n is in the batch's original order (as hx is)."""
        self._check_input(input.data)
        padded, lengths = pad_packed_sequence(input)
        lengths = lengths.tolist()
        hx = self._initial_state(hx, len(lengths), padded, is_lstm)
        outputs, hiddens, members = [], [], []
        for length in sorted(set(lengths), reverse=True):
            group = [b for b, n in enumerate(lengths) if n == length]
            group_hx = tuple(h[:, group] for h in hx) if is_lstm else hx[:, group]
            out, hidden = self._run_layers(padded[:length, group], group_hx, step, is_lstm)
            outputs.append(out.transpose(0, 1))  # (batch, time, features): one row per member
            hiddens.append(hidden)
            members.extend(group)
        # restore the batch's order: padded output (T, B, features), then pack it as the input
        back = invert_permutation(members).numpy()
        rows = [o[i] for o in outputs for i in range(o.shape[0])]
        padded_out = pad_sequence([rows[i] for i in back])
        packed = pack_padded_sequence(padded_out, lengths, enforce_sorted=False)
        packed = PackedSequence(packed.data, packed.batch_sizes, input.sorted_indices,
                                input.unsorted_indices)
        if is_lstm:
            hidden = tuple(_ops.cat([h[k] for h in hiddens], dim=1)[:, back] for k in range(2))
        else:
            hidden = _ops.cat(hiddens, dim=1)[:, back]
        return packed, hidden

    def _run_layers(self, input, hx, step, is_lstm):
        """Every layer and direction over ``input`` (L, N, in) from ``hx``: (output, h_n)."""
        D = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        x = input
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                k = layer * D + d
                state = (hx[0][k], hx[1][k]) if is_lstm else hx[k]
                out, state = self._run_direction(step, x, state, layer, d == 1)
                outs.append(out)
                if is_lstm:
                    h_n.append(state[0])
                    c_n.append(state[1])
                else:
                    h_n.append(state)
            x = outs[0] if D == 1 else _ops.cat(outs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        hidden = (_ops.stack(h_n), _ops.stack(c_n)) if is_lstm else _ops.stack(h_n)
        return x, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._forward(input, hx, _rnn_step(self.nonlinearity), False)


class LSTM(RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        return self._forward(input, hx, _lstm_step, True)


class GRU(RNNBase):
    """Gated recurrent unit; returns ``output, h_n``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)

    def forward(self, input, hx=None):
        return self._forward(input, hx, _gru_step, False)


class RNNCellBase(Module):
    """Shared by the cells: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        factory = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(_ops.empty(num_chunks * hidden_size, input_size,
                                                  **factory))
        self.weight_hh = Parameter(_ops.empty(num_chunks * hidden_size, hidden_size,
                                                  **factory))
        if bias:
            self.bias_ih = Parameter(_ops.empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(_ops.empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _prepare(self, input, hx, n_states):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _ops.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
            hx = (zeros,) * n_states
        else:
            hx = hx if isinstance(hx, tuple) else (hx,)
            if not batched:
                hx = tuple(h.unsqueeze(0) for h in hx)
        return input, hx, batched

    def _step(self, step, mode, input, hx):
        x_proj, b_hh = _input_projection(mode, input, self.weight_ih, self.bias_ih,
                                         self.bias_hh)
        return step(x_proj, hx, self.weight_hh.t(), b_hh)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h = self._step(_rnn_step(self.nonlinearity), mode, input, h)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, 2)
        h, c = self._step(_lstm_step, "LSTM", input, hx)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        h = self._step(_gru_step, "GRU", input, h)
        return h if batched else h.squeeze(0)
