"""Gradients exactly AT the kinks follow PyTorch's conventions.

The generated gradchecks sample away from kinks (finite differences are meaningless
there); these tests pin the one-sided choices PyTorch's backward kernels make.  The
expected values are hard-coded (read off torch 2.x) and re-checked against torch when
it is installed.
"""
import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as MF

ZEROS = object()  # stands for a zero target of the input's shape


class Const:
    """Stands for a constant tensor of either library."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)


# (id, call, input values, expected gradient of call(x).sum())
KINKS = [
    ("relu_at_0", lambda F, x: F.relu(x), [0.0], [0.0]),
    ("relu6_at_0_and_6", lambda F, x: F.relu6(x), [0.0, 6.0], [0.0, 0.0]),
    ("leaky_relu_at_0", lambda F, x: F.leaky_relu(x, 0.2), [0.0], [0.2]),
    ("elu_at_0", lambda F, x: F.elu(x, 0.7), [0.0], [0.7]),
    ("selu_at_0", lambda F, x: F.selu(x), [0.0], [1.7580993408473766]),
    ("hardtanh_at_bounds", lambda F, x: F.hardtanh(x, -0.5, 0.8), [-0.5, 0.8], [0.0, 0.0]),
    ("hardsigmoid_at_bounds", lambda F, x: F.hardsigmoid(x), [-3.0, 3.0], [0.0, 0.0]),
    ("hardswish_at_bounds", lambda F, x: F.hardswish(x), [-3.0, 3.0], [0.0, 1.0]),
    ("threshold_at_threshold", lambda F, x: F.threshold(x, 0.5, 2.0), [0.5], [0.0]),
    ("celu_at_0", lambda F, x: F.celu(x, 0.6), [0.0], [1.0]),
    ("prelu_at_0", lambda F, x: F.prelu(x, Const([0.25])), [0.0], [0.25]),
    ("softplus_at_threshold", lambda F, x: F.softplus(x, 2.0, 3.0), [1.5], [0.9525741268224333]),
    ("l1_loss_at_0", lambda F, x: F.l1_loss(x, ZEROS, reduction="sum"), [0.0, 0.0], [0.0, 0.0]),
    ("smooth_l1_loss_at_0_and_beta",
     lambda F, x: F.smooth_l1_loss(x, ZEROS, reduction="sum", beta=0.5),
     [0.0, 0.5, -0.5], [0.0, 1.0, -1.0]),
    ("huber_loss_at_0_and_delta", lambda F, x: F.huber_loss(x, ZEROS, reduction="sum", delta=0.5),
     [0.0, 0.5, -0.5], [0.0, 0.5, -0.5]),
    ("margin_ranking_loss_at_0",
     lambda F, x: F.margin_ranking_loss(x, Const([0.5, 0.5]), Const([1.0, 1.0]), reduction="sum"),
     [0.5, 0.2], [-1.0, -1.0]),
    ("hinge_embedding_loss_at_margin",
     lambda F, x: F.hinge_embedding_loss(x, Const([-1.0, -1.0]), margin=0.5, reduction="sum"),
     [0.5, 1.0], [-1.0, 0.0]),
    ("pairwise_distance_at_0", lambda F, x: F.pairwise_distance(x, x.detach(), eps=0.0),
     [[1.0, 2.0]], [[0.0, 0.0]]),
    ("normalize_zero_vector", lambda F, x: F.normalize(x, dim=1, eps=0.5),
     [[0.0, 0.0]], [[2.0, 2.0]]),
    ("normalize_p1_at_0", lambda F, x: F.normalize(x, p=1, dim=1), [[0.0, 1.0]], [[1.0, 0.0]]),
]


def _grad(lib, F, call, values):
    x = lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
    call(_WithZeros(F, lib), x).sum().backward()
    return x.grad.numpy()


class _WithZeros:
    """``F`` that reads the ZEROS and Const markers as tensors of its own library."""

    def __init__(self, F, lib):
        self._F, self._lib = F, lib

    def __getattr__(self, name):
        fn = getattr(self._F, name)

        def call(x, *args, **kwargs):
            args = [self._lib.zeros_like(x) if a is ZEROS else
                    self._lib.tensor(a.values) if isinstance(a, Const) else a for a in args]
            return fn(x, *args, **kwargs)
        return call


@pytest.mark.parametrize("call, values, expected",
                         [pytest.param(c, v, e, id=n) for n, c, v, e in KINKS])
def test_gradient_at_kink(call, values, expected):
    np.testing.assert_allclose(_grad(minigrad, MF, call, values), expected, rtol=1e-12)


@pytest.mark.parametrize("call, values, expected",
                         [pytest.param(c, v, e, id=n) for n, c, v, e in KINKS])
def test_hard_coded_values_are_torchs(call, values, expected):
    torch = pytest.importorskip("torch")
    # rtol: torch computes some constants (celu's 1 / alpha) in float32
    np.testing.assert_allclose(_grad(torch, torch.nn.functional, call, values), expected,
                               rtol=1e-7)
