"""poisson_nll_loss(full=True): Stirling's term as PyTorch writes it, masked where target
<= 1 after the logs, so its gradient reaches a target that requires grad (nan at a zero
target, as PyTorch's), eager and compiled."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("log_input", [True, False])
def test_full_loss_and_both_gradients_as_torch(log_input, compiled):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    x = x if log_input else np.abs(x) + 0.1
    target = np.abs(rng.standard_normal((3, 4))) * 3
    target[0, :3] = [0.0, 1.0, 0.5]   # masked: the term is 0 (nan in its log at 0)
    results = []
    for lib, fns in ((mg, F), (torch, torch.nn.functional)):
        values = lib.tensor(x, requires_grad=True)
        targets = lib.tensor(target, requires_grad=True)
        loss_fn = fns.poisson_nll_loss
        if compiled and lib is mg:
            loss_fn = mg.compile(loss_fn)
        loss = loss_fn(values, targets, log_input=log_input, full=True)
        loss.backward()
        results.append([loss.detach().numpy(), values.grad.numpy(), targets.grad.numpy()])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)
