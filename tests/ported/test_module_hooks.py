"""Module hooks as scripts use them: forward hooks that collect activations (feature
extraction), a forward pre-hook that rescales the input, full backward hooks that record
gradient norms and clip grad_input, a tensor hook on an intermediate; then the parameter
gradients. float64.
"""
import pytest

from tests.ported._harness import assert_same, run_both

torch = pytest.importorskip("torch")

PROGRAM = '''
import numpy as np
import torch
from torch import nn

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)

model = nn.Sequential(
    nn.Linear(5, 8),
    nn.Tanh(),
    nn.Linear(8, 8),
    nn.ReLU(),
    nn.Linear(8, 2),
)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) * 0.5))

activations = {}
def get_activation(name):
    def hook(model, input, output):
        activations[name] = output.detach()
    return hook

grad_norms = []
def record_grad(module, grad_input, grad_output):
    grad_norms.append(grad_output[0].norm().item())
    # clip what flows further back
    return tuple(g.clamp(-0.05, 0.05) if g is not None else None for g in grad_input)

def halve_input(module, args):
    return (args[0] * 0.5,)

handles = [
    model[1].register_forward_hook(get_activation("tanh")),
    model[3].register_forward_hook(get_activation("relu")),
    model[2].register_forward_pre_hook(halve_input),
    model[2].register_full_backward_hook(record_grad),
    model[4].register_full_backward_hook(record_grad),
]

x = torch.from_numpy(rng.standard_normal((7, 5))).requires_grad_()
hidden = model[0](x)
hidden_grads = []
hidden.register_hook(lambda g: hidden_grads.append(g.clone()))
out = model[4](model[3](model[2](model[1](hidden))))
loss = out.pow(2).sum()
loss.backward()

for h in handles:
    h.remove()
plain = model(x).pow(2).sum()

results = {
    "loss": [loss.item(), plain.item()],
    "tanh": activations["tanh"],
    "relu": activations["relu"],
    "grad_norms": grad_norms,
    "hidden_grad": hidden_grads[0],
    "x_grad": x.grad,
    "grads": [p.grad for p in model.parameters()],
}
'''


def test_module_hooks_match_torch():
    reference, ported = run_both(PROGRAM, "module_hooks")
    assert_same(reference, ported, rtol=1e-10, atol=1e-12)
