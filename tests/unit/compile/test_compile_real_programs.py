"""Programs a user would write, compiled and compared with eager minigrad."""
import numpy as np
import pytest

import minigrad as mg


def test_the_same_tensor_twice_after_another_tensor():
    # The key for repeated Tensors compared them with ==, which raised for
    # Tensors of more than one element ("Boolean value ... is ambiguous").
    def f(x, inp):
        return (x * inp["a"] * inp["pair"][1]).sum()
    compiled = mg.compile(f)
    for seed in range(3):
        mg.manual_seed(seed)
        x = mg.randn(3)
        a = mg.randn(3, requires_grad=True)
        out = compiled(x, {"a": a, "pair": (x, a)})
        (got,) = mg.autograd.grad(out, [a])
        eager = f(x, {"a": a, "pair": (x, a)})
        (want,) = mg.autograd.grad(eager, [a])
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_allclose(out.item(), eager.item(), rtol=1e-6)


def test_a_dict_of_tensors_returned_compiles_and_matches_eager():
    # A model returning {"loss": ..., "parts": (...)} was a graph break: ran eagerly.
    def f(inp, scale=2.0, *, mode="cos"):
        a, b = inp["a"], inp["pair"][1]
        other = b.cos() if mode == "cos" else b
        return {"s": (a * b).sum() * scale, "t": (a.sin(), other)}
    compiled = mg.compile(f, fullgraph=True)
    for seed in range(3):
        for mode in ("cos", "id"):
            mg.manual_seed(seed)
            a = mg.randn(3, requires_grad=True)
            b = mg.randn(3, requires_grad=True)
            results = []
            for fn in (f, compiled):
                out = fn({"a": a, "pair": (a, b)}, mode=mode)
                assert list(out) == ["s", "t"] and type(out["t"]) is tuple
                loss = out["s"] + out["t"][0].sum() + out["t"][1].pow(2).sum()
                results.append([loss] + list(mg.autograd.grad(loss, [a, b])))
            for want, got in zip(*results):
                np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)


def _padding_masked_attention(q, pad):
    # a padding mask the way scripts write it: keep = ~pad, or logical_not / eq by name
    keep = (~pad) & pad.logical_not() & pad.eq(False) & mg.logical_xor(pad, mg.ones_like(pad))
    scores = (q @ q.transpose(-2, -1)).masked_fill(~keep[:, None, :], float("-inf"))
    return (scores.softmax(-1) @ q).sum()


def test_masks_by_name_and_by_invert_follow_each_calls_data():
    # ~mask, logical_not, eq(...) and logical_xor made their masks outside the recorded
    # ops: a graph break (the whole function ran eagerly).
    compiled = mg.compile(_padding_masked_attention, fullgraph=True)
    rs = np.random.RandomState(0)
    for _ in range(4):
        pad = np.zeros((2, 5), bool)
        pad[rs.randint(2), rs.randint(1, 5):] = True
        q = mg.tensor(rs.randn(2, 5, 3).astype("float32"), requires_grad=True)
        got = compiled(q, mg.tensor(pad))
        (got_grad,) = mg.autograd.grad(got, [q])
        want = _padding_masked_attention(q, mg.tensor(pad))
        (want_grad,) = mg.autograd.grad(want, [q])
        np.testing.assert_allclose(got.item(), want.item(), rtol=1e-5)
        np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-5, atol=1e-6)


def test_comparisons_by_name_use_the_tensors_dtype_as_the_operators_do():
    torch = pytest.importorskip("torch")
    values = [0.1, 0.2, 0.3]
    x, t = mg.tensor(values), torch.tensor(values)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        got = getattr(x, name)(0.1).numpy()
        np.testing.assert_array_equal(got, getattr(t, name)(0.1).numpy(), err_msg=name)
        np.testing.assert_array_equal(getattr(mg, name)(x, 0.1).numpy(), got, err_msg=name)


def _mixed_dtypes(x, lengths, momentum, mask):
    mean = x.sum(1) / lengths                 # float32 / int64: float32
    decayed = (mean * (1 - momentum)).clamp(min=momentum)   # a float64 0-d tensor: float32
    return (decayed * mask).exp(), (x * mask[:, None]).sum(1).sqrt()   # int64 mask


