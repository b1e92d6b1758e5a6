"""PyTorch's "Learning PyTorch with Examples" nn tutorials, written once and run under
both libraries (only the module object differs), from the same initial weights."""
import math

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def polynomial_nn(torch, weights, steps=300):
    # tutorial polynomial_nn.py: nn.Sequential, MSELoss(sum), manual SGD under no_grad
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float64)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).double()
    model[0].load_state_dict(weights)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    learning_rate = 1e-6
    losses = []
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    return losses, linear_layer.bias.item(), linear_layer.weight[:, 0].item()



def polynomial_module(torch, init, steps=300):
    # tutorial polynomial_module.py: a custom Module with scalar Parameters, SGD
    class Polynomial3(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Parameter(torch.tensor(init[0]))
            self.b = torch.nn.Parameter(torch.tensor(init[1]))
            self.c = torch.nn.Parameter(torch.tensor(init[2]))
            self.d = torch.nn.Parameter(torch.tensor(init[3]))

        def forward(self, x):
            return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

        def string(self):
            return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + " \
                   f"{self.d.item()} x^3"

    x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float64)
    y = torch.sin(x)
    model = Polynomial3()
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    losses = []
    for t in range(steps):
        loss = criterion(model(x), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses, [n for n, _ in model.named_parameters()]


def test_polynomial_nn_tutorial_matches_torch():
    torch.manual_seed(0)
    start = torch.nn.Linear(3, 1).double().state_dict()
    mg_start = {k: minigrad.tensor(v.numpy().copy()) for k, v in start.items()}
    mg_result = polynomial_nn(minigrad, mg_start)
    torch_result = polynomial_nn(torch, start)
    np.testing.assert_allclose(mg_result[0], torch_result[0], rtol=1e-9)
    np.testing.assert_allclose(mg_result[1:], torch_result[1:], rtol=1e-9)


def test_polynomial_module_tutorial_matches_torch():
    init = [0.1, -0.3, 0.2, 0.05]
    mg_losses, mg_names = polynomial_module(minigrad, init)
    torch_losses, torch_names = polynomial_module(torch, init)
    # the parameters are float32 (as in the tutorial): agreement to float32 rounding
    np.testing.assert_allclose(mg_losses, torch_losses, rtol=1e-6)
    assert mg_names == torch_names == ["a", "b", "c", "d"]
