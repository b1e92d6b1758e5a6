"""The short paths of linear and cross_entropy (2-D rows, one dtype, class indices all in
range, no class weights, no label smoothing) and the cases just outside them, which take
the general path: values, gradients (first and second order) and errors against torch,
eager and compiled, through the functions and through nn modules."""
import copy
import os

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(array, requires_grad=True):
    return (mg.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def _close(mine, theirs, dtype):
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                               atol=tol)


def _logits(n, c, dtype, seed=0):
    return (np.random.default_rng(seed).standard_normal((n, c)) * 3).astype(dtype)


TARGETS = {
    "in range": ([0, 3, 1, 3, 2], {}),
    "an ignored row": ([0, -100, 1, 3, 2], {}),
    "ignore_index a class": ([0, 3, 1, 3, 2], {"ignore_index": 3}),
    "ignore_index past the classes": ([0, 3, 1, 3, 2], {"ignore_index": 4}),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", sorted(TARGETS))
def test_cross_entropy_values_and_grads(dtype, reduction, case):
    targets, options = TARGETS[case]
    x, tx = _pair(_logits(5, 4, dtype))
    y = np.array(targets)
    loss = F.cross_entropy(x, mg.tensor(y), reduction=reduction, **options)
    tloss = TF.cross_entropy(tx, torch.tensor(y), reduction=reduction, **options)
    assert loss.dtype == getattr(mg, np.dtype(dtype).name)
    _close(loss, tloss, dtype)
    weights = np.random.default_rng(1).standard_normal(tloss.shape).astype(dtype)
    (loss * mg.tensor(weights)).sum().backward()
    (tloss * torch.tensor(weights)).sum().backward()
    _close(x.grad, tx.grad, dtype)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("targets", [[0, 3, 1, 3, 2], [0, -100, 1, 3, 2]])
def test_cross_entropy_double_backward(reduction, targets):
    x, tx = _pair(_logits(5, 4, np.float64))
    y = np.array(targets)
    grads = []
    for lib, F_, value, target in ((mg, F, x, mg.tensor(y)), (torch, TF, tx, torch.tensor(y))):
        loss = F_.cross_entropy(value, target, reduction=reduction)
        (g,) = lib.autograd.grad(loss.sum(), value, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), value)
        grads.append((g, gg))
    _close(grads[0][0], grads[1][0], np.float64)
    _close(grads[0][1], grads[1][1], np.float64)


def _raises_like_torch(mg_call, torch_call):
    with pytest.raises(Exception) as theirs:
        torch_call()
    with pytest.raises(type(theirs.value)):
        mg_call()


@pytest.mark.parametrize("targets", [[0, 4, 1], [0, -1, 1], [0, 1, 2, 3]],
                         ids=["past the classes", "negative", "too many"])
def test_cross_entropy_bad_targets_raise_as_torch(targets):
    x, tx = _pair(_logits(3, 4, np.float64))
    y = np.array(targets)
    _raises_like_torch(lambda: F.cross_entropy(x, mg.tensor(y)),
                       lambda: TF.cross_entropy(tx, torch.tensor(y)))


def test_cross_entropy_out_of_range_message_names_the_target():
    x = mg.tensor(_logits(3, 4, np.float64), requires_grad=True)
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.cross_entropy(x, mg.tensor(np.array([0, 7, 1])))


def test_cross_entropy_empty_batch_is_nan_as_torch():
    x, tx = _pair(np.zeros((0, 4)))
    y = np.zeros(0, dtype=np.int64)
    loss, tloss = F.cross_entropy(x, mg.tensor(y)), TF.cross_entropy(tx, torch.tensor(y))
    assert np.isnan(loss.item()) and np.isnan(tloss.item())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_values_grads_and_double_backward(dtype, bias):
    rng = np.random.default_rng(2)
    x, tx = _pair(rng.standard_normal((6, 4)).astype(dtype))
    w, tw = _pair(rng.standard_normal((3, 4)).astype(dtype))
    b, tb = _pair(rng.standard_normal(3).astype(dtype)) if bias else (None, None)
    out, tout = F.linear(x, w, b), TF.linear(tx, tw, tb)
    _close(out, tout, dtype)
    firsts = []
    for lib, y, inputs in ((mg, out, (x, w)), (torch, tout, (tx, tw))):
        gx, gw = lib.autograd.grad((y * y).sum(), inputs, create_graph=True)
        firsts.append((gx, gw, lib.autograd.grad((gx * gw.sum()).sum(), inputs)))
    for mine, theirs in zip(firsts[0], firsts[1]):
        for a, t in zip(mine, theirs):
            _close(a, t, dtype)


@pytest.mark.parametrize("shapes", [((6, 5), (3, 4), (3,)), ((6, 4), (3, 4), (2,)),
                                    ((6, 4), (3, 4, 1), (3,))],
                         ids=["in_features", "bias size", "3-D weight"])
