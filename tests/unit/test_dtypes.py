"""dtype objects, the default float dtype and dtype inference, compared with PyTorch."""
import pickle

import numpy as np
import pytest

import minigrad as mg

NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
           "int": "int32", "long": "int64"}


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    yield
    mg.set_default_dtype(mg.float32)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_objects_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(mg, name), getattr(torch, name)
    assert repr(ours) == repr(theirs).replace("torch", "minigrad")
    assert str(ours) == str(theirs).replace("torch", "minigrad")
    assert ours.itemsize == theirs.itemsize
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_complex == theirs.is_complex is False
    assert ours.is_signed == theirs.is_signed


@pytest.mark.parametrize("alias, name", ALIASES.items())
def test_aliases_are_the_same_object(alias, name):
    assert getattr(mg, alias) is getattr(mg, name)
    assert getattr(mg, alias) == getattr(mg, name)
    assert mg.float32 != mg.float64


def test_dtypes_are_accepted_where_numpy_dtypes_were_and_compare_equal_to_them():
    assert np.zeros(2, dtype=mg.float64).dtype == np.float64
    assert mg.tensor([1, 2], dtype=mg.float64).dtype == mg.float64
    assert mg.tensor([1, 2], dtype=np.float32).dtype is mg.float32
    assert mg.tensor([1.5], dtype=float).dtype is mg.float64
    assert mg.float32 == np.float32 and np.dtype("float32") == mg.float32
    assert hash(mg.float32) == hash(np.dtype("float32"))
    assert mg.float64 != None and mg.float64 != float and mg.float32 != "float32"  # noqa: E711
    assert pickle.loads(pickle.dumps(mg.int64)) is mg.int64
    with pytest.raises(TypeError, match="minigrad has no dtype"):
        mg.zeros(2, dtype="complex64")


def test_a_tensors_dtype_is_a_minigrad_dtype():
    x = mg.tensor([1.0, 2.0])
    assert x.dtype is mg.float32 and repr(x.dtype) == "minigrad.float32"
    assert mg.tensor(3).dtype is mg.int64 and mg.tensor(True).dtype is mg.bool
    assert (x > 1).dtype is mg.bool
    assert x.dtype.kind == "f"  # numpy's attributes read through, for numpy-style code


def test_default_dtype_is_float32_for_python_numbers_and_factories_like_torch():
    torch = pytest.importorskip("torch")
    cases = [lambda m: m.tensor(1.0), lambda m: m.tensor([1, 2.5]), lambda m: m.tensor(3),
             lambda m: m.tensor([True]), lambda m: m.zeros(2), lambda m: m.ones(2, 3),
             lambda m: m.empty(2), lambda m: m.full((2,), 1.5), lambda m: m.full((2,), 7),
             lambda m: m.full((2,), True), lambda m: m.arange(3), lambda m: m.arange(0.0, 1.0, 0.5),
             lambda m: m.linspace(0, 1, 5), lambda m: m.eye(2), lambda m: m.rand(2),
             lambda m: m.randn(2), lambda m: m.randint(0, 3, (2,)), lambda m: m.randperm(3),
             lambda m: m.tensor(np.zeros(2)), lambda m: m.tensor(np.zeros(2, np.float32)),
             lambda m: m.from_numpy(np.zeros(2, np.int32)), lambda m: m.as_tensor([1.0])]
    for make in cases:
        assert repr(make(mg).dtype) == repr(make(torch).dtype).replace("torch", "minigrad")


def test_set_default_dtype_changes_inference_and_rejects_non_floats():
    torch = pytest.importorskip("torch")
    mg.set_default_dtype(mg.float64)
    assert mg.get_default_dtype() is mg.float64
    assert mg.tensor(1.0).dtype is mg.float64 and mg.zeros(2).dtype is mg.float64
    assert mg.tensor(1).dtype is mg.int64
    for lib in (mg, torch):
        with pytest.raises(TypeError, match="only floating-point types are supported as the "
                                            "default type"):
            lib.set_default_dtype(lib.int64)


def test_repr_names_the_dtype_unless_it_is_the_default_like_torch():
    torch = pytest.importorskip("torch")
    for make in [lambda m: m.tensor([1.0, 2.0]), lambda m: m.tensor([1.0], dtype=m.float64),
                 lambda m: m.tensor([1, 2]), lambda m: m.tensor([1], dtype=m.int32),
                 lambda m: m.tensor(True)]:
        assert repr(make(mg)) == repr(make(torch)).replace("torch", "minigrad")


