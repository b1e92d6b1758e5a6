"""Every layer: weights copied from torch (state_dict round trip), then outputs,
input gradients and parameter gradients compared in float64."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from tests.unit.nn._torch_pair import compare

torch = pytest.importorskip("torch")

R = np.random.default_rng(1)


def x(*shape):
    return R.standard_normal(shape)


def ints(high, *shape):
    return R.integers(0, high, shape)


# (name, constructor args, kwargs, inputs); the class has the same name in both libraries
CASES = [
    ("Linear", (5, 3), {}, [x(4, 5)]),
    ("Linear", (5, 3), {"bias": False}, [x(2, 4, 5)]),
    ("Bilinear", (3, 4, 2), {}, [x(5, 3), x(5, 4)]),
    ("Identity", (), {}, [x(3, 2)]),
    ("Flatten", (), {}, [x(2, 3, 4)]),
    ("Unflatten", (1, (2, 3)), {}, [x(4, 6)]),
    ("Conv1d", (3, 4, 3), {"padding": 1, "stride": 2}, [x(2, 3, 9)]),
    ("Conv2d", (3, 4, 3), {"padding": 1}, [x(2, 3, 6, 6)]),
    ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "groups": 2, "dilation": 1}, [x(2, 4, 7, 7)]),
    ("Conv2d", (2, 3, 3), {"padding": "same", "bias": False}, [x(1, 2, 5, 5)]),
    ("Conv2d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, [x(1, 2, 5, 5)]),
    ("ConvTranspose2d", (3, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1},
     [x(2, 3, 4, 4)]),
    ("MaxPool1d", (2,), {}, [x(2, 3, 8)]),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [x(2, 3, 7, 7)]),
    ("AvgPool1d", (3,), {"stride": 2}, [x(2, 3, 9)]),
    ("AvgPool2d", (2,), {}, [x(2, 3, 6, 6)]),
    ("AdaptiveAvgPool1d", (3,), {}, [x(2, 3, 8)]),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, [x(2, 3, 7, 8)]),
    ("BatchNorm1d", (4,), {}, [x(6, 4)]),
    ("BatchNorm1d", (4,), {"affine": False}, [x(6, 4, 3)]),
    ("BatchNorm2d", (3,), {"momentum": None}, [x(4, 3, 5, 5)]),
    ("LayerNorm", ((3, 4),), {}, [x(2, 3, 4)]),
    ("GroupNorm", (2, 4), {}, [x(3, 4, 5)]),
    ("RMSNorm", (4,), {"eps": 1e-6}, [x(3, 4)]),
    ("Embedding", (10, 3), {"padding_idx": 0}, [ints(10, 4, 5)]),
    ("RNN", (3, 5), {"num_layers": 2}, [x(4, 2, 3)]),
    ("RNN", (3, 5), {"nonlinearity": "relu", "batch_first": True}, [x(2, 4, 3)]),
    ("LSTM", (3, 5), {"num_layers": 2, "bidirectional": True}, [x(4, 2, 3)]),
    ("LSTM", (3, 5), {"batch_first": True}, [x(2, 4, 3)]),
    ("LSTM", (3, 5), {}, [x(4, 3)]),
    ("GRU", (3, 5), {"num_layers": 2, "bidirectional": True, "batch_first": True},
     [x(2, 4, 3)]),
    ("RNNCell", (3, 5), {}, [x(2, 3), x(2, 5)]),
    ("LSTMCell", (3, 5), {}, [x(2, 3)]),
    ("GRUCell", (3, 5), {"bias": False}, [x(2, 3), x(2, 5)]),
    ("MultiheadAttention", (8, 2), {}, [x(4, 3, 8), x(5, 3, 8), x(5, 3, 8)]),
    ("MultiheadAttention", (8, 4), {"batch_first": True, "kdim": 6, "vdim": 5},
     [x(3, 4, 8), x(3, 5, 6), x(3, 5, 5)]),
    ("PReLU", (3,), {}, [x(2, 3, 4)]),
]

ACTIVATIONS = [
    ("ReLU", ()), ("ReLU6", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.5,)), ("CELU", (2.0,)),
    ("SELU", ()), ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()),
    ("Softplus", (2.0, 5.0)), ("Hardtanh", (-0.5, 0.7)), ("Hardsigmoid", ()),
    ("Hardswish", ()), ("Sigmoid", ()), ("Tanh", ()), ("Softsign", ()), ("Tanhshrink", ()),
    ("LogSigmoid", ()), ("Threshold", (0.1, 20.0)), ("GLU", (1,)), ("Softmax", (1,)),
    ("LogSoftmax", (-1,)), ("Softmin", (0,)),
]
CASES += [(name, args, {}, [x(3, 4) * 3]) for name, args in ACTIVATIONS]


@pytest.mark.parametrize("name,args,kwargs,inputs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_layer_matches_torch(name, args, kwargs, inputs):
    torch.manual_seed(0)
    t_module = getattr(torch.nn, name)(*args, **kwargs).double()
    mg_module = getattr(nn, name)(*args, **kwargs).double()
    assert repr(mg_module) == repr(t_module)
    assert [n for n, _ in mg_module.named_parameters()] == \
        [n for n, _ in t_module.named_parameters()]
    assert list(mg_module.state_dict()) == list(t_module.state_dict())
    compare(mg_module, t_module, inputs)
    if name.startswith("BatchNorm"):  # running statistics follow torch's, then eval mode
        for key, value in t_module.state_dict().items():
            np.testing.assert_allclose(mg_module.state_dict()[key].numpy(), value.numpy(),
                                       rtol=1e-7, atol=1e-9)
        compare(mg_module.eval(), t_module.eval(), inputs)


def test_dropout_modes():
    drop = nn.Dropout(0.5)
    assert repr(drop) == repr(torch.nn.Dropout(0.5))
    inp = mg.ones(1000)
    out = drop(inp)
    assert set(np.unique(out.numpy())) <= {0.0, 2.0}
    assert drop.eval()(inp) is inp or np.array_equal(drop(inp).numpy(), inp.numpy())
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(1.5)


def test_mha_masks_match_torch():
    torch.manual_seed(0)
    t_mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).double()
    mg_mha = nn.MultiheadAttention(8, 2, batch_first=True).double()
    q = x(2, 4, 8)
    causal = np.triu(np.ones((4, 4), dtype=bool), 1)
    padding = np.array([[False] * 4, [False, False, True, True]])

    class Masked(torch.nn.Module):
        def __init__(self, inner, lib):
            super().__init__()
            self.inner, self.lib = inner, lib

        def forward(self, q):
            return self.inner(q, q, q, attn_mask=self.lib.tensor(causal),
                              key_padding_mask=self.lib.tensor(padding),
                              average_attn_weights=False)

    class MgMasked(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, q):
            return self.inner(q, q, q, attn_mask=mg.tensor(causal),
                              key_padding_mask=mg.tensor(padding), average_attn_weights=False)

    compare(MgMasked(mg_mha), Masked(t_mha, torch), [q])


def test_default_initialisation_statistics():
    # torch's defaults: Linear weight ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), bias the same
    lin = nn.Linear(400, 300)
    bound = 1 / 20
    assert lin.weight.dtype == mg.float32
    w = lin.weight.detach().numpy()
    assert w.min() >= -bound and w.max() <= bound and w.std() > bound / 2
    assert abs(lin.bias.detach().numpy()).max() <= bound
    emb = nn.Embedding(100, 50, padding_idx=3)
    assert np.all(emb.weight.detach().numpy()[3] == 0)
    assert 0.9 < emb.weight.detach().numpy().std() < 1.1


def _mask_cases(lib):
    batched, unbatched, B = lib.zeros(3, 5, 8), lib.zeros(5, 8), lib.bool
    return [(batched, {"key_padding_mask": lib.zeros(3, 4, dtype=B)}),
            (batched, {"key_padding_mask": lib.zeros(5, dtype=B)}),
            (batched, {"key_padding_mask": lib.zeros(2, 5, dtype=B)}),
            (unbatched, {"key_padding_mask": lib.zeros(1, 5, dtype=B)}),
            (batched, {"attn_mask": lib.zeros(3, 5, 5)}),  # per sample, not per head
            (batched, {"attn_mask": lib.zeros(1, 5, 5)}),  # would broadcast
            (unbatched, {"attn_mask": lib.zeros(1, 5, 5)}),
            (batched, {"attn_mask": lib.zeros(1, 1, 5, 5)}),
            (batched, {"attn_mask": lib.zeros(4, 5)})]


@pytest.mark.parametrize("case", range(len(_mask_cases(mg))))
def test_multihead_attention_refuses_masks_of_the_wrong_shape_as_torch(case):
    results = []
    for lib in (torch, mg):
        query, masks = _mask_cases(lib)[case]
        mha = lib.nn.MultiheadAttention(8, 2, batch_first=True)
        with pytest.raises(Exception) as error:
            mha(query, query, query, **masks)
        results.append(error)
    theirs, ours = results
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value).replace("torch.Size", "minigrad.Size")
