"""minigrad.func.stack_module_state against torch.func's: the model-ensembling recipe
(vmap over functional_call with the stacked state), the stacked leaves, and its errors."""
import copy

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def _models(lib, count=3):
    rng = np.random.default_rng(0)
    models = []
    for _ in range(count):
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.BatchNorm1d(5), lib.nn.ReLU(),
                                  lib.nn.Linear(5, 2)).double().eval()
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
            model[1].running_mean.copy_(lib.tensor(rng.standard_normal(5)))
        models.append(model)
    return models


def test_an_ensemble_runs_as_torchs():
    data = np.random.default_rng(1).standard_normal((3, 6, 4))
    results = []
    for lib in (minigrad, torch):
        models = _models(lib)
        params, buffers = lib.func.stack_module_state(models)
        base = copy.deepcopy(models[0])

        def fmodel(params, buffers, x):
            return lib.func.functional_call(base, (params, buffers), (x,))
        same = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, lib.tensor(data[0]))
        each = lib.func.vmap(fmodel)(params, buffers, lib.tensor(data))
        each.sum().backward()
        results.append([same, each, params["0.weight"].grad, buffers["1.running_mean"],
                        [p.is_leaf and p.requires_grad for p in params.values()]])
    mine, theirs = results
    for a, b in zip(mine[:4], theirs[:4]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    assert mine[4] == theirs[4]
    assert sorted(minigrad.func.stack_module_state(_models(minigrad))[0]) == \
        sorted(torch.func.stack_module_state(_models(torch))[0])


@pytest.mark.parametrize("case", ["empty", "modes", "classes", "requires_grad"])
def test_its_errors_are_torchs(case):
    messages = []
    for lib in (minigrad, torch):
        models = _models(lib, 2)
        if case == "empty":
            models = []
        elif case == "modes":
            models[1].train()
        elif case == "classes":
            models[1] = lib.nn.ModuleList(list(models[1]))
        else:
            models[1][0].weight.requires_grad_(False)
        with pytest.raises(RuntimeError) as error:
            lib.func.stack_module_state(models)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
