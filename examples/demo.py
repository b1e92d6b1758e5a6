"""A short tour: first and second derivatives, and a few steps of gradient descent."""
import minigrad as mg

# The talk's example: y = x1 * (x1 + x2) at x1=2, x2=3 -> dy/dx1 = 7, dy/dx2 = 2
x1 = mg.tensor(2.0, requires_grad=True)
x2 = mg.tensor(3.0, requires_grad=True)
y = x1 * (x1 + x2)
y.backward()
print(f"y = x1 * (x1 + x2) = {y.item()}:  dy/dx1 = {x1.grad.item()}, dy/dx2 = {x2.grad.item()}")

# Gradient of a gradient: d/dx (d/dx x**3) = 6x
x = mg.tensor(3.0, requires_grad=True)
(dx,) = mg.autograd.grad(x ** 3, x, create_graph=True)
(ddx,) = mg.autograd.grad(dx, x)
print(f"x**3 at x=3:  first derivative {dx.item()}, second derivative {ddx.item()}")

# A least-squares fit by gradient descent
mg.manual_seed(0)
inputs = mg.randn(64, 3)
targets = inputs @ mg.tensor([1.0, -2.0, 0.5]) + 0.3
w = mg.zeros(3, requires_grad=True)
b = mg.zeros((), requires_grad=True)
for step in range(200):
    loss = ((inputs @ w + b - targets) ** 2).mean()
    w.grad = b.grad = None
    loss.backward()
    with mg.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
print(f"fitted w = {[round(v, 3) for v in w.tolist()]}, b = {b.item():.3f}  (true: [1, -2, 0.5], 0.3)")