def test_conversions_to_and_type():
    torch = pytest.importorskip("torch")
    for convert in [lambda x, m: x.to(m.float64), lambda x, m: x.double(), lambda x, m: x.half(),
                    lambda x, m: x.long(), lambda x, m: x.int(), lambda x, m: x.bool(),
                    lambda x, m: x.short(), lambda x, m: x.byte(), lambda x, m: x.char(),
                    lambda x, m: x.type(m.float64), lambda x, m: x.to("cpu", m.int64),
                    lambda x, m: x.to(m.tensor([1], dtype=m.int32)),
                    lambda x, m: x.to(dtype=m.int8, copy=True)]:
        ours, theirs = convert(mg.tensor([1.5, 0.0]), mg), convert(torch.tensor([1.5, 0.0]), torch)
        assert repr(ours.dtype) == repr(theirs.dtype).replace("torch", "minigrad")
        assert ours.tolist() == theirs.tolist()
    assert mg.tensor([1.0]).type() == "minigrad.FloatTensor"
    assert mg.tensor([1]).type("torch.DoubleTensor").dtype is mg.float64


def test_to_returns_self_unless_something_changes_or_copy_is_asked():
    x = mg.tensor([1.0, 2.0])
    assert x.to(mg.float32) is x and x.to("cpu") is x and x.float() is x
    copy = x.to(mg.float32, copy=True)
    assert copy is not x and copy.tolist() == x.tolist()


def test_to_is_differentiable_and_gradients_come_back_in_the_input_dtype():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(mg.float64)
    (y * y).sum().backward()
    assert x.grad.dtype is mg.float32 and x.grad.tolist() == [2.0, 4.0]


def test_is_floating_point_is_complex_itemsize_numel_is_tensor():
    x = mg.zeros(2, 3, dtype=mg.float64)
    assert mg.is_floating_point(x) and x.is_floating_point()
    assert not mg.is_floating_point(mg.tensor([1]))
    assert not mg.is_complex(x) and not x.is_complex()
    assert x.itemsize == 8 and x.element_size() == 8 and x.nbytes == 48
    assert mg.numel(x) == 6 and mg.is_tensor(x) and not mg.is_tensor(np.zeros(2))


def test_finfo_and_iinfo_match_torch():
    torch = pytest.importorskip("torch")
    for name in ["float16", "float32", "float64"]:
        ours, theirs = mg.finfo(getattr(mg, name)), torch.finfo(getattr(torch, name))
        assert repr(ours) == repr(theirs)
        for field in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                      "dtype"]:
            assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(mg.finfo()) == repr(torch.finfo())
    for name in ["uint8", "int8", "int16", "int32", "int64"]:
        ours, theirs = mg.iinfo(getattr(mg, name)), torch.iinfo(getattr(torch, name))
        assert repr(ours) == repr(theirs)
        assert (ours.bits, ours.min, ours.max, ours.dtype) == \
            (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        mg.finfo(mg.int32)
    with pytest.raises(TypeError, match="requires an integer input type"):
        mg.iinfo(mg.float32)


def test_float32_stays_float32_through_ops_with_python_numbers():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2.5 + 1).exp().sum()
    y.backward()
    assert y.dtype is mg.float32 and x.grad.dtype is mg.float32


def test_generated_gradcheck_samples_are_float64():
    from minigrad.testing import TensorSpec
    sample = TensorSpec(shape=(2,)).build(np.random.default_rng(0))
    assert sample.dtype is mg.float64


def test_new_factories_take_the_calling_tensors_dtype_like_torch():
    torch = pytest.importorskip("torch")
    calls = [lambda x, m: x.new_tensor([1, 2]), lambda x, m: x.new_zeros(2, 3),
             lambda x, m: x.new_zeros((2,)), lambda x, m: x.new_ones([2]),
             lambda x, m: x.new_full((2,), 3), lambda x, m: x.new_empty(2),
             lambda x, m: x.new_zeros(2, dtype=m.int64)]
    for make in [lambda m: m.ones(2, dtype=m.float64), lambda m: m.tensor([1])]:
        for call in calls:
            ours, theirs = call(make(mg), mg), call(make(torch), torch)
            assert repr(ours.dtype) == repr(theirs.dtype).replace("torch", "minigrad")
            assert ours.shape == tuple(theirs.shape)
    assert mg.tensor([1]).new_full((1,), 2.5).tolist() == [2]
    assert mg.zeros(1).new_zeros(2, requires_grad=True).requires_grad


