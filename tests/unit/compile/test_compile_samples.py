"""Every generated gradcheck sample, compiled: values and first/second-order gradients
match eager (the same formulas; inlining may reorder sums, hence 1e-12 relative)."""
import numpy as np
import pytest

import minigrad
from minigrad._array import to_host
from minigrad.autograd import grad as autograd_grad
from minigrad.testing import _as_positional, build_sample
from tests.generated import test_derivatives as generated

# One row per generated sample, whatever columns the generated table has.
_COLUMNS = [c.strip() for c in getattr(generated, "COLUMNS",
                                        "op, outputs, sample, fast, skip_gradgrad, once").split(",")]
ROWS = [pytest.param(dict(zip(_COLUMNS, p.values)), id=p.id) for p in generated.SAMPLES]


def _close(actual, expected, dtype):
    tol = 1e-12 if dtype == np.float64 else 1e-5
    if expected is None or actual is None:
        assert actual is None and expected is None or _is_zero(actual) and _is_zero(expected)
        return
    a, e = np.asarray(to_host(actual._data)), np.asarray(to_host(expected._data))   # (device: a GPU run)
    assert a.shape == e.shape and a.dtype == e.dtype
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol * max(1.0, float(np.max(np.abs(e), initial=0))),
                               equal_nan=True)


def _is_zero(t):
    return t is None or not np.any(to_host(t._data))


def _weights(outs, seed):
    rng = np.random.default_rng(seed)
    return [minigrad.tensor(rng.uniform(0.5, 1.5, o.shape).astype(o._data.dtype), device=o.device)
            for o in outs]


def _grads(fn, leaves, create_graph=False):
    outs = [o for o in fn(*leaves) if o.requires_grad]
    if not outs:
        return outs, None
    found = autograd_grad(outs, leaves, _weights(outs, 1), allow_unused=True,
                          create_graph=create_graph)
    return outs, found


# Ops whose result's shape follows their inputs' values run eagerly (a graph break).
DATA_SHAPED = {"repeat_interleave_self_Tensor", "_masked_select"}


@pytest.mark.parametrize("row", ROWS)
def test_compiled_matches_eager(row):
    op, outputs, sample = row["op"], row["outputs"], row["sample"]
    skip_gradgrad, once = row["skip_gradgrad"], row["once"]
    fn, leaves = _as_positional(op, outputs, build_sample(sample), sample)
    compiled = minigrad.compile(fn)
    compiled(*leaves)                                   # traces
    if op.__name__ not in DATA_SHAPED:                  # no graph break in a plain op
        assert "not compiled" not in compiled.source()
    dtype = leaves[0]._data.dtype if leaves else np.float64
    for e, c in zip(fn(*leaves), compiled(*leaves)):
        _close(c, e, dtype)
    if not leaves:
        return
    _, eager = _grads(fn, leaves)
    _, got = _grads(compiled, leaves)
    if eager is None:
        return
    for g_c, g_e in zip(got, eager):
        _close(g_c, g_e, dtype)
    if skip_gradgrad or once or dtype != np.float64:
        return
    second = []
    # compiled twice: the create_graph backward is traced (run eagerly) the first time,
    # and runs its own generated code the second
    for f in (fn, compiled, compiled):
        _, first = _grads(f, leaves, create_graph=True)
        pairs = [(g, v) for g, v in zip(first, _weights(leaves, 2)) if g is not None and g.requires_grad]
        if not pairs:
            second.append(None)
            continue
        total = sum(((g * v).sum() for g, v in pairs), minigrad.tensor(0.0, dtype=minigrad.float64,
                                                                            device=pairs[0][0].device))
        second.append(autograd_grad([total], leaves, allow_unused=True))
    for got in second[1:]:
        if second[0] is not None and got is not None:
            for g_c, g_e in zip(got, second[0]):
                _close(g_c, g_e, dtype)
