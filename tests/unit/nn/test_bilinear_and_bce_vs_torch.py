"""F.bilinear / nn.Bilinear and binary_cross_entropy against torch: values and gradients
(first and second order, eager and compiled), and torch's errors for mixed dtypes and
mismatched shapes (its exception types and messages, in its order of checks)."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _arrays(shapes, dtypes, seed=0):
    rng = np.random.default_rng(seed)
    return [None if s is None else rng.standard_normal(s).astype(d)
            for s, d in zip(shapes, dtypes)]


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


BILINEAR_SHAPES = [((3, 4), (3, 5), (2, 4, 5), (2,)), ((3, 4), (3, 5), (2, 4, 5), None),
                   ((4,), (5,), (2, 4, 5), (2,)), ((2, 3, 4), (2, 3, 5), (2, 4, 5), (2,))]


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("shapes", BILINEAR_SHAPES, ids=["2-D", "no bias", "1-D", "3-D"])
def test_bilinear_values_and_grads_as_torch(shapes, compile):
    arrays = _arrays(shapes, [np.float64] * 4)
    results = []
    for lib, fns in ((mg, F), (torch, TF)):
        tensors = [None if a is None else lib.tensor(a, requires_grad=True) for a in arrays]
        fn = mg.compile(fns.bilinear) if compile and lib is mg else fns.bilinear
        out = fn(*tensors)
        inputs = [t for t in tensors if t is not None]
        firsts = lib.autograd.grad((out * out).sum(), inputs, create_graph=True)
        seconds = lib.autograd.grad(sum((g * g).sum() for g in firsts), inputs[:3])
        results.append([out, *firsts, *seconds])
    for mine, theirs in zip(*results):
        _close(mine, theirs)


def test_bilinear_module_matches_torch():
    module = mg.nn.Bilinear(4, 5, 2, dtype=mg.float64)
    tmodule = torch.nn.Bilinear(4, 5, 2, dtype=torch.float64)
    module.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in
                            tmodule.state_dict().items()})
    x1, x2 = _arrays([(3, 4), (3, 5)], [np.float64] * 2)
    _close(module(mg.tensor(x1), mg.tensor(x2)), tmodule(torch.tensor(x1), torch.tensor(x2)))


F32, F64, I64 = np.float32, np.float64, np.int64
BILINEAR_ERRORS = {
    "input2 float64": ([(3, 4), (3, 5), (2, 4, 5), (2,)], [F32, F64, F32, F32]),
    "weight float64": ([(3, 4), (3, 5), (2, 4, 5), None], [F32, F32, F64, None]),
    "bias float64": ([(3, 4), (3, 5), (2, 4, 5), (2,)], [F32, F32, F32, F64]),
    "integer inputs": ([(3, 4), (3, 5), (2, 4, 5), (2,)], [I64, I64, F32, F32]),
    "dims": ([(3, 4), (2, 3, 5), (2, 4, 5), None], [F32] * 3 + [None]),
    "batch": ([(3, 4), (2, 5), (2, 4, 5), None], [F32] * 3 + [None]),
    "input1 size": ([(3, 3), (3, 5), (2, 4, 5), None], [F32] * 3 + [None]),
    "input2 size": ([(3, 4), (3, 6), (2, 4, 5), (3,)], [F32] * 4),
    "bias size": ([(3, 4), (3, 5), (2, 4, 5), (3,)], [F32] * 4),
    "2-D bias": ([(3, 4), (3, 5), (2, 4, 5), (1, 2)], [F32] * 4),
}


@pytest.mark.parametrize("case", sorted(BILINEAR_ERRORS))
def test_bilinear_errors_as_torch(case):
    shapes, dtypes = BILINEAR_ERRORS[case]
    arrays = [None if s is None else np.ones(s, dtype=d) for s, d in zip(shapes, dtypes)]
    caught = []
    for lib, fns in ((mg, F), (torch, TF)):
        with pytest.raises(RuntimeError) as info:
            fns.bilinear(*[None if a is None else lib.tensor(a) for a in arrays])
        caught.append(str(info.value))
    assert caught[0] == caught[1]


def test_bilinear_module_refuses_a_float64_input_as_torch():
    x1, x2 = np.ones((3, 4)), np.ones((3, 5))
    with pytest.raises(RuntimeError) as mine:
        mg.nn.Bilinear(4, 5, 2)(mg.tensor(x1), mg.tensor(x2))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Bilinear(4, 5, 2)(torch.tensor(x1), torch.tensor(x2))
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("dtypes", [(F32, F64), (F64, F32), (F32, I64)],
                         ids=["float64 target", "float32 target", "int64 target"])
def test_binary_cross_entropy_refuses_a_target_of_another_dtype_as_torch(dtypes):
    p, t = np.full(3, 0.5, dtype=dtypes[0]), np.ones(3, dtype=dtypes[1])
    with pytest.raises(RuntimeError) as mine:
        F.binary_cross_entropy(mg.tensor(p), mg.tensor(t))
    with pytest.raises(RuntimeError) as theirs:
        TF.binary_cross_entropy(torch.tensor(p), torch.tensor(t))
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_keeps_the_input_dtype_with_float64_weights(reduction):
    p, t = np.array([0.2, 0.7, 0.5], dtype=F32), np.array([0.0, 1.0, 1.0], dtype=F32)
    w = np.array([1.0, 2.0, 0.5])
    mine = F.binary_cross_entropy(mg.tensor(p), mg.tensor(t), mg.tensor(w), reduction=reduction)
    theirs = TF.binary_cross_entropy(torch.tensor(p), torch.tensor(t), torch.tensor(w),
                                     reduction=reduction)
    assert mine.dtype == mg.float32 and theirs.dtype == torch.float32
    _close(mine, theirs, 1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_cross_entropy_gradient_where_the_input_saturates_as_torch(dtype):
    """PyTorch's gradient, (p - t) / max(p (1 - p), 1e-12): finite at p = 0 and 1, where a
    float32 sigmoid lands from 17 on (the logs' clamp at -100 gave nan there before),
    first and second order, with weights and every reduction."""
    p = np.array([0.0, 1.0, 1.0, 0.3, 1e-8, 0.0], dtype=dtype)
    t = np.array([1.0, 0.0, 1.0, 0.2, 1.0, 0.0], dtype=dtype)
    w = np.array([1.0, 2.0, 3.0, 0.5, 1.5, 1.0], dtype=dtype)
    logits = np.array([17.0, -20.0, 30.0, 0.3, -2.0, -40.0], dtype=dtype)
    for reduction in ("mean", "sum", "none"):
        results = []
        for lib, fns in ((mg, F), (torch, TF)):
            x, y = lib.tensor(p, requires_grad=True), lib.tensor(t, requires_grad=True)
            loss = fns.binary_cross_entropy(x, y, lib.tensor(w), reduction=reduction).sum()
            gx, gy = lib.autograd.grad(loss, (x, y), create_graph=True)
            ggx, = lib.autograd.grad(gx[3] + gy[3], x)
            z = lib.tensor(logits, requires_grad=True)
            fns.binary_cross_entropy(z.sigmoid(), lib.tensor(t), reduction=reduction).sum().backward()
            results.append([loss, gx, gy, ggx, z.grad])
        # (second order to 1e-9: PyTorch's double backward puts its 1e-12 in other places)
        for i, (mine, theirs) in enumerate(zip(*results)):
            np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(),
                                       rtol=1e-6 if dtype == "float32" else 1e-9 if i == 3
                                       else 1e-12)


@pytest.mark.parametrize("p, t", [([0.5, 0.2], [1.5, 0.5]), ([float("nan")], [0.5]),
                                  ([0.5, 2.0], [3.0, 0.5]), ([2.0, 0.5], [0.5, 3.0])],
                         ids=["target", "nan input", "target first", "input first"])
def test_binary_cross_entropy_checks_input_and_target_as_torch(p, t):
    """Each element's input, then its target, within [0, 1]: the first failing element
    decides which message."""
    with pytest.raises(RuntimeError) as theirs:
        TF.binary_cross_entropy(torch.tensor(p), torch.tensor(t))
    with pytest.raises(RuntimeError) as mine:
        F.binary_cross_entropy(mg.tensor(p), mg.tensor(t))
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("reduction", ["sum", "none"])
def test_binary_cross_entropy_gradient_at_a_saturated_input_is_torchs(dtype, reduction):
    # sigmoid(20.0) is exactly 1.0 in float32: torch divides by max(p (1 - p), 1e-12), not
    # by p (1 - p), so the gradient stays finite instead of nan
    p = np.array([0.0, 1.0, 1e-30, 1e-13, 0.5, 0.3, 1.0], dtype=dtype)
    t = np.array([1.0, 0.0, 1.0, 0.3, 1.0, 0.2, 1.0], dtype=dtype)
    mine, theirs = mg.tensor(p, requires_grad=True), torch.tensor(p, requires_grad=True)
    ours = F.binary_cross_entropy(mine, mg.tensor(t), reduction=reduction)
    ref = TF.binary_cross_entropy(theirs, torch.tensor(t), reduction=reduction)
    _close(ours, ref, 1e-6)
    ours.sum().backward()
    ref.sum().backward()
    _close(mine.grad, theirs.grad, 1e-6)
