"""Random programs, compiled vs eager: same values, same first-order gradients (1e-12),
and, on new data call after call, the same first and second derivatives (create_graph)."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import grad as autograd_grad

UNARY = [lambda x: x.tanh(), lambda x: x.sin(), lambda x: x.exp() * 0.1, lambda x: -x,
         lambda x: x * x, lambda x: x ** 3, lambda x: x.sigmoid(), lambda x: x.relu(),
         lambda x: (x * x + 1).sqrt(), lambda x: x.abs() + 0.5,
         lambda x: minigrad.nn.functional.elu(x), lambda x: x.clamp(-0.3, 0.4),
         lambda x: minigrad.nn.functional.leaky_relu(x, 0.2)]
BINARY = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
          lambda x, y: x / (y * y + 1), lambda x, y: minigrad.maximum(x, y)]
REDUCE = [lambda x: x.sum(), lambda x: x.mean(), lambda x: x.sum(0), lambda x: x.amax(-1)]


def random_program(rng):
    steps = [(rng.integers(3), rng.integers(10), rng.integers(0, 1000)) for _ in range(12)]

    def program(a, b):
        values = [a, b]
        for kind, which, pick in steps:
            x = values[pick % len(values)]
            if kind == 0:
                values.append(UNARY[which % len(UNARY)](x))
            elif kind == 1:
                y = values[(pick // 7) % len(values)]
                values.append(BINARY[which % len(BINARY)](x, y))
            else:
                values.append(x * 0.5 + 0.25)
        out = values[-1] + values[-2]
        return REDUCE[steps[0][2] % len(REDUCE)](out), values[-3]
    return program


@pytest.mark.parametrize("seed", range(25))
def test_random_program_compiled_matches_eager(seed):
    rng = np.random.default_rng(seed)
    program = random_program(rng)
    shapes = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (3, 1))][seed % 3]
    a = minigrad.tensor(rng.uniform(-1, 1, shapes[0]), requires_grad=True)
    b = minigrad.tensor(rng.uniform(-1, 1, shapes[1]), requires_grad=bool(seed % 2))
    compiled = minigrad.compile(program)
    compiled(a, b)
    leaves = [t for t in (a, b) if t.requires_grad]
    results = []
    for fn in (program, compiled):
        first, second = fn(a, b)
        weights = minigrad.tensor(np.random.default_rng(seed).uniform(size=first.shape)) \
            if first.ndim else None
        loss = (first * weights).sum() if weights is not None else first
        if second.requires_grad:
            loss = loss + second.sum() * 0.3
        if not loss.requires_grad:
            pytest.skip("this program's outputs do not depend on an input that requires grad")
        grads = autograd_grad([loss], leaves, allow_unused=True)
        results.append((first._data, second._data, [g._data if g is not None else None for g in grads]))
    (f1, s1, g1), (f2, s2, g2) = results
    np.testing.assert_allclose(f2, f1, rtol=1e-12)
    np.testing.assert_allclose(s2, s1, rtol=1e-12)
    for x, y in zip(g2, g1):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def _derivatives(fn, a_values, b_values, requires_b):
    a = minigrad.tensor(a_values, requires_grad=True)
    b = minigrad.tensor(b_values, requires_grad=requires_b)
    first, second = fn(a, b)
    loss = first.sum() + second.sum() * 0.3
    if not loss.requires_grad:
        return None
    g, = autograd_grad([loss], [a], create_graph=True, allow_unused=True)
    if g is None or not g.requires_grad:
        return [g]
    hvp, = autograd_grad([(g * g).sum()], [a], allow_unused=True)
    return [g, hvp]


@pytest.mark.parametrize("seed", range(12))
def test_random_program_compiled_follows_new_data_to_second_order(seed):
    """Kinks (relu, abs, maximum, elu, clamp, leaky_relu) land elsewhere on each call."""
    rng = np.random.default_rng(100 + seed)
    program = random_program(rng)
    shapes = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (3, 1))][seed % 3]
    compiled = minigrad.compile(program)
    for _ in range(4):
        a_values, b_values = rng.uniform(-1, 1, shapes[0]), rng.uniform(-1, 1, shapes[1])
        got = _derivatives(compiled, a_values, b_values, bool(seed % 2))
        want = _derivatives(program, a_values, b_values, bool(seed % 2))
        if want is None:
            pytest.skip("this program's outputs do not depend on an input that requires grad")
        for x, y in zip(got, want):
            assert (x is None) == (y is None)
            if x is not None:
                np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(),
                                           rtol=1e-12, atol=1e-12)
