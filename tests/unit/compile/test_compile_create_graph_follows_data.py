"""create_graph=True through a compiled region follows each call's values.

The create_graph backward of a compiled region is the formulas over Tensors, compiled in
its turn by tracing it.  Formula helpers that read values in Python (a mask: which side
of a kink, which class a target picks, where a product has zeros) gave the traced call's
mask to every later call: elu, selu, clamp, prod, cross_entropy, nll_loss and embedding
returned wrong first and second derivatives from the third call on.  Such a read is now
a graph break (``formulas.core.values_of``): that backward runs eagerly.

Each case calls the compiled function on new data several times and compares the first
and second derivatives with eager minigrad's.
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import grad

CASES = {
    "elu": lambda x, i: F.elu(x).pow(2).sum(),
    "selu": lambda x, i: F.selu(x).pow(2).sum(),
    "softplus past its threshold": lambda x, i: F.softplus(x * 10).pow(2).sum(),
    "clamp": lambda x, i: x.clamp(-0.5, 0.5).pow(2).sum(),
    "prod (a zero on some calls)": lambda x, i: x.prod(1).sum(),
    "cross_entropy": lambda x, i: F.cross_entropy(x, i % 3),
    "nll_loss": lambda x, i: F.nll_loss(x.log_softmax(1), i % 3),
    "embedding": lambda x, i: F.embedding(i, x).pow(2).sum(),
    "logit with eps": lambda x, i: x.sigmoid().logit(eps=0.3).pow(2).sum(),
}


def _derivatives(fn, x_values, i_values):
    x = mg.tensor(x_values, requires_grad=True)
    first, = grad(fn(x, mg.tensor(i_values)), x, create_graph=True)
    second, = grad(first.pow(2).sum(), x, allow_unused=True)
    return first.detach().numpy(), None if second is None else second.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_create_graph_through_a_compiled_region_follows_each_calls_values(name):
    fn = CASES[name]
    compiled = mg.compile(fn)
    rng = np.random.default_rng(0)
    for call in range(5):
        x_values, i_values = rng.standard_normal((4, 3)), rng.integers(0, 4, 4)
        if call == 3:
            x_values[0, 1] = 0.0
        for got, want in zip(_derivatives(compiled, x_values, i_values),
                             _derivatives(fn, x_values, i_values)):
            if want is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_explain_says_how_the_create_graph_backward_runs():
    """A formula that reads values makes it eager; smooth ops keep it compiled."""
    for fn, expected in ((CASES["elu"], "runs eagerly: a derivative formula reads values"),
                         (lambda x, i: x.tanh().pow(2).sum(), "compiled")):
        compiled = mg.compile(fn)
        for seed in range(2):
            _derivatives(compiled, np.random.default_rng(seed).standard_normal((4, 3)),
                         np.arange(4))
        assert f"create_graph backward: {expected}" in compiled.explain()
