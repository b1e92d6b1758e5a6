"""The "Learning PyTorch with Examples" tutorial's programs (fit sin(x) with a cubic).

Each program is the tutorial's text with `torch.randn` initial values drawn from numpy
(random streams differ between the libraries) and 500 steps instead of 2000. They run in
the tutorial's dtype, `torch.float` (float32), so comparisons use float32 tolerances.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

TENSORS = '''
import math

import numpy as np
import torch

rng = np.random.default_rng(0)
dtype = torch.float
device = torch.device("cpu")
# device = torch.device("cuda:0") # Uncomment this to run on GPU

# Create random input and output data
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Randomly initialize weights
a = torch.tensor(rng.standard_normal(), device=device, dtype=dtype)
b = torch.tensor(rng.standard_normal(), device=device, dtype=dtype)
c = torch.tensor(rng.standard_normal(), device=device, dtype=dtype)
d = torch.tensor(rng.standard_normal(), device=device, dtype=dtype)

losses = []
learning_rate = 1e-6
for t in range(500):
    # Forward pass: compute predicted y
    y_pred = a + b * x + c * x ** 2 + d * x ** 3

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum().item()
    losses.append(loss)
    if t % 100 == 99:
        print(t, loss)

    # Backprop to compute gradients of a, b, c, d with respect to loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()

    # Update weights using gradient descent
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d


print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
results = {"losses": losses, "a": a, "b": b, "c": c, "d": d}
'''

AUTOGRAD = '''
import math

import numpy as np
import torch

rng = np.random.default_rng(0)
dtype = torch.float
device = "cpu"
torch.set_default_device(device)

# Create Tensors to hold input and outputs.
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

# Create random Tensors for weights.
a = torch.tensor(rng.standard_normal(), dtype=dtype, requires_grad=True)
b = torch.tensor(rng.standard_normal(), dtype=dtype, requires_grad=True)
c = torch.tensor(rng.standard_normal(), dtype=dtype, requires_grad=True)
d = torch.tensor(rng.standard_normal(), dtype=dtype, requires_grad=True)

losses = []
learning_rate = 1e-6
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    loss.backward()

    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Manually zero the gradients after updating weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
results = {"losses": losses, "a": a, "b": b, "c": c, "d": d}
'''

CUSTOM_FUNCTION = '''
import torch
import math


class LegendrePolynomial3(torch.autograd.Function):
    """
    We can implement our own custom autograd Functions by subclassing
    torch.autograd.Function and implementing the forward and backward passes
    which operate on Tensors.
    """

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

losses = []
learning_rate = 5e-6
for t in range(500):
    # To apply our Function, we use Function.apply method. We alias this as 'P3'.
    P3 = LegendrePolynomial3.apply

    y_pred = a + b * P3(c + d * x)

    loss = (y_pred - y).pow(2).sum()
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    loss.backward()

    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
results = {"losses": losses, "a": a, "b": b, "c": c, "d": d}
'''

NN = '''
import math

import numpy as np
import torch

rng = np.random.default_rng(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
with torch.no_grad():
    for name, param in model.named_parameters():
        param.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, param.shape)))

loss_fn = torch.nn.MSELoss(reduction='sum')

losses = []
learning_rate = 1e-6
for t in range(500):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    model.zero_grad()
    loss.backward()

    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
results = {"losses": losses, "state": model.state_dict(),
           "names": [ord(c) for c in ",".join(n for n, _ in model.named_parameters())]}
'''

OPTIM = '''
import math

import numpy as np
import torch

rng = np.random.default_rng(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
with torch.no_grad():
    for param in model.parameters():
        param.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, param.shape)))
loss_fn = torch.nn.MSELoss(reduction='sum')

losses = []
learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
for t in range(500):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
results = {"losses": losses, "state": model.state_dict(),
           "square_avg": optimizer.state_dict()["state"][0]["square_avg"]}
'''

CUSTOM_MODULE = '''
import math

import numpy as np
import torch

rng = np.random.default_rng(0)


class Polynomial3(torch.nn.Module):
    def __init__(self):
        """
        In the constructor we instantiate four parameters and assign them as
        member parameters.
        """
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(rng.standard_normal(), dtype=torch.float))
        self.b = torch.nn.Parameter(torch.tensor(rng.standard_normal(), dtype=torch.float))
        self.c = torch.nn.Parameter(torch.tensor(rng.standard_normal(), dtype=torch.float))
        self.d = torch.nn.Parameter(torch.tensor(rng.standard_normal(), dtype=torch.float))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

model = Polynomial3()

criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
losses = []
for t in range(500):
    y_pred = model(x)

    loss = criterion(y_pred, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f'Result: {model.string()}')
results = {"losses": losses, "state": model.state_dict()}
'''

DYNAMIC_NET = '''
import random
import torch
import math

random.seed(0)


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.1))
        self.b = torch.nn.Parameter(torch.tensor(0.9))
        self.c = torch.nn.Parameter(torch.tensor(-0.05))
        self.d = torch.nn.Parameter(torch.tensor(-0.1))
        self.e = torch.nn.Parameter(torch.tensor(0.01))

    def forward(self, x):
        """
        For the forward pass of the model, we randomly choose either 4, 5
        and reuse the e parameter to compute the contribution of these orders.

        Since each forward pass builds a dynamic computation graph, we can use normal
        Python control-flow operators like loops or conditional statements when
        defining the forward pass of the model.
        """
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?'


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

model = DynamicNet()

criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
losses = []
for t in range(500):
    y_pred = model(x)

    loss = criterion(y_pred, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f'Result: {model.string()}')
results = {"losses": losses, "state": model.state_dict(),
           "momentum": optimizer.state_dict()["state"][4]["momentum_buffer"]}
'''

PROGRAMS = {
    "tensors": TENSORS,
    "autograd": AUTOGRAD,
    "custom_function": CUSTOM_FUNCTION,
    "nn": NN,
    "optim": OPTIM,
    "custom_module": CUSTOM_MODULE,
    "dynamic_net": DYNAMIC_NET,
}


PROMOTION = '''
import math
import torch

x = torch.linspace(-math.pi, math.pi, 2000)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
results = {"xx": xx, "product": x.unsqueeze(-1) * p}
'''


def test_tutorial_feature_dtype_matches_torch():
    # The nn/optim tutorials build their features as float32 ** int64; torch keeps float32
    # (PyTorch's type promotion, minigrad/autograd/promotion.py). Values to float32 rounding.
    reference, ported = run_both(PROMOTION, "promotion")
    assert_same(reference, ported, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tutorial_program_matches_torch(name):
    reference, ported = run_both(PROGRAMS[name], name)
    assert_same(reference, ported, rtol=1e-4, atol=1e-6)
