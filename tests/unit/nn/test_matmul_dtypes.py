"""linear, nn.Linear and the matrix products take one dtype, as in torch: float32 with float64
(or a float with an integer) is torch's RuntimeError with its message (which names the
kernel torch runs), not a promotion; one integer dtype works.  Wrong shapes get torch's
messages too (checked before or after the dtypes, as torch).  Eager and compiled."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "f16": np.float16}


def _arrays(shapes, names, seed=0):
    rng = np.random.default_rng(seed)
    return [None if s is None else (rng.standard_normal(s) * 3).astype(DTYPES[n])
            for s, n in zip(shapes, names)]


def _call_both(name, arrays, fn_of=None):
    """Call minigrad's and torch's op ``name`` on the same arrays; (result or exception) x 2."""
    outcomes = []
    for lib, fns in ((mg, F), (torch, TF)):
        fn = getattr(fns if fn_of is None else fn_of(lib), name, None) or getattr(lib, name)
        args = [None if a is None else lib.tensor(a) for a in arrays]
        try:
            outcomes.append(fn(*args))
        except Exception as exc:  # noqa: BLE001 - compared with torch's below
            outcomes.append(exc)
    return outcomes


def _same_outcome(mine, theirs):
    if isinstance(theirs, Exception):
        assert type(mine) is type(theirs), (mine, theirs)
        assert str(mine).startswith(str(theirs))  # (minigrad may add a hint)
        return
    assert not isinstance(mine, Exception), mine
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    tol = 1e-3 if theirs.dtype == torch.float16 else 1e-5
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=tol, atol=tol)


LINEAR_DTYPES = [("f32", "f64", None), ("f64", "f32", None), ("f32", "f32", "f64"),
                 ("f64", "f64", "f32"), ("f32", "f64", "f64"), ("f32", "f64", "f32"),
                 ("i64", "f32", None), ("f32", "i64", None), ("f32", "f32", "i64"),
                 ("i64", "i64", None), ("i64", "i64", "i64"), ("f32", "f16", None),
                 ("f32", "f32", None), ("f64", "f64", "f64")]


@pytest.mark.parametrize("input_shape", [(3, 4), (4,), (2, 3, 4)], ids=["2-D", "1-D", "3-D"])
@pytest.mark.parametrize("dtypes", LINEAR_DTYPES,
                         ids=["-".join(map(str, d)) for d in LINEAR_DTYPES])
def test_linear_dtypes_as_torch(input_shape, dtypes):
    x_dtype, w_dtype, b_dtype = dtypes
    arrays = _arrays([input_shape, (2, 4), None if b_dtype is None else (2,)],
                     [x_dtype, w_dtype, b_dtype])
    _same_outcome(*_call_both("linear", arrays))


@pytest.mark.parametrize("bias", [True, False])
def test_linear_checks_shapes_and_dtypes_in_torchs_order(bias):
    """With a bias torch's addmm checks the dtypes first; without, its mm the shapes."""
    arrays = _arrays([(3, 5), (2, 4), (2,) if bias else None], ["f32", "f64", "f64"])
    _same_outcome(*_call_both("linear", arrays))


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
def test_linear_module_refuses_a_float64_input_as_torch(compile):
    x = np.ones((3, 4))
    module = mg.nn.Linear(4, 2)
    call = mg.compile(module) if compile else module
    with pytest.raises(RuntimeError) as mine:
        call(mg.tensor(x))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Linear(4, 2)(torch.tensor(x))
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
def test_linear_integer_values_as_torch(compile):
    x, w, b = _arrays([(3, 4), (2, 4), (2,)], ["i64", "i64", "i64"])
    fn = mg.compile(F.linear) if compile else F.linear
    out = fn(mg.tensor(x), mg.tensor(w), mg.tensor(b))
    expected = TF.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b))
    assert out.dtype == mg.int64
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


