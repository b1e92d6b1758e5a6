"""Run one module under minigrad and torch from the same weights (float64)."""
import numpy as np

import minigrad as mg

torch = None


def _torch():
    global torch
    import torch as t
    torch = t
    return t


def to_mg(value):
    return mg.tensor(value.detach().numpy().copy())


def load_from_torch(mg_module, torch_module):
    """The torch module's state_dict, loaded into the minigrad one (strict)."""
    state = {k: to_mg(v) for k, v in torch_module.state_dict().items()}
    result = mg_module.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys
    return mg_module


def flat_outputs(out):
    if isinstance(out, tuple):
        return [o for x in out for o in flat_outputs(x)]
    return [] if out is None else [out]


def compare(mg_module, torch_module, inputs, rtol=1e-7, atol=1e-9, grad=True):
    """Forward both on ``inputs`` (numpy arrays; float ones get gradients), backward a
    random weighting of every output, compare outputs, input and parameter grads."""
    t = _torch()
    load_from_torch(mg_module, torch_module)
    mg_in = [mg.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in inputs]
    t_in = [t.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in inputs]
    mg_out = flat_outputs(mg_module(*mg_in))
    t_out = flat_outputs(torch_module(*t_in))
    assert len(mg_out) == len(t_out)
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(o.shape) for o in t_out]
    for a, b in zip(mg_out, t_out):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol, atol)
    if not grad:
        return
    mg_loss = sum((o * mg.tensor(w)).sum() for o, w in zip(mg_out, weights) if o.requires_grad)
    t_loss = sum((o * t.tensor(w)).sum() for o, w in zip(t_out, weights) if o.requires_grad)
    mg_loss.backward()
    t_loss.backward()
    for a, b in zip(mg_in, t_in):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol, atol)
    t_params = dict(torch_module.named_parameters())
    for name, p in mg_module.named_parameters():
        tp = t_params[name]
        if tp.grad is None:
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol, atol,
                                       err_msg=name)


def raised(call):
    """(exception type, message) that ``call()`` raises, or (None, None)."""
    try:
        call()
    except Exception as error:   # noqa: BLE001 - the exception itself is compared
        return type(error), str(error)
    return None, None
