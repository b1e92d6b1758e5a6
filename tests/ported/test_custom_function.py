"""The custom autograd Function tutorials: LegendrePolynomial3 from "Learning PyTorch with
Examples" fitted with manual SGD (float32), the extending-autograd docs' LinearFunction with
the separate setup_context and ctx.needs_input_grad checked by gradcheck, MulConstant with a
non-tensor argument (gradient None), MyCube returning two outputs for double backward
(gradgradcheck and autograd.grad with create_graph), and the error PyTorch raises when
backward returns too few gradients.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
from torch.autograd import Function, gradcheck


class LegendrePolynomial3(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MyCube(Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


rng = np.random.default_rng(5)
dtype = torch.float
x = torch.linspace(-np.pi, np.pi, 200, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
losses = []
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    losses.append(loss.item())
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

linear = LinearFunction.apply
input = (torch.from_numpy(rng.standard_normal((20, 20))).requires_grad_(),
         torch.from_numpy(rng.standard_normal((30, 20))).requires_grad_(),
         torch.from_numpy(rng.standard_normal(30)).requires_grad_())
ok = gradcheck(linear, input, eps=1e-6, atol=1e-4)
out = linear(*input)
out.sum().backward()

x3 = torch.from_numpy(rng.standard_normal(5)).requires_grad_()
g1, = torch.autograd.grad(my_cube(x3).sum(), x3, create_graph=True)
g2, = torch.autograd.grad(g1.sum(), x3)
ok_cube = gradcheck(my_cube, (x3,))
ok_gg = torch.autograd.gradgradcheck(my_cube, (x3,))

w = torch.from_numpy(rng.standard_normal(4)).requires_grad_()
m = MulConstant.apply(w, 2.5)
m.backward(torch.ones(4))

try:
    # backward returns too few gradients: PyTorch names the function and the counts
    class Bad(Function):
        @staticmethod
        def forward(ctx, u, v):
            return u * v

        @staticmethod
        def backward(ctx, g):
            return g

    Bad.apply(w, w.detach()).sum().backward()
    bad = "no error"
except RuntimeError as e:
    bad = str(e)

results = {
    "losses": losses,
    "abcd": [a.detach(), b.detach(), c.detach(), d.detach()],
    "gradcheck": [ok, ok_cube, ok_gg],
    "linear_out": out,
    "linear_grads": [t.grad for t in input],
    "cube_grads": [g1, g2],
    "mul_grad": w.grad,
    "grad_fn_name": [ord(ch) for ch in type(out.grad_fn).__name__],
    "bad": [ord(ch) for ch in bad],
}
'''


def test_custom_autograd_function_matches_torch():
    reference, ported = run_both(PROGRAM, "custom_function")
    assert_same(reference, ported, rtol=1e-5, atol=1e-6)
