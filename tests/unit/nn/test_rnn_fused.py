"""nn.LSTM / nn.GRU run on the fused entries of derivatives.yaml (_lstm_layer, _lstm_cell,
_gru_cell): initial states, both directions, several layers and second derivatives,
compared with torch from the same weights (float64)."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.autograd import grad as mg_grad
from tests.unit.nn._torch_pair import compare, load_from_torch

torch = pytest.importorskip("torch")

R = np.random.default_rng(7)


def _with_state(lib, rnn, lstm):
    """A module calling ``rnn`` with an explicit initial state (so it gets gradients too)."""
    base = lib.nn.Module

    class WithState(base):
        def __init__(self):
            super().__init__()
            self.rnn = rnn

        def forward(self, x, h0, c0=None):
            return self.rnn(x, (h0, c0) if lstm else h0)
    return WithState()


@pytest.mark.parametrize("kind,kwargs", [
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(batch_first=True, bias=False)),
    ("GRU", dict(num_layers=2, bidirectional=True)),
])
def test_rnn_with_initial_state_matches_torch(kind, kwargs):
    torch.manual_seed(0)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    t_rnn = getattr(torch.nn, kind)(3, 4, **kwargs).double()
    mg_rnn = getattr(nn, kind)(3, 4, **kwargs).double()
    x = R.standard_normal((2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3))
    states = [R.standard_normal((layers, 2, 4)) for _ in range(2 if kind == "LSTM" else 1)]
    compare(_with_state(mg, mg_rnn, kind == "LSTM"), _with_state(torch, t_rnn, kind == "LSTM"),
            [x, *states])


def test_lstm_second_derivative_matches_torch():
    torch.manual_seed(0)
    t_rnn = torch.nn.LSTM(3, 4, bidirectional=True).double()
    mg_rnn = load_from_torch(nn.LSTM(3, 4, bidirectional=True).double(), t_rnn)
    x = R.standard_normal((4, 2, 3))
    v = R.standard_normal(x.shape)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (mg_gx,) = mg_grad((mg_rnn(mx)[0] ** 2).sum(), [mx], create_graph=True)
    (t_gx,) = torch.autograd.grad((t_rnn(tx)[0] ** 2).sum(), [tx], create_graph=True)
    np.testing.assert_allclose(mg_gx.detach().numpy(), t_gx.detach().numpy(), rtol=1e-7, atol=1e-9)
    mg_w = mg_rnn.weight_hh_l0_reverse
    t_w = t_rnn.weight_hh_l0_reverse
    mg_second = mg_grad((mg_gx * mg.tensor(v)).sum(), [mx, mg_w])
    t_second = torch.autograd.grad((t_gx * torch.tensor(v)).sum(), [tx, t_w])
    for a, b in zip(mg_second, t_second):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-9)


def test_lstm_float32_stays_float32_and_close_to_torch():
    torch.manual_seed(0)
    t_rnn = torch.nn.LSTM(6, 5)
    mg_rnn = load_from_torch(nn.LSTM(6, 5), t_rnn)
    x = R.standard_normal((7, 3, 6)).astype(np.float32)
    out, (h, c) = mg_rnn(mg.tensor(x))
    t_out, (t_h, t_c) = t_rnn(torch.tensor(x))
    assert out.dtype == h.dtype == c.dtype == mg.float32
    for a, b in ((out, t_out), (h, t_h), (c, t_c)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_lstm_float32_gradients_stay_float32_and_close_to_torch():
    torch.manual_seed(0)
    t_rnn = torch.nn.LSTM(6, 5, num_layers=2, dropout=0.0, bidirectional=True)
    mg_rnn = load_from_torch(nn.LSTM(6, 5, num_layers=2, dropout=0.0, bidirectional=True), t_rnn)
    x = R.standard_normal((7, 3, 6)).astype(np.float32)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, (h, c) = mg_rnn(mx)
    t_out, (t_h, t_c) = t_rnn(tx)
    (out.sum() + h.sum() * 2 + c.sum() * 3).backward()
    (t_out.sum() + t_h.sum() * 2 + t_c.sum() * 3).backward()
    assert mx.grad.dtype == mg.float32
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    t_params = dict(t_rnn.named_parameters())
    for name, p in mg_rnn.named_parameters():
        assert p.grad.dtype == mg.float32, name
        np.testing.assert_allclose(p.grad.numpy(), t_params[name].grad.numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=name)


@pytest.mark.filterwarnings("error")
def test_lstm_saturated_gates_match_torch_without_warnings():
    # weights large enough that exp(-x) of the gate activations overflows float32
    torch.manual_seed(0)
    t_rnn = torch.nn.LSTM(3, 4)
    with torch.no_grad():
        for p in t_rnn.parameters():
            p.mul_(200.0)
    mg_rnn = load_from_torch(nn.LSTM(3, 4), t_rnn)
    x = (R.standard_normal((5, 2, 3)) * 10).astype(np.float32)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, _ = mg_rnn(mx)
    t_out, _ = t_rnn(tx)
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), atol=1e-6)
    out.sum().backward()
    t_out.sum().backward()
    assert np.isfinite(mx.grad.numpy()).all()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_rnn_on_the_fake_gpu_matches_cpu_without_initial_state(kind):
    # the default initial state is made on the input's device; the kernels use its namespace
    from minigrad._array import fake_cuda
    was_installed = fake_cuda.is_installed()
    fake_cuda.install()
    try:
        rnn = getattr(nn, kind)(4, 3, num_layers=2, bidirectional=True)
        x = R.standard_normal((5, 2, 4)).astype(np.float32)
        results = []
        for device in ("cpu", "cuda"):
            rnn.to(device)
            rnn.zero_grad()
            mx = mg.tensor(x, device=device, requires_grad=True)
            out, h = rnn(mx)
            assert out.is_cuda == (device == "cuda")
            (out.sum() + (h[1] if kind == "LSTM" else h).sum()).backward()
            results.append([out.detach().cpu().numpy(), mx.grad.cpu().numpy()]
                           + [p.grad.cpu().numpy() for p in rnn.parameters()])
        for a, b in zip(*results):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    finally:
        if not was_installed:
            fake_cuda.uninstall()
