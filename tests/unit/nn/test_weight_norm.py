"""nn.utils.weight_norm / remove_weight_norm against torch (float64): parameter names and
values for every ``dim`` (0, 1, last, None), forward and gradients into ``_g`` and ``_v``,
removal, PyTorch's warning and errors."""
import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

R = np.random.default_rng(6)


@pytest.mark.parametrize("layer,shape,dim", [
    ("Linear", (4, 3), 0), ("Linear", (4, 3), None), ("Linear", (4, 3), 1),
    ("Conv1d", (2, 3, 5), 0), ("Conv1d", (2, 3, 5), 1), ("Conv1d", (2, 3, 5), 2),
    ("Conv1d", (2, 3, 5), None)])
def test_weight_norm_matches_torch(layer, shape, dim):
    args = (3, 2) if layer == "Linear" else (3, 2, 3)
    x = R.standard_normal(shape)
    results = {}
    for lib in (torch, mg):
        module = getattr(lib.nn, layer)(*args).double()
        with lib.no_grad():
            for p, w in zip(module.parameters(), [R.standard_normal(tuple(p.shape)) for p in
                                                   module.parameters()] if lib is torch
                            else results["init"]):
                p.copy_(lib.tensor(w))
        if lib is torch:
            results["init"] = [p.detach().numpy().copy() for p in module.parameters()]
        with pytest.warns(FutureWarning) as record:
            lib.nn.utils.weight_norm(module, dim=dim)
        out = module(lib.tensor(x))
        out.pow(2).sum().backward()
        names = [n for n, _ in module.named_parameters()]
        values = [p.detach().numpy().copy() for p in module.parameters()]
        grads = [p.grad.numpy().copy() for p in module.parameters()]
        lib.nn.utils.remove_weight_norm(module)
        removed = [n for n, _ in module.named_parameters()], module.weight.detach().numpy()
        results[lib.__name__] = (names, values, out.detach().numpy(), grads, removed,
                                 [str(w.message) for w in record])
    t, m = results["torch"], results["minigrad"]
    assert m[0] == t[0] and m[4][0] == t[4][0] and m[5] == t[5]
    for a, b in zip(m[1] + [m[2]] + m[3] + [m[4][1]], t[1] + [t[2]] + t[3] + [t[4][1]]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_errors_are_torchs():
    messages = []
    for lib in (torch, mg):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            module = lib.nn.utils.weight_norm(lib.nn.Linear(2, 3))
            with pytest.raises(RuntimeError) as twice:
                lib.nn.utils.weight_norm(module)
        lib.nn.utils.remove_weight_norm(module)
        with pytest.raises(ValueError) as missing:
            lib.nn.utils.remove_weight_norm(module)
        messages.append((str(twice.value), str(missing.value)))
    assert messages[0] == messages[1]
