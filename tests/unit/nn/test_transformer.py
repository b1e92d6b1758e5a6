"""Transformer layers against torch from the same weights (float64): outputs, input and
parameter gradients, reprs and parameter names; the eval fast path's zeros at padded
positions; PyTorch's warning and error texts."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from tests.unit.nn._torch_pair import compare, load_from_torch

torch = pytest.importorskip("torch")

R = np.random.default_rng(2)


def x(*shape):
    return R.standard_normal(shape)


def pair(name, *args, **kwargs):
    """The same layer built by both libraries (dropout 0, float64)."""
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_module = getattr(torch.nn, name)(*args, dropout=0.0, **kwargs).double()
        mg_module = getattr(nn, name)(*args, dropout=0.0, **kwargs).double()
    assert repr(mg_module) == repr(t_module)
    assert [n for n, _ in mg_module.named_parameters()] == \
        [n for n, _ in t_module.named_parameters()]
    return mg_module, t_module


CASES = [
    ("TransformerEncoderLayer", (8, 2, 16), {}, [x(5, 3, 8)]),
    ("TransformerEncoderLayer", (8, 2, 16), {"activation": "gelu", "norm_first": True,
                                             "batch_first": True}, [x(3, 5, 8)]),
    ("TransformerEncoderLayer", (8, 4, 16), {"bias": False}, [x(5, 8)]),  # unbatched
    ("TransformerDecoderLayer", (8, 2, 16), {}, [x(4, 3, 8), x(6, 3, 8)]),
    ("TransformerDecoderLayer", (8, 2, 16), {"norm_first": True, "batch_first": True},
     [x(3, 4, 8), x(3, 6, 8)]),
    ("Transformer", (), {"d_model": 8, "nhead": 2, "num_encoder_layers": 2,
                         "num_decoder_layers": 1, "dim_feedforward": 16},
     [x(6, 3, 8), x(4, 3, 8)]),
    ("Transformer", (), {"d_model": 8, "nhead": 2, "num_encoder_layers": 1,
                         "num_decoder_layers": 1, "dim_feedforward": 16}, [x(6, 8), x(4, 8)]),
]


@pytest.mark.parametrize("name,args,kwargs,inputs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_layer_matches_torch(name, args, kwargs, inputs):
    mg_module, t_module = pair(name, *args, **kwargs)
    compare(mg_module, t_module, inputs)


def _encoders(batch_first=True, nhead=2, **kwargs):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_enc = torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(8, nhead, 16, 0.0, batch_first=batch_first), 2,
            norm=torch.nn.LayerNorm(8), **kwargs).double()
        mg_enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, nhead, 16, 0.0, batch_first=batch_first), 2,
            norm=nn.LayerNorm(8), **kwargs).double()
    return load_from_torch(mg_enc, t_enc), t_enc


@pytest.mark.parametrize("padding", [
    [[False] * 5, [False] * 3 + [True] * 2],    # left aligned: torch's nested fast path
    [[False] * 5, [True] + [False] * 4],        # not left aligned: the ordinary path
])
@pytest.mark.parametrize("as_float", [False, True])
def test_encoder_eval_padding_matches_torch(padding, as_float):
    mg_enc, t_enc = _encoders()
    mg_enc.eval(), t_enc.eval()
    src = x(2, 5, 8)
    pad = np.array(padding)
    if as_float:
        pad = np.where(pad, -np.inf, 0.0)
    with torch.no_grad(), mg.no_grad():
        expected = t_enc(torch.tensor(src), src_key_padding_mask=torch.tensor(pad))
        actual = mg_enc(mg.tensor(src), src_key_padding_mask=mg.tensor(pad))
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-7, atol=1e-9)


def test_encoder_causal_mask_and_hint_match_torch():
    mg_enc, t_enc = _encoders(batch_first=False, enable_nested_tensor=False)
    src = x(5, 2, 8)
    for is_causal in (None, True):
        expected = t_enc(torch.tensor(src), mask=torch.nn.Transformer.
                         generate_square_subsequent_mask(5, dtype=torch.float64),
                         is_causal=is_causal)
        actual = mg_enc(mg.tensor(src), mask=nn.Transformer.generate_square_subsequent_mask(
            5, dtype=mg.float64), is_causal=is_causal)
        np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("layer_kwargs", [{}, {"batch_first": True, "norm_first": True},
                                          {"batch_first": True, "activation": mg.tanh}])
def test_nested_tensor_warning_is_torchs(layer_kwargs):
    t_kwargs = {k: (torch.tanh if v is mg.tanh else v) for k, v in layer_kwargs.items()}
    with pytest.warns(UserWarning) as t_record:
        torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, **t_kwargs), 1)
    with pytest.warns(UserWarning) as mg_record:
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, **layer_kwargs), 1)
    assert [str(w.message) for w in mg_record] == [str(w.message) for w in t_record]


def test_errors_are_torchs():
    with pytest.raises(RuntimeError, match="^activation should be relu/gelu, not elu$"):
        nn.TransformerEncoderLayer(8, 2, activation="elu")
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16)
    with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal$"):
        model(mg.randn(4, 2, 8), mg.randn(3, 1, 8))
    with pytest.raises(RuntimeError, match="^the feature number of src and tgt must be equal "
                                           "to d_model$"):
        model(mg.randn(4, 2, 8), mg.randn(3, 2, 6))


def test_generate_square_subsequent_mask_is_torchs():
    expected = torch.nn.Transformer.generate_square_subsequent_mask(4)
    actual = nn.Transformer.generate_square_subsequent_mask(4)
    assert actual.dtype == mg.float32
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())