def test_linear_mismatches_raise_as_torch(shapes):
    x_shape, w_shape, b_shape = shapes
    x, tx = _pair(np.ones(x_shape))
    w, tw = _pair(np.ones(w_shape))
    b, tb = _pair(np.ones(b_shape))
    _raises_like_torch(lambda: F.linear(x, w, b), lambda: TF.linear(tx, tw, tb))


def _mlp_pair(dtype):
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    tmodel = tmodel.to(getattr(torch, np.dtype(dtype).name))
    model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
    model = model.double() if dtype == np.float64 else model.float()
    model.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tmodel.state_dict().items()})
    return model, tmodel


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
def test_mlp_training_step_matches_torch(dtype, compile):
    model, tmodel = _mlp_pair(dtype)
    x = np.random.default_rng(3).standard_normal((8, 4)).astype(dtype)
    y = np.array([0, 2, 1, 1, 0, 2, 2, 1])
    loss_of = lambda xt, yt: F.cross_entropy(model(xt), yt)  # noqa: E731
    if compile:
        loss_of = mg.compile(loss_of)
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.1)
    for _ in range(3):
        loss = loss_of(mg.tensor(x), mg.tensor(y))
        tloss = TF.cross_entropy(tmodel(torch.tensor(x)), torch.tensor(y))
        _close(loss, tloss, dtype)
        loss.backward(), tloss.backward()
        opt.step(), topt.step()
        opt.zero_grad(), topt.zero_grad()
    for (name, p), tp in zip(model.named_parameters(), tmodel.parameters()):
        _close(p, tp, dtype)


def test_linear_module_hooks_still_run():
    model, _ = _mlp_pair(np.float64)
    seen = []
    model[0].register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    model[2].register_forward_hook(lambda m, args, out: seen.append(out.shape) or out + 1)
    x = mg.tensor(np.ones((2, 4)))
    expected = F.linear(F.relu(F.linear(x * 2, model[0].weight, model[0].bias)),
                        model[2].weight, model[2].bias) + 1
    np.testing.assert_array_equal(model(x).detach().numpy(), expected.detach().numpy())
    assert seen == [(2, 3)]


def test_linear_module_reads_a_replaced_weight():
    layer = nn.Linear(4, 3).double()
    del layer._parameters["weight"]
    layer.weight = mg.tensor(np.eye(3, 4))  # a plain attribute now, as weight_norm sets it
    x = mg.tensor(np.arange(8.0).reshape(2, 4))
    expected = x.detach().numpy() @ np.eye(3, 4).T + layer.bias.detach().numpy()
    np.testing.assert_allclose(layer(x).detach().numpy(), expected)


@pytest.mark.parametrize("targets", [[0, 3, 1, 3, 2], [0, -100, 1, 3, 2]])
def test_mlp_step_on_a_device_matches_the_cpu(fake_gpu, targets):
    x, y = _logits(5, 4, np.float64), np.array(targets)
    cpu_model = nn.Sequential(_mlp_pair(np.float64)[0], nn.Linear(3, 4).double())
    results = []
    for device in ("cpu", "cuda"):
        model = copy.deepcopy(cpu_model).to(device)
        loss = F.cross_entropy(model(mg.tensor(x, device=device)), mg.tensor(y, device=device))
        loss.backward()
        results.append([loss.item()] + [p.grad.cpu().numpy() for p in model.parameters()])
    # the same kernels on the test backend; a real GPU's BLAS sums in another order
    rtol = 1e-12 if os.environ.get("MINIGRAD_TEST_DEVICE") == "cuda" else 0
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=0)


def test_out_of_range_target_on_a_device_raises_at_the_next_synchronization(fake_gpu):
    # As PyTorch's device-side assert: the check does not make the host wait for the GPU
    x = mg.tensor(_logits(3, 4, np.float64), device="cuda", requires_grad=True)
    bad, good = (mg.tensor(np.array(t), device="cuda") for t in ([0, 4, 1], [0, 3, 1]))
    loss = F.cross_entropy(x, bad)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        loss.item()
    F.nll_loss(x, bad).backward()
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        mg.cuda.synchronize()
    F.cross_entropy(x, bad)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        x.detach().cpu()
    assert F.cross_entropy(x, good).item() > 0  # nothing left over from the failed steps


@pytest.mark.skipif(os.environ.get("MINIGRAD_TEST_DEVICE") == "cuda",
                    reason="on a real GPU the next check finds the flag only once it is there")
def test_out_of_range_target_on_a_device_is_found_by_the_next_check(fake_gpu):
    x = mg.tensor(_logits(3, 4, np.float64), device="cuda")
    F.cross_entropy(x, mg.tensor(np.array([0, -2, 1]), device="cuda"))
    with pytest.raises(IndexError, match="Target -2 is out of bounds"):
        F.cross_entropy(x, mg.tensor(np.array([0, 1, 1]), device="cuda"))
