"""A scientific-script pattern: fit a damped oscillator's parameters with LBFGS (strong Wolfe
line search) and a closure, then refine a small tanh network with it. float64.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)

t = torch.linspace(0, 4, 80)
observed = torch.exp(-0.3 * t) * torch.cos(2.1 * t) + torch.from_numpy(rng.normal(0, 0.01, 80))

params = torch.tensor([0.5, 1.8], requires_grad=True)
optimizer = torch.optim.LBFGS([params], lr=1, max_iter=20, line_search_fn="strong_wolfe")
evaluations = []


def closure():
    optimizer.zero_grad()
    damping, frequency = params
    model = torch.exp(-damping * t) * torch.cos(frequency * t)
    loss = ((model - observed) ** 2).mean()
    loss.backward()
    evaluations.append(loss.item())
    return loss


for step in range(3):
    loss = optimizer.step(closure)
    print(f"step {step}: loss {loss.item():.3e} params {params.tolist()}")

net = torch.nn.Sequential(torch.nn.Linear(1, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape))))
net_optimizer = torch.optim.LBFGS(net.parameters(), history_size=5, max_iter=15,
                                  line_search_fn="strong_wolfe")
net_losses = []


def net_closure():
    net_optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(net(t.unsqueeze(1)).squeeze(1), observed)
    loss.backward()
    net_losses.append(loss.item())
    return loss


net_optimizer.step(net_closure)
results = {
    "params": params,
    "evaluations": evaluations,
    "net_losses": net_losses,
    "state": net.state_dict(),
}
'''


def test_lbfgs_fit_matches_torch():
    reference, ported = run_both(PROGRAM, "lbfgs_fit")
    assert reference["params"].detach().numpy() == pytest.approx([0.3, 2.1], abs=0.02)
    assert_same(reference, ported, rtol=1e-6, atol=1e-9)