def _polynomial_fit(torch, steps):
    """PyTorch's "tensors and autograd" tutorial (float32, device plumbing), weights set
    from one source so both libraries start alike."""
    import math
    dtype, device = torch.float, torch.device("cpu")
    x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = torch.sin(x)
    params = [torch.randn((), device=device, dtype=dtype, requires_grad=True) for _ in range(4)]
    with torch.no_grad():
        for p, v in zip(params, (0.1, -0.2, 0.3, 0.05)):
            p.fill_(v)
    a, b, c, d = params
    for _ in range(steps):
        loss = (a + b * x + c * x ** 2 + d * x ** 3 - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 1e-6 * p.grad
                p.grad = None
    return loss, params


def test_the_float32_tutorial_script_runs_unchanged_and_matches_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _polynomial_fit(mg, 300), _polynomial_fit(torch, 300)
    assert ours[0].dtype is mg.float32 and all(p.dtype is mg.float32 for p in ours[1])
    np.testing.assert_allclose(ours[0].item(), theirs[0].item(), rtol=1e-5)
    np.testing.assert_allclose([p.item() for p in ours[1]], [p.item() for p in theirs[1]],
                               rtol=1e-4, atol=1e-6)


def test_the_legacy_tensor_constructor_matches_torch():
    torch = pytest.importorskip("torch")
    for args in [(2, 3), (3,), ([1, 2],), ([1.5, 2.0],), ([True, False],), ((2, 3),), ()]:
        ours, theirs = mg.Tensor(*args), torch.Tensor(*args)
        assert ours.shape == tuple(theirs.shape), args
        assert repr(ours.dtype) == repr(theirs.dtype).replace("torch", "minigrad"), args
        if args and not all(isinstance(a, int) for a in args):
            assert ours.tolist() == theirs.tolist()
    assert mg.Tensor(np.zeros(2)).dtype is mg.float64  # numpy arrays keep their dtype (torch: float32)
    with pytest.raises(TypeError, match="minigrad.tensor"):
        mg.Tensor([1.0], 2)


def test_legacy_tensor_types_match_torch():
    torch = pytest.importorskip("torch")
    for name in ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor",
                 "CharTensor", "ByteTensor", "BoolTensor", "HalfTensor"]:
        ours, theirs = getattr(mg, name), getattr(torch, name)
        assert repr(ours) == repr(theirs).replace("torch", "minigrad")
        assert repr(ours.dtype) == repr(theirs.dtype).replace("torch", "minigrad")
        for args in [([1, 0],), (2, 3), ()]:
            made, want = ours(*args), theirs(*args)
            assert made.shape == tuple(want.shape) and made.dtype is ours.dtype
        assert isinstance(ours([1]), ours) and isinstance(theirs([1]), theirs)
        x, t = mg.tensor([1.5, 0.0]), torch.tensor([1.5, 0.0])
        assert x.type(ours).tolist() == t.type(theirs).tolist()
        assert x.type(ours).type() == t.type(theirs).type().replace("torch", "minigrad")
    assert not isinstance(mg.zeros(2), mg.LongTensor)


@pytest.mark.parametrize("make", [lambda L: L.logspace(0, 2, 3), lambda L: L.logspace(0, 3, 4, base=2),
                                  lambda L: L.logspace(-1, 1, 3, dtype=L.float64)])
def test_logspace_as_torch(make):
    torch = pytest.importorskip("torch")
    ours, theirs = make(mg), make(torch)
    assert repr(ours) == repr(theirs).replace("torch", "minigrad")


def test_nelement_is_numel():
    assert mg.ones(2, 3).nelement() == 6


CONVERSIONS = [lambda x: x.long(), lambda x: x.int(), lambda x: x.bool(),
               lambda x: x.to(mg.int32), lambda x: x.type(mg.LongTensor), lambda x: (x * 2.7).long()]


@pytest.mark.parametrize("convert", CONVERSIONS)
def test_a_conversion_to_integers_leaves_the_graph_as_in_torch(convert):
    x = mg.ones(2, requires_grad=True)
    converted = convert(x)
    assert not converted.requires_grad and converted.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        converted.sum().backward()
    assert x.double().requires_grad  # a floating conversion stays differentiable


def test_bfloat16_can_be_named_and_says_it_holds_no_tensors():
    """nanoGPT's table of dtypes names torch.bfloat16: it imports; any tensor of it raises
    a TypeError naming what to use (numpy has no bfloat16)."""
    table = {"float32": mg.float32, "bfloat16": mg.bfloat16, "float16": mg.float16}
    assert table["bfloat16"] == mg.bfloat16 and mg.bfloat16 != mg.float16
    assert mg.bfloat16.is_floating_point and mg.bfloat16.itemsize == 2
    assert repr(mg.bfloat16) == "minigrad.bfloat16"
    for use in (lambda: mg.ones(2, dtype=mg.bfloat16), lambda: mg.ones(2).to(mg.bfloat16),
                lambda: mg.ones(2).bfloat16(), lambda: mg.nn.Linear(2, 2).bfloat16(),
                lambda: mg.set_default_dtype(mg.bfloat16)):
        with pytest.raises(TypeError, match="minigrad has no bfloat16 tensors"):
            use()
