"""addmv (beta * self + alpha * mat @ vec; function, method and in place) against torch:
values with beta/alpha, a broadcast self, gradients first and second order (eager and
compiled), integer tensors (torch truncates float scalars), alpha == 0 or beta == 0
ignoring nan, and torch's errors for wrong shapes and mixed dtypes, in its order of checks.
(addmm shares the scalar handling and is checked alongside.)"""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

F32, F64, I64 = np.float32, np.float64, np.int64


def _arrays(shapes, dtypes, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * 3).astype(d) for s, d in zip(shapes, dtypes)]


def _close(a, b, tol=1e-12):
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


SCALARS = [{}, {"beta": 0.5, "alpha": -2.0}, {"beta": 0}, {"alpha": 3}, {"beta": 2, "alpha": 0}]
SELF_SHAPES = [(3,), (1,), ()]


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("scalars", SCALARS, ids=str)
@pytest.mark.parametrize("self_shape", SELF_SHAPES, ids=str)
def test_addmv_values_and_grads_as_torch(self_shape, scalars, compile):
    arrays = _arrays([self_shape, (3, 4), (4,)], [F64] * 3)
    results = []
    for lib in (mg, torch):
        tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
        fn = mg.compile(mg.addmv) if compile and lib is mg else lib.addmv
        out = fn(*tensors, **scalars)
        firsts = lib.autograd.grad((out * out).sum(), tensors, create_graph=True)
        seconds = lib.autograd.grad(sum((g * g).sum() for g in firsts), tensors,
                                    allow_unused=True)
        seconds = [lib.zeros_like(t) if s is None else s for s, t in zip(seconds, tensors)]
        results.append([out, *firsts, *seconds])
    for mine, theirs in zip(*results):
        _close(mine, theirs)


@pytest.mark.parametrize("dtype", [F32, I64, np.float16], ids=str)
def test_addmv_method_and_in_place_as_torch(dtype):
    arrays = _arrays([(3,), (3, 4), (4,)], [dtype] * 3)
    results = []
    for lib in (mg, torch):
        s, m, v = (lib.tensor(a) for a in arrays)
        method = s.addmv(m, v, beta=2, alpha=3)
        in_place = s.clone()
        returned = in_place.addmv_(m, v, beta=2, alpha=3)
        assert returned is in_place
        results.append([method, in_place])
    for mine, theirs in zip(*results):
        _close(mine, theirs, 1e-2 if dtype == np.float16 else 1e-5)


INT_SCALARS = [{"beta": 0.5}, {"alpha": 0.5}, {"beta": 2.7, "alpha": 1.5}, {"beta": 3, "alpha": 2},
               {"beta": -1.5}, {"beta": True}]


@pytest.mark.parametrize("scalars", INT_SCALARS, ids=str)
@pytest.mark.parametrize("name, shapes", [("addmv", [(3,), (3, 4), (4,)]),
                                          ("addmm", [(3, 2), (3, 4), (4, 2)]),
                                          ("baddbmm", [(2, 3, 2), (2, 3, 4), (2, 4, 2)])])
def test_integer_tensors_take_truncated_scalars_as_torch(name, shapes, scalars):
    arrays = [np.arange(1, 1 + np.prod(s)).reshape(s) for s in shapes]
    mine, theirs = (getattr(lib, name)(*[lib.tensor(a) for a in arrays], **scalars)
                    for lib in (mg, torch))
    assert mine.dtype == mg.int64 and theirs.dtype == torch.int64
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize("name, shapes", [("addmv", [(3,), (3, 4), (4,)]),
                                          ("addmm", [(3, 2), (3, 4), (4, 2)])])
@pytest.mark.parametrize("nan_in, scalars", [(0, {"beta": 0}), (1, {"alpha": 0}),
                                             (0, {"beta": 0, "alpha": 0})], ids=str)
def test_a_zero_scalar_ignores_nan_as_torch(name, shapes, nan_in, scalars):
    arrays = [np.ones(s) for s in shapes]
    arrays[nan_in][...] = np.nan
    mine, theirs = (getattr(lib, name)(*[lib.tensor(a) for a in arrays], **scalars)
                    for lib in (mg, torch))
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


ERRORS = {
    "self float32": ([(3,), (3, 4), (4,)], [F32, F64, F64]),
    "mat float32": ([(3,), (3, 4), (4,)], [F64, F32, F64]),
    "vec float32": ([(3,), (3, 4), (4,)], [F64, F64, F32]),
    "self int64": ([(3,), (3, 4), (4,)], [I64, F64, F64]),
    "bool": ([(3,), (3, 4), (4,)], [np.bool_] * 3),
    "self (2,)": ([(2,), (3, 4), (4,)], [F64] * 3),
    "self (3, 1)": ([(3, 1), (3, 4), (4,)], [F64] * 3),
    "mat 1-D": ([(3,), (4,), (4,)], [F64] * 3),
    "mat 3-D": ([(3,), (2, 3, 4), (4,)], [F64] * 3),
    "vec 2-D": ([(3,), (3, 4), (4, 1)], [F64] * 3),
    "vec size": ([(3,), (3, 4), (5,)], [F64] * 3),
    "size before dtype": ([(3,), (3, 4), (5,)], [F32, F64, F64]),
    "dims before dtype": ([(3,), (4,), (4,)], [F32, F64, F64]),
    "in place, self (1,)": ([(1,), (3, 4), (4,)], [F64] * 3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_addmv_errors_as_torch(case):
    shapes, dtypes = ERRORS[case]
    arrays = [np.ones(s, dtype=d) for s, d in zip(shapes, dtypes)]
    caught = []
    for lib in (mg, torch):
        s, m, v = (lib.tensor(a) for a in arrays)
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            s.addmv_(m, v) if case.startswith("in place") else lib.addmv(s, m, v)
        caught.append(info.value)
    assert type(caught[0]) is type(caught[1])
    # in place, torch says "Bad in-place call"; minigrad names the broadcast shapes
    if not case.startswith("in place"):
        assert str(caught[0]) == str(caught[1])