def test_mixed_dtypes_promote_as_eager_on_every_call():
    # The generated code computed with numpy's promotion: float64 from the second call on.
    torch = pytest.importorskip("torch")
    compiled = mg.compile(_mixed_dtypes)
    rs = np.random.RandomState(0)
    for _ in range(3):
        x_np = rs.rand(3, 4).astype("float32")
        lengths, mask = rs.randint(1, 5, 3), rs.randint(0, 2, 3)
        momentum = np.float64(rs.rand())
        x = mg.tensor(x_np, requires_grad=True)
        args = (x, mg.tensor(lengths), mg.tensor(momentum), mg.tensor(mask))
        got = compiled(*args)
        (got_grad,) = mg.autograd.grad(got[0].sum() + got[1].sum(), [x])
        xt = torch.tensor(x_np, requires_grad=True)
        want = _mixed_dtypes(xt, torch.tensor(lengths), torch.tensor(momentum), torch.tensor(mask))
        (want_grad,) = torch.autograd.grad(want[0].sum() + want[1].sum(), [xt])
        for g, w in zip(got + (got_grad,), want + (want_grad,)):
            assert g.dtype == mg.float32
            np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-5)


class _Counted(mg.nn.Module):
    """A forward that counts its training steps in a buffer, as scripts do."""

    def __init__(self):
        super().__init__()
        self.norm = mg.nn.BatchNorm1d(3, momentum=None)   # a cumulative average
        self.register_buffer("steps", mg.zeros((), dtype=mg.int64))

    def forward(self, x):
        if self.training:
            self.steps += 1      # in place, then sets the same tensor back
        return self.norm(x) * 2


def test_a_buffer_counter_and_a_cumulative_batch_norm_compile():
    # `self.steps += 1` was a "Python side effect" graph break (the setattr of the
    # tensor already there), and BatchNorm(momentum=None) read num_batches_tracked
    # with .item(): both ran eagerly.
    mg.manual_seed(0)
    eager, twin = _Counted(), _Counted()
    compiled = mg.compile(twin, fullgraph=True)
    rs = np.random.RandomState(0)
    for step in range(4):
        x = mg.tensor(rs.randn(5, 3).astype("float32"))
        for model in (eager, twin):
            model.train(step != 2)
        np.testing.assert_array_equal(compiled(x).detach().numpy(), eager(x).detach().numpy())
        for name, want in eager.state_dict().items():
            np.testing.assert_array_equal(twin.state_dict()[name].numpy(), want.numpy(), err_msg=name)
    assert twin.steps.item() == 3 and twin.norm.num_batches_tracked.item() == 3


class _BasicBlock(mg.nn.Module):
    """torchvision's ResNet block: in-place adds and ReLU(inplace=True) on intermediates."""

    def __init__(self):
        super().__init__()
        self.conv = mg.nn.Conv2d(2, 2, 3, padding=1)
        self.bn = mg.nn.BatchNorm2d(2)
        self.relu = mg.nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.bn(self.conv(x))
        out += x
        return self.relu(out)


def test_in_place_ops_on_intermediates_compile_and_train_as_eager():
    # `out += x` and ReLU(inplace=True) were graph breaks: a ResNet ran eagerly.
    mg.manual_seed(0)
    eager, twin = _BasicBlock(), _BasicBlock()
    twin.load_state_dict(eager.state_dict())
    compiled = mg.compile(twin, fullgraph=True)
    optimizers = [mg.optim.SGD(m.parameters(), lr=0.1) for m in (eager, twin)]
    rs = np.random.RandomState(0)
    for _ in range(3):
        x = mg.tensor(rs.randn(2, 2, 4, 4).astype("float32"))
        losses = []
        for fn, opt in zip((eager, compiled), optimizers):
            opt.zero_grad()
            loss = fn(x).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-6)
        for name, want in eager.state_dict().items():
            np.testing.assert_allclose(twin.state_dict()[name].numpy(), want.numpy(),
                                       rtol=1e-5, atol=1e-7, err_msg=name)


def test_in_place_on_a_value_whose_derivative_reads_it_still_raises():
    def f(x):
        y = x.exp()
        y += 1            # exp's derivative reads its result: eager raises at backward
        return y.sum()
    compiled = mg.compile(f)
    for _ in range(3):
        x = mg.randn(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            compiled(x).backward()


def test_in_place_through_data_writes_the_argument_as_eager():
    def f(x, w):
        d = x.data           # x's memory (not its version): the write is seen by x
        d += 1
        return (w * d).sum()
    compiled = mg.compile(f)
    for _ in range(3):
        w = mg.randn(3, requires_grad=True)
        x_eager, x_compiled = mg.randn(3), None
        x_compiled = x_eager.clone()
        want, got = f(x_eager, w), compiled(x_compiled, w)
        np.testing.assert_allclose(got.item(), want.item(), rtol=1e-6)
        np.testing.assert_array_equal(x_compiled.numpy(), x_eager.numpy())
