"""minigrad.nn.utils.rnn and RNN modules over PackedSequences match torch 2.13:
values, batch_sizes and indices, and gradients back to the sequences and the weights."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.nn.utils import rnn as mrnn

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn

LENGTHS = [4, 1, 3, 3]


def _sequences(lengths=LENGTHS, features=3, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n, features)) for n in lengths]
    return ([mg.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def _close(m, t, atol=1e-10):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), atol=atol, rtol=1e-7)


def _same_packed(mp, tp):
    _close(mp.data, tp.data)
    assert mp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    for name in ("sorted_indices", "unsorted_indices"):
        m, t = getattr(mp, name), getattr(tp, name)
        assert (m is None) == (t is None)
        if m is not None:
            assert m.tolist() == t.tolist() and m.dtype == mg.int64


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    ms, ts = _sequences()
    m = mrnn.pad_sequence(ms, batch_first, -1.0, padding_side)
    t = trnn.pad_sequence(ts, batch_first, -1.0, padding_side)
    _close(m, t)
    (m * m).sum().backward()
    (t * t).sum().backward()
    for a, b in zip(ms, ts):
        _close(a.grad, b.grad)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("total_length", [None, 6])
def test_pack_and_pad_round_trip_with_gradients(batch_first, total_length):
    ms, ts = _sequences()
    mp = mrnn.pack_sequence(ms, enforce_sorted=False)
    tp = trnn.pack_sequence(ts, enforce_sorted=False)
    _same_packed(mp, tp)
    (mpad, mlen), (tpad, tlen) = (mrnn.pad_packed_sequence(mp, batch_first, 0.5, total_length),
                                  trnn.pad_packed_sequence(tp, batch_first, 0.5, total_length))
    _close(mpad, tpad)
    assert mlen.tolist() == tlen.tolist() and mlen.dtype == mg.int64
    weights = np.arange(mpad.numel(), dtype=np.float64).reshape(tuple(mpad.shape))
    (mpad * mg.tensor(weights)).sum().backward()
    (tpad * torch.tensor(weights)).sum().backward()
    for a, b in zip(ms, ts):
        _close(a.grad, b.grad)
    for a, b in zip(mrnn.unpack_sequence(mp), trnn.unpack_sequence(tp)):
        _close(a, b)


def test_pack_padded_sequence_sorted_and_refusals():
    ms, ts = _sequences([4, 3, 3, 1])
    mp = mrnn.pack_padded_sequence(mrnn.pad_sequence(ms), [4, 3, 3, 1])
    tp = trnn.pack_padded_sequence(trnn.pad_sequence(ts), [4, 3, 3, 1])
    _same_packed(mp, tp)
    assert mp.sorted_indices is None
    for lengths in ([1, 3, 3, 4], [4, 3, 1, 0], [4, 3, 0, 1]):
        with pytest.raises(RuntimeError) as texc:
            trnn.pack_padded_sequence(trnn.pad_sequence(ts), lengths)
        with pytest.raises(RuntimeError) as mexc:
            mrnn.pack_padded_sequence(mrnn.pad_sequence(ms), lengths)
        assert str(mexc.value) == str(texc.value)
    with pytest.raises(ValueError, match="total_length"):
        mrnn.pad_packed_sequence(mp, total_length=2)


def _modules(kind, **options):
    t = getattr(torch.nn, kind)(3, 5, **options).double()
    m = getattr(mg.nn, kind)(3, 5, **options).double()
    m.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return m, t


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("options", [{}, {"num_layers": 2, "bidirectional": True},
                                     {"batch_first": True}])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_modules_take_packed_sequences(kind, options, with_hx):
    m, t = _modules(kind, **options)
    ms, ts = _sequences()
    mp, tp = mrnn.pack_sequence(ms, enforce_sorted=False), trnn.pack_sequence(ts, enforce_sorted=False)
    margs, targs = [mp], [tp]
    if with_hx:
        layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
        h = np.random.default_rng(1).standard_normal((layers, len(LENGTHS), 5))
        mh, th = mg.tensor(h, requires_grad=True), torch.tensor(h, requires_grad=True)
        margs.append((mh, mh * 0.5) if kind == "LSTM" else mh)
        targs.append((th, th * 0.5) if kind == "LSTM" else th)
    (mout, mhid), (tout, thid) = m(*margs), t(*targs)
    assert isinstance(mout, mrnn.PackedSequence)
    _same_packed(mout, tout)
    mhid = mhid if kind == "LSTM" else (mhid,)
    thid = thid if kind == "LSTM" else (thid,)
    for a, b in zip(mhid, thid):
        _close(a, b)
    mloss = (mout.data ** 2).sum() + sum((h * h).sum() for h in mhid)
    tloss = (tout.data ** 2).sum() + sum((h * h).sum() for h in thid)
    mloss.backward()
    tloss.backward()
    for a, b in zip(ms, ts):
        _close(a.grad, b.grad, atol=1e-9)
    tparams = dict(t.named_parameters())
    for name, p in m.named_parameters():
        _close(p.grad, tparams[name].grad, atol=1e-9)
    if with_hx:
        _close(mh.grad, th.grad, atol=1e-9)


def test_packed_output_pads_like_torch():
    m, t = _modules("GRU")
    ms, ts = _sequences()
    mout, _ = m(mrnn.pack_sequence(ms, enforce_sorted=False))
    tout, _ = t(trnn.pack_sequence(ts, enforce_sorted=False))
    _close(mrnn.pad_packed_sequence(mout, batch_first=True)[0],
           trnn.pad_packed_sequence(tout, batch_first=True)[0])


@pytest.mark.parametrize("make", [lambda lib: [[2, 3, 1]], lambda lib: lib.tensor([[2, 3, 1]]),
                                  lambda lib: lib.tensor(3)])
def test_lengths_that_are_not_1d_get_torchs_error(make):
    def error(lib):
        with pytest.raises(RuntimeError) as info:
            lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 4, 2), make(lib), batch_first=True)
        return str(info.value)
    assert error(mg) == error(torch)
