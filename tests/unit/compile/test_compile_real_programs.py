"""Programs a user would write, compiled and compared with eager minigrad."""
import numpy as np

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
