"""Small powers are computed as PyTorch computes them (products, reciprocals, square
roots), so eager and compiled minigrad give PyTorch's bits (x ** 0.5: within an ulp), at a fraction of np.power's cost."""
import numpy as np
import pytest

import minigrad as mg


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2, 3, -1, -2, 0.5, -0.5])
def test_small_powers_give_torchs_bits_eager_and_compiled(exponent, dtype):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).uniform(0.5, 2.0, 1000).astype(dtype)
    t = torch.tensor(a, requires_grad=True)
    want = t ** exponent
    want.sum().backward()

    def f(x):
        return x ** exponent
    for run in (f, mg.compile(f)):
        for _ in range(2):   # the compiled function's first (traced) call and a cached one
            x = mg.tensor(a, requires_grad=True)
            out = run(x)
            out.sum().backward()
            rtol = 4e-7 if dtype == np.float32 else 1e-15
            if exponent == 0.5:   # PyTorch's vectorised pow, not sqrt: within an ulp of it
                np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=rtol)
            else:
                np.testing.assert_array_equal(out.detach().numpy(), want.detach().numpy())
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=rtol)


def test_square_root_power_has_torchs_edge_values():
    torch = pytest.importorskip("torch")
    a = np.array([-0.0, -np.inf, 4.0, np.inf, -1.0])
    got = (mg.tensor(a) ** 0.5).numpy()
    want = (torch.tensor(a) ** 0.5).numpy()
    np.testing.assert_array_equal(got, want)   # -inf ** 0.5 is nan, as sqrt
    assert np.signbit(got[0]) and np.signbit(want[0])   # -0.0 ** 0.5 is -0.0, as sqrt
