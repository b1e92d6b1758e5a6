"""A physics-informed network: fit u(x) with u'' = -pi^2 sin(pi x), u(0) = u(1) = 0, the
residual's second derivative taken with autograd.grad(create_graph=True), trained with Adam.

Collocation points and initial weights come from numpy; float64 throughout.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)


class PINN(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(1, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.net(x)


model = PINN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0.0, 0.5, tuple(p.shape))))

x_col = torch.from_numpy(rng.uniform(0, 1, (64, 1))).requires_grad_(True)
x_bc = torch.tensor([[0.0], [1.0]])
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def pde_residual(model, x):
    u = model(x)
    du_dx = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    d2u_dx2 = torch.autograd.grad(du_dx, x, grad_outputs=torch.ones_like(du_dx),
                                  create_graph=True)[0]
    return d2u_dx2 + math.pi ** 2 * torch.sin(math.pi * x)


losses = []
for epoch in range(60):
    optimizer.zero_grad()
    loss_pde = pde_residual(model, x_col).pow(2).mean()
    loss_bc = model(x_bc).pow(2).mean()
    loss = loss_pde + 10.0 * loss_bc
    loss.backward()
    optimizer.step()
    losses.append([loss_pde.item(), loss_bc.item()])
    if epoch % 20 == 0:
        print(f"epoch {epoch}: pde {loss_pde.item():.4e} bc {loss_bc.item():.4e}")

x_test = torch.linspace(0, 1, 11).unsqueeze(1)
with torch.no_grad():
    u_test = model(x_test)
error = (u_test - torch.sin(math.pi * x_test)).abs().max()
results = {
    "losses": losses,
    "state": model.state_dict(),
    "u_test": u_test,
    "error": error,
    "grads": [p.grad for p in model.parameters()],
}
'''


def test_pinn_matches_torch():
    reference, ported = run_both(PROGRAM, "pinn")
    assert_same(reference, ported, rtol=1e-7, atol=1e-10)
