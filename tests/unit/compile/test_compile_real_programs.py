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
