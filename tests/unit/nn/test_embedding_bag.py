"""F.embedding_bag and nn.EmbeddingBag against torch (float64): every mode with offsets,
include_last_offset, 2-D input, padding_idx, per_sample_weights, empty bags;
outputs and gradients (weight and per_sample_weights); reprs; PyTorch's errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional

R = np.random.default_rng(4)
INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 4])

CASES = [
    dict(offsets=[0, 4]),
    dict(offsets=[0, 3, 3, 7]),                       # an empty bag
    dict(offsets=[0, 3, 7, 10], include_last_offset=True),
    dict(offsets=[0, 5], padding_idx=4),
    dict(offsets=[0, 2, 6], padding_idx=4, include_last_offset=True),  # padding-only bag
    dict(input_2d=True),
    dict(input_2d=True, padding_idx=2),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_embedding_bag_matches_torch(case, mode):
    case = dict(case)
    input_2d = case.pop("input_2d", False)
    offsets = case.pop("offsets", None)
    weight = R.standard_normal((10, 3))
    idx = INDICES.reshape(2, 5) if input_2d else INDICES
    t_w, m_w = torch.tensor(weight, requires_grad=True), mg.tensor(weight, requires_grad=True)
    t_off = None if offsets is None else torch.tensor(offsets)
    m_off = None if offsets is None else mg.tensor(offsets)
    expected = TF.embedding_bag(torch.tensor(idx), t_w, t_off, mode=mode, **case)
    actual = F.embedding_bag(mg.tensor(idx), m_w, m_off, mode=mode, **case)
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    g = R.standard_normal(tuple(expected.shape))
    (expected * torch.tensor(g)).sum().backward()
    (actual * mg.tensor(g)).sum().backward()
    np.testing.assert_allclose(m_w.grad.numpy(), t_w.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(m_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("input_2d", [False, True])
def test_per_sample_weights_match_torch(input_2d):
    weight, psw = R.standard_normal((10, 3)), R.standard_normal(10)
    idx = INDICES.reshape(2, 5) if input_2d else INDICES
    psw = psw.reshape(idx.shape)
    offsets = None if input_2d else [0, 3, 8]
    t_in = [torch.tensor(a, requires_grad=True) for a in (weight, psw)]
    m_in = [mg.tensor(a, requires_grad=True) for a in (weight, psw)]
    expected = TF.embedding_bag(torch.tensor(idx), t_in[0], None if offsets is None else
                                torch.tensor(offsets), mode="sum", per_sample_weights=t_in[1])
    actual = F.embedding_bag(mg.tensor(idx), m_in[0], None if offsets is None else
                             mg.tensor(offsets), mode="sum", per_sample_weights=m_in[1])
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    expected.pow(2).sum().backward()
    actual.pow(2).sum().backward()
    for m, t in zip(m_in, t_in):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_module_matches_torch():
    torch.manual_seed(0)
    for kwargs in (dict(), dict(mode="sum", padding_idx=-2), dict(mode="max",
                                                                  include_last_offset=True)):
        t_bag = torch.nn.EmbeddingBag(10, 4, **kwargs).double()
        m_bag = nn.EmbeddingBag(10, 4, **kwargs).double()
        assert repr(m_bag) == repr(t_bag)
        m_bag.load_state_dict({"weight": mg.tensor(t_bag.weight.detach().numpy())})
        offsets = [0, 4, 10] if kwargs.get("include_last_offset") else [0, 4]
        np.testing.assert_allclose(
            m_bag(mg.tensor(INDICES), mg.tensor(offsets)).detach().numpy(),
            t_bag(torch.tensor(INDICES), torch.tensor(offsets)).detach().numpy(), rtol=1e-12)
    pretrained = R.standard_normal((5, 2))
    m_bag = nn.EmbeddingBag.from_pretrained(mg.tensor(pretrained), mode="sum")
    assert not m_bag.weight.requires_grad
    np.testing.assert_allclose(m_bag(mg.tensor([[1, 0]])).numpy(),
                               pretrained[[1, 0]].sum(0, keepdims=True))


BAD = [
    (dict(input=[[1, 2]], offsets=[0]), ValueError),
    (dict(input=[1, 2]), ValueError),
    (dict(input=[1, 2], offsets=[[0]]), ValueError),
    (dict(input=[[[1]]]), ValueError),
    (dict(input=[1, 2], offsets=[0], mode="median"), ValueError),
    (dict(input=[1, 2], offsets=[0], mode="max", scale_grad_by_freq=True), ValueError),
    (dict(input=[1, 2], offsets=[0], mode="mean", per_sample_weights=[1.0, 2.0]),
     NotImplementedError),
    (dict(input=[1, 2], offsets=[0], per_sample_weights=[1.0]), ValueError),
    (dict(input=[1, 2, 3], offsets=[1, 2]), RuntimeError),
    (dict(input=[1, 2, 3], offsets=[0, 4]), RuntimeError),
]


@pytest.mark.parametrize("kwargs,error", BAD, ids=str)
def test_errors_are_torchs(kwargs, error):
    def call(lib, fn):
        args = {k: (lib.tensor(v) if isinstance(v, list) else v) for k, v in kwargs.items()}
        return fn(args.pop("input"), lib.zeros(10, 3, dtype=lib.float64), **args)
    with pytest.raises(error) as expected:
        call(torch, TF.embedding_bag)
    with pytest.raises(error) as actual:
        call(mg, F.embedding_bag)
    # torch's message shows shapes as torch.Size (minigrad: minigrad.Size), offsets' class,
    # and may append the offending tensor on a second line
    text = (str(expected.value).splitlines()[0].replace("torch.Size", "minigrad.Size")
            .replace("torch.Tensor", ""))
    assert str(actual.value).replace("minigrad._tensor.Tensor", "") == text


def test_unsupported_arguments_say_so():
    with pytest.raises(NotImplementedError, match="max_norm"):
        F.embedding_bag(mg.tensor([1, 2]), mg.randn(4, 2), mg.tensor([0]), max_norm=1.0)
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.EmbeddingBag(4, 2, sparse=True)
