"""Gradients at the edges (zeros, infinities, NaNs, broadcast bounds) as PyTorch's.

Every case runs in both libraries with explicit float64 inputs and compares the
values, the first-order gradients and, where it matters, the second order."""
import warnings

import numpy as np
import pytest

import minigrad as mg

NAN, INF = float("nan"), float("inf")


def _torch():
    return pytest.importorskip("torch")


def _grads(lib, fn, *values):
    """The output and the gradient of ``fn(*inputs).sum()`` for each input, as lists."""
    xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = fn(lib, *xs)
    out.sum().backward()
    return out.tolist(), [None if x.grad is None else x.grad.tolist() for x in xs]


def _second(lib, fn, *values):
    """First-order gradient (kept in the graph) and the gradient of its sum."""
    x = lib.tensor(values[0], dtype=lib.float64, requires_grad=True)
    gx, = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
    ggx, = lib.autograd.grad(gx.sum(), x, allow_unused=True)
    return gx.tolist(), None if ggx is None else ggx.tolist()


def _same(ours, theirs):
    a, b = _nested_floats(ours), _nested_floats(theirs)
    assert _equal(a, b), f"minigrad {a} / torch {b}"


def _equal(a, b):
    """Equal, NaN equal to NaN, and floats to the last bit or one more (this torch's
    float64 sqrt(2.0) is one unit in the last place below the correctly rounded one)."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
            map(_equal, a, b))
    if a is None or b is None:
        return a is b
    return a == b or (a != a and b != b) or abs(a - b) <= 2.3e-16 * abs(b)


def _nested_floats(value):
    if isinstance(value, (list, tuple)):
        return [_nested_floats(v) for v in value]
    return value if value is None else float(value)


def _both(run, fn, *values):
    torch = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning may reach the user
        ours = run(mg, fn, *values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = run(torch, fn, *values)
    _same(ours, theirs)


def _setitem_zero(lib, x):
    y = x * 1
    y[:1].zero_()      # an in-place op on a view: the base's history becomes CopySlices
    return lib.sqrt(y)  # whose incoming gradient is inf where the view was zeroed


def _index_put_one(lib, x):
    y = x * 1
    y[[0]] = 1.0        # advanced index: index_put
    return lib.sqrt(y * lib.tensor([0.0, 1.0], dtype=lib.float64))


CASES = {
    "std-zero-spread": (lambda lib, x: x.std(), [2.0, 2.0, 2.0]),
    "std-dim-zero-spread": (lambda lib, x: x.std(dim=1), [[2.0, 2.0], [1.0, 3.0]]),
    "std-keepdim-zero-spread": (lambda lib, x: x.std(dim=0, keepdim=True), [[2.0, 1.0], [2.0, 3.0]]),
    "median-nan": (lambda lib, x: lib.median(x, dim=1).values, [[1.0, NAN, 3.0], [1.0, 2.0, 3.0]]),
    "median-dim-nan-twice": (lambda lib, x: lib.median(x, dim=0).values, [1.0, NAN, 3.0, NAN]),
    "setitem-then-sqrt": (_setitem_zero, [-1.0, 4.0]),
    "index-put-then-sqrt": (_index_put_one, [-1.0, 4.0]),
    "sqrt-of-relu": (lambda lib, x: lib.sqrt(lib.relu(x)), [-1.0, 0.0, 4.0]),
    "relu-of-nan": (lambda lib, x: lib.relu(x), [NAN, -1.0, 1.0]),
    "sqrt-of-clamp-min": (lambda lib, x: lib.sqrt(lib.clamp(x, min=0.0)), [-1.0, 4.0]),
    "sqrt-of-clamp-max": (lambda lib, x: lib.sqrt(-lib.clamp(x, max=0.0)), [1.0, -4.0]),
    "sqrt-of-clip": (lambda lib, x: lib.sqrt(lib.clip(x, 0.0, 9.0)), [-1.0, 4.0]),
    "sqrt-of-maximum": (lambda lib, x, y: lib.sqrt(lib.maximum(x, y)), [-1.0, 4.0, 2.0], [0.0, 0.0, 2.0]),
    "sqrt-of-minimum": (lambda lib, x, y: lib.sqrt(-lib.minimum(x, y)), [1.0, -4.0, -2.0], [0.0, 0.0, -2.0]),
    "sqrt-of-fmax": (lambda lib, x, y: lib.sqrt(lib.fmax(x, y)), [-1.0, 4.0], [0.0, NAN]),
    "sqrt-of-hardtanh": (lambda lib, x: lib.sqrt(lib.nn.functional.hardtanh(x, 0.0, 10.0)), [-1.0, 4.0]),
    "clamp-tensor-bounds-broadcast-x": (
        lambda lib, x, lo, hi: lib.clamp(x, min=lo, max=hi),
        [1.0], [[0.0, 2.0], [0.5, 0.7]], [[3.0, 3.0], [0.9, 0.8]]),
    "atan2-at-origin": (lambda lib, y, x: lib.atan2(y, x), [0.0, 1.0], [0.0, 1.0]),
    "median-of-nan": (lambda lib, x: lib.median(x), [1.0, NAN, 3.0, NAN]),
}


@pytest.mark.parametrize("case", CASES)
def test_first_order_matches_torch(case):
    fn, *values = CASES[case]
    _both(_grads, fn, *values)


SECOND_ORDER = {
    "sqrt-of-relu": (lambda lib, x: lib.sqrt(lib.relu(x)) * x, [-1.0, 4.0]),
    "sqrt-of-clamp": (lambda lib, x: lib.sqrt(lib.clamp(x, min=0.0)) * x, [-1.0, 4.0]),
    "sqrt-of-maximum": (
        lambda lib, x: lib.sqrt(lib.maximum(x, lib.zeros(2, dtype=lib.float64))) * x, [-1.0, 4.0]),
    "atan2-at-origin": (lambda lib, x: lib.atan2(x, x * 2) * x, [0.0, 1.0]),
    "std-zero-spread": (lambda lib, x: x.std() * x, [2.0, 2.0, 2.0]),
    "setitem-then-sqrt": (lambda lib, x: _setitem_zero(lib, x) * x, [0.5, 4.0]),
}


@pytest.mark.parametrize("case", SECOND_ORDER)
def test_second_order_matches_torch(case):
    fn, *values = SECOND_ORDER[case]
    _both(_second, fn, *values)


@pytest.mark.parametrize("op", ["var", "std"])
def test_var_and_std_with_no_degrees_of_freedom_give_nan_and_warn_as_torch(op):
    torch = _torch()
    results = []
    for lib in (mg, torch):
        x = lib.tensor([[2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        with pytest.warns(UserWarning, match=rf"{op}\(\): degrees of freedom is <= 0"):
            out = getattr(x, op)(dim=0)
        out.sum().backward()
        results.append((out.tolist(), x.grad.tolist()))
    _same(*results)


def test_median_of_a_tensor_with_nan_is_nan_as_torch():
    torch = _torch()
    values = [[1.0, NAN], [3.0, 0.5]]
    assert np.isnan(mg.median(mg.tensor(values, dtype=mg.float64)).item())
    assert np.isnan(torch.median(torch.tensor(values, dtype=torch.float64)).item())
    ours = mg.median(mg.tensor(values, dtype=mg.float64), dim=1)
    theirs = torch.median(torch.tensor(values, dtype=torch.float64), dim=1)
    _same(ours.values.tolist(), theirs.values.tolist())
    assert ours.indices.tolist() == theirs.indices.tolist()


QUIET = {
    "floor-divide-by-zero": lambda lib, x: lib.div(x, 0.0, rounding_mode="floor"),
    "float-power-of-zero": lambda lib, x: lib.float_power(x, -1.0),
    "addcdiv-by-zero": lambda lib, x: lib.addcdiv(x, x, x * 0),
}


@pytest.mark.parametrize("case", QUIET)
def test_infinities_and_nans_come_without_numpy_warnings_as_in_torch(case):
    torch = _torch()
    values = [1.0, 0.0, -1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = QUIET[case](mg, mg.tensor(values, dtype=mg.float64)).tolist()
    theirs = QUIET[case](torch, torch.tensor(values, dtype=torch.float64)).tolist()
    _same(ours, theirs)
