"""Every activation of nn.functional as a module, and MultiheadAttention.

>>> nn.ReLU()(_ops.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
import numpy as np

from minigrad.nn import _ops
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.parameter import Parameter
from minigrad.nn.modules.module import Module
from minigrad.nn.modules.linear import Linear


def _inplace_repr(inplace, prefix=""):
    return (prefix + "inplace=True") if inplace else ""


class _Inplace(Module):
    """An activation with only an ``inplace`` flag."""

    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class _Plain(Module):
    """An activation without arguments."""

    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class ReLU(_Inplace):
    """max(0, x)."""
    _fn = staticmethod(F.relu)


class SELU(_Inplace):
    """scale * elu(x, alpha) with the self-normalising constants."""
    _fn = staticmethod(F.selu)


class SiLU(_Inplace):
    """x * sigmoid(x)."""
    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(F.mish)


class Hardswish(_Inplace):
    """x * relu6(x + 3) / 6."""
    _fn = staticmethod(F.hardswish)


class Hardsigmoid(_Inplace):
    """relu6(x + 3) / 6."""
    _fn = staticmethod(F.hardsigmoid)


class Sigmoid(_Plain):
    """1 / (1 + exp(-x))."""
    _fn = staticmethod(F.sigmoid)


class Tanh(_Plain):
    """tanh(x)."""
    _fn = staticmethod(F.tanh)


class Softsign(_Plain):
    """x / (1 + |x|)."""
    _fn = staticmethod(F.softsign)


class Tanhshrink(_Plain):
    """x - tanh(x)."""
    _fn = staticmethod(F.tanhshrink)


class LogSigmoid(_Plain):
    """log(sigmoid(x))."""
    _fn = staticmethod(F.logsigmoid)


class Hardtanh(Module):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError("max_val must be greater than min_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + \
            _inplace_repr(self.inplace, ", ")


class ReLU6(Hardtanh):
    """min(max(0, x), 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """max(0, x) + negative_slope * min(0, x)."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + _inplace_repr(self.inplace, ", ")


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    _fn = staticmethod(F.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_repr(self.inplace, ", ")


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _fn = staticmethod(F.celu)


class GELU(Module):
    """x * Phi(x); ``approximate='tanh'`` uses the tanh formula."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Threshold(Module):
    """x if x > threshold else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + \
            _inplace_repr(self.inplace, ", ")


class GLU(Module):
    """a * sigmoid(b) where a, b are the halves of the input along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PReLU(Module):
    """max(0, x) + a * min(0, x) with a learnt slope (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_ops.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softmax(Module):
    """exp(x) / sum(exp(x)) along ``dim``."""

    _fn = staticmethod(F.softmax)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """log(softmax(x)) along ``dim``."""
    _fn = staticmethod(F.log_softmax)


class Softmin(Softmax):
    """softmax(-x) along ``dim``."""
    _fn = staticmethod(F.softmin)


class NonDynamicallyQuantizableLinear(Linear):
    """Linear under the name torch gives MultiheadAttention's out_proj (repr, pickles)."""


def _additive_mask(mask, dtype):
    """A float mask to add to attention scores: a bool mask's True becomes -inf."""
    if mask is None:
        return None
    if mask.dtype == _ops.bool:   # (Tensor ops: minigrad.compile records them)
        return _ops.zeros_like(mask, dtype=dtype).masked_fill(mask, -np.inf)
    return mask


def _check_mask_dims(query, key, key_padding_mask, attn_mask, num_heads):
    """PyTorch's checks of the masks' ranks against the query's (before any reshaping)."""
    if query.dim() == 3:
        kinds, padding_dims = "batched (3-D)", (2,)
    else:
        kinds, padding_dims = "unbatched (2-D)", (1,)
    if key_padding_mask is not None and key_padding_mask.dim() not in padding_dims:
        raise AssertionError(f"For {kinds} `query`, expected `key_padding_mask` to be `None` "
                             f"or {padding_dims[0]}-D but found {key_padding_mask.dim()}-D "
                             "tensor instead")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(f"For {kinds} `query`, expected `attn_mask` to be `None`, 2-D or "
                             f"3-D but found {attn_mask.dim()}-D tensor instead")
    if query.dim() == 2 and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")


def _check_mask_shapes(attn_mask, key_padding_mask, N, H, L, S):
    """PyTorch's shape checks: a mask that merely broadcasts (one (N, L, S) mask for the
    (N * num_heads, L, S) scores) is a mistake it refuses."""
    if key_padding_mask is not None:
        for i, size in enumerate((N, S)):
            if key_padding_mask.shape[i] != size:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {size}, but "
                                     f"got {key_padding_mask.shape[i]}")
    if attn_mask is not None:
        expected = (L, S) if attn_mask.dim() == 2 else (N * H, L, S)
        if tuple(attn_mask.shape) != expected:
            raise RuntimeError(f"The shape of the {attn_mask.dim()}D attn_mask is "
                               f"{attn_mask.shape}, but should be {expected}.")


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads over (L, N, E) input (``batch_first``:
    (N, L, E)); returns ``(output, weights averaged over heads or None)``.

    >>> mha = nn.MultiheadAttention(16, 4, batch_first=True)
    >>> out, w = mha(x, x, x)                        # doctest: +SKIP
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention(add_bias_kv=True / add_zero_attn="
                                      "True) is not supported by minigrad")
        super().__init__()
        factory = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_ops.empty(3 * embed_dim, embed_dim, **factory))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_ops.empty(embed_dim, embed_dim, **factory))
            self.k_proj_weight = Parameter(_ops.empty(embed_dim, self.kdim, **factory))
            self.v_proj_weight = Parameter(_ops.empty(embed_dim, self.vdim, **factory))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_ops.empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def _projections(self, query, key, value):
        E = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            wq, wk, wv = w[:E], w[E:2 * E], w[2 * E:]
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        _check_mask_dims(query, key, key_padding_mask, attn_mask, self.num_heads)
        unbatched = query.dim() == 2
        if unbatched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        L, N, E = query.shape
        S = key.shape[0]
        H, hd = self.num_heads, self.head_dim
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                               "the Transformer module method `generate_square_subsequent_mask`"
                               " to create this mask.")
        _check_mask_shapes(attn_mask, key_padding_mask, N, H, L, S)
        q, k, v = self._projections(query, key, value)
        # (L, N, E) -> (N*H, L, hd), heads of one sample adjacent, as torch
        q = q.reshape(L, N * H, hd).transpose(0, 1)
        k = k.reshape(S, N * H, hd).transpose(0, 1)
        v = v.reshape(S, N * H, hd).transpose(0, 1)
        mask = _additive_mask(attn_mask, q._data.dtype)
        if mask is not None and mask.dim() == 2:
            mask = mask.unsqueeze(0)
        if key_padding_mask is not None:
            kpm = _additive_mask(key_padding_mask, q._data.dtype)
            kpm = kpm.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
            mask = kpm if mask is None else mask + kpm
        scores = _ops.bmm(q * (1.0 / hd) ** 0.5, k.transpose(1, 2))
        if mask is not None:
            scores = scores + mask
        weights = F.softmax(scores, dim=-1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, p=self.dropout)
        out = _ops.bmm(weights, v)  # (N*H, L, hd)
        out = out.transpose(0, 1).reshape(L * N, E)
        out = self.out_proj(out).reshape(L, N, E)
        if unbatched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        weights = weights.reshape(N, H, L, S)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if unbatched:
            weights = weights.squeeze(0)
        return out, weights
