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