PRODUCT_SHAPES = {
    "matmul": [((3, 4), (4, 2)), ((4,), (4,)), ((4,), (4, 2)), ((3, 4), (4,)),
               ((2, 3, 4), (4, 2)), ((2, 3, 4), (2, 4, 2)), ((3, 4), (2, 4, 2)),
               ((2, 3, 4), (4,)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (3, 4, 2)),
               ((3, 4), (5, 2)), ((4,), (5,)), ((3, 4), (5,)), ((2, 3, 4), (2, 5, 2)),
               ((2, 3, 4), (5,)), ((4,), (2, 5, 3)), ((2, 1, 3, 4), (3, 5, 2)),
               ((2, 3, 4), (3, 4, 2)), ((2, 3, 4), (5, 2))],
    "mm": [((3, 4), (4, 2)), ((3, 5), (4, 2)), ((3,), (3, 2)), ((3, 2), (2,))],
    "bmm": [((2, 3, 4), (2, 4, 2)), ((2, 3, 5), (2, 4, 2)), ((2, 3, 4), (3, 4, 2)),
            ((3, 4), (2, 4, 2)), ((2, 3, 4), (4, 2))],
    "mv": [((3, 4), (4,)), ((3, 5), (4,)), ((3,), (3,)), ((3, 3), (3, 1))],
    "dot": [((4,), (4,)), ((5,), (4,))],
    "vdot": [((4,), (4,))],
}
PAIRS = [("f32", "f64"), ("f64", "f32"), ("i64", "f32"), ("f32", "i64"), ("i64", "i64"),
         ("f16", "f32")]
PRODUCT_CASES = [(name, shapes, pair) for name, cases in PRODUCT_SHAPES.items()
                 for shapes in cases for pair in PAIRS]


@pytest.mark.parametrize("name, shapes, pair", PRODUCT_CASES,
                         ids=[f"{n}-{s[0]}@{s[1]}-{'-'.join(p)}" for n, s, p in PRODUCT_CASES])
def test_products_dtypes_as_torch(name, shapes, pair):
    if name == "vdot" and "i64" in pair and pair != ("i64", "i64"):
        pytest.skip("torch's vdot has no mixed integer message of its own")
    _same_outcome(*_call_both(name, _arrays(shapes, pair)))


def test_matmul_operator_refuses_two_dtypes_as_torch():
    a, b = _arrays([(3, 4), (4, 2)], ["f32", "f64"])
    with pytest.raises(RuntimeError) as mine:
        mg.tensor(a) @ mg.tensor(b)
    with pytest.raises(RuntimeError) as theirs:
        torch.tensor(a) @ torch.tensor(b)
    assert str(mine.value) == str(theirs.value)


ADD_DTYPES = [("f64", "f32", "f32"), ("f32", "f64", "f64"), ("f32", "f32", "f64"),
              ("f32", "f64", "f32"), ("i64", "f32", "f32"), ("f32", "i64", "i64"),
              ("i64", "i64", "i64"), ("f32", "f32", "f32")]


@pytest.mark.parametrize("dtypes", ADD_DTYPES, ids=["-".join(d) for d in ADD_DTYPES])
@pytest.mark.parametrize("name, shapes", [("addmm", [(3, 2), (3, 4), (4, 2)]),
                                          ("addmm", [(2,), (3, 4), (4, 2)]),
                                          ("baddbmm", [(2, 3, 2), (2, 3, 4), (2, 4, 2)])],
                         ids=["addmm", "addmm broadcast self", "baddbmm"])
def test_fused_products_dtypes_as_torch(name, shapes, dtypes):
    _same_outcome(*_call_both(name, _arrays(shapes, dtypes)))


@pytest.mark.parametrize("compile", [False, True], ids=["eager", "compiled"])
def test_float32_linear_grads_stay_float32(compile):
    """The common case is unchanged: one dtype in, that dtype's values and gradients out."""
    x, w, b = _arrays([(5, 4), (3, 4), (3,)], ["f32", "f32", "f32"])
    grads = []
    for lib, fns in ((mg, F), (torch, TF)):
        tensors = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        linear = mg.compile(fns.linear) if compile and lib is mg else fns.linear
        (linear(*tensors) ** 2).sum().backward()
        grads.append([t.grad for t in tensors])
    for mine, theirs in zip(*grads):
        assert mine.dtype == mg.float32
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-4)
