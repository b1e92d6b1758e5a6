"""What the seed ports share: the notebook's printed inputs and two small helpers.

The notebook prints its random inputs with 4 decimals, so the inputs below are the printed
(rounded) values.  Outputs are compared (a) tightly with PyTorch's result on these exact inputs
and (b) with the notebook's printed numbers to the printed precision, allowing for the input
rounding (|coefficients| <= 14 in these formulas, 14 * 0.5e-4 = 7e-4 < 1e-3).
"""
import numpy as np

PRINTED_ATOL = 1e-3

# data set "A": 003_* "Using grad" cell and simple_variable(_almost) cells
A_A = [0.0171, 0.1633, 0.5833, 0.3794]
A_B = [0.3774, 0.6308, 0.5239, 0.1387]
# data set "B": 003_* "Zero Gradients" (da), run_gradients(simple), simple_recompute, ... cells
B_A = [0.4605, 0.4061, 0.9422, 0.3946]
B_B = [0.0850, 0.3296, 0.9888, 0.6494]
# data set "C": 001_* (JSON gist) executed outputs of cells 8, 9 and 10
C_A = [0.3605, 0.9889, 0.8768, 0.5413]
C_B = [0.2517, 0.3470, 0.8960, 0.3315]


def np_of(t):
    """Tensor -> numpy array (through the public PyTorch-style API)."""
    return t.detach().numpy()


def assert_close(t, expected, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np_of(t), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol)
