"""Random numbers: Generator, manual_seed, the random factories and in-place initialisers.

Streams differ from PyTorch's (numpy's PCG64, not a Mersenne Twister), so these
tests check reproducibility, shapes, dtypes, ranges, distributions and errors;
messages and dtypes are compared with torch where a call runs in both.
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

DRAWS = [lambda g: mg.rand(3, generator=g), lambda g: mg.randn(2, 2, generator=g),
         lambda g: mg.randint(10, (4,), generator=g), lambda g: mg.randint(3, 9, (4,), generator=g),
         lambda g: mg.randperm(6, generator=g), lambda g: mg.normal(1.0, 2.0, (3,), generator=g),
         lambda g: mg.bernoulli(mg.full((5,), 0.5), generator=g),
         lambda g: mg.multinomial(mg.tensor([1.0, 2.0, 3.0]), 2, generator=g),
         lambda g: mg.zeros(3).normal_(generator=g),
         lambda g: mg.zeros(3).uniform_(-1, 1, generator=g),
         lambda g: mg.zeros(3).bernoulli_(0.3, generator=g),
         lambda g: mg.zeros(3).exponential_(generator=g),
         lambda g: mg.zeros(3).random_(5, generator=g)]


@pytest.mark.parametrize("draw", DRAWS)
def test_a_seeded_generator_repeats_its_stream(draw):
    first = draw(mg.Generator().manual_seed(7)).tolist()
    assert draw(mg.Generator().manual_seed(7)).tolist() == first


@pytest.mark.parametrize("draw", DRAWS)
def test_manual_seed_makes_the_global_stream_repeat(draw):
    mg.manual_seed(3)
    first = draw(None).tolist()
    mg.manual_seed(3)
    assert draw(None).tolist() == first


def test_a_private_generator_does_not_move_the_global_stream():
    mg.manual_seed(0)
    expected = mg.rand(4).tolist()
    mg.manual_seed(0)
    mg.rand(100, generator=mg.Generator().manual_seed(1))
    assert mg.rand(4).tolist() == expected


def test_generator_seed_state_api():
    torch = pytest.importorskip("torch")
    g = mg.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()
    assert g.manual_seed(42) is g and g.initial_seed() == 42
    assert mg.manual_seed(5) is mg.default_generator and mg.initial_seed() == 5
    state = g.get_state()
    assert state.dtype is mg.uint8
    a = mg.rand(5, generator=g).tolist()
    assert g.set_state(state) is g and mg.rand(5, generator=g).tolist() == a
    saved = mg.get_rng_state()
    b = mg.randn(3).tolist()
    mg.set_rng_state(saved)
    assert mg.randn(3).tolist() == b
    with mg.random.fork_rng():
        mg.rand(10)
    assert mg.randn(3).tolist() != b  # the stream moved on past b, not past the fork
    assert mg.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed()


def test_generator_errors_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
            lib.Generator().manual_seed(1.5)
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            lib.Generator().manual_seed(2 ** 64)
        with pytest.raises(RuntimeError, match="RNG state size"):
            lib.Generator().set_state(lib.zeros(3, dtype=lib.uint8))


def test_shapes_dtypes_and_ranges_match_torch():
    torch = pytest.importorskip("torch")
    calls = [lambda m: m.rand(2, 3), lambda m: m.rand((2, 3)), lambda m: m.randn([4]),
             lambda m: m.rand(2, dtype=m.float64), lambda m: m.randint(5, (3, 2)),
             lambda m: m.randint(2, 5, (7,)), lambda m: m.randint(0, 5, size=(2,)),
             lambda m: m.randint(0, 5, (2,), dtype=m.float32), lambda m: m.randperm(5),
             lambda m: m.rand_like(m.zeros(2, dtype=m.float64)),
             lambda m: m.randn_like(m.zeros(2)), lambda m: m.randint_like(m.zeros(3), 5),
             lambda m: m.randint_like(m.zeros(3, dtype=m.int32), 2, 5),
             lambda m: m.normal(m.zeros(2, 3), 1.0), lambda m: m.normal(0.0, m.ones(4)),
             lambda m: m.normal(m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)),
             lambda m: m.bernoulli(m.tensor([0.0, 1.0])),
             lambda m: m.bernoulli(m.zeros(3, dtype=m.float64), 0.5),
             lambda m: m.multinomial(m.tensor([1.0, 0.0, 1.0]), 2),
             lambda m: m.multinomial(m.tensor([[1.0, 2.0], [1.0, 1.0]]), 4, replacement=True)]
    for call in calls:
        ours, theirs = call(mg), call(torch)
        assert ours.shape == tuple(theirs.shape)
        assert repr(ours.dtype) == repr(theirs.dtype).replace("torch", "minigrad")
    assert sorted(mg.randperm(8).tolist()) == list(range(8))
    r = mg.randint(2, 5, (1000,)).numpy()
    assert r.min() == 2 and r.max() == 4
    assert mg.bernoulli(mg.tensor([0.0, 1.0])).tolist() == [0.0, 1.0]


def test_distributions_have_the_right_moments():
    g = mg.Generator().manual_seed(0)
    n = 20000
    u = mg.rand(n, generator=g).numpy()
    z = mg.randn(n, generator=g).numpy()
    e = mg.zeros(n).exponential_(2.0, generator=g).numpy()
    v = mg.zeros(n).uniform_(-3, 1, generator=g).numpy()
    w = mg.normal(5.0, 0.5, (n,), generator=g).numpy()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    assert abs(e.mean() - 0.5) < 0.02 and e.min() >= 0
    assert -3 <= v.min() and v.max() < 1 and abs(v.mean() + 1) < 0.03
    assert abs(w.mean() - 5) < 0.01 and abs(w.std() - 0.5) < 0.01
    counts = np.bincount(mg.multinomial(mg.tensor([1.0, 3.0]), n, replacement=True,
                                        generator=g).numpy(), minlength=2)
    assert abs(counts[1] / n - 0.75) < 0.01


def test_multinomial_without_replacement_draws_distinct_categories_zero_weights_last():
    g = mg.Generator().manual_seed(0)
    for _ in range(20):
        picks = mg.multinomial(mg.tensor([1.0, 0.0, 2.0, 0.0]), 3, generator=g).tolist()
        assert len(set(picks)) == 3 and set(picks[:2]) == {0, 2}


def test_random_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [(lambda m: m.normal(m.zeros(2), -1.0), RuntimeError, "normal expects std >= 0.0"),
             (lambda m: m.bernoulli(m.tensor([2.0])), RuntimeError,
              r"Expected p_in >= 0 && p_in <= 1 to be true"),
             (lambda m: m.multinomial(m.tensor([1.0, 1.0]), 3), RuntimeError,
              "cannot sample n_sample > prob_dist.size"),
             (lambda m: m.multinomial(m.tensor([-1.0, 2.0]), 1), RuntimeError,
              "probability tensor contains either `inf`, `nan` or element < 0"),
             (lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1), RuntimeError,
              r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
             (lambda m: m.zeros(2, requires_grad=True).normal_(), RuntimeError,
              "a leaf Variable that requires grad is being used in an in-place operation"),
             (lambda m: m.randint(5), TypeError, "randint"),
             (lambda m: m.normal(0.0, 1.0), TypeError, "normal")]
    for call, error, message in cases:
        for lib in (mg, torch):
            with pytest.raises(error, match=message):
                call(lib)


def test_in_place_initialisers_write_in_place_under_no_grad():
    w = mg.zeros(3, 4, requires_grad=True)
    version = w._version
    with mg.no_grad():
        assert w.normal_(0.0, 0.02) is w and w.uniform_(-0.1, 0.1) is w
    assert w._version > version and w.requires_grad and w.is_leaf
    assert np.all(np.abs(w.detach().numpy()) <= 0.1)
    x = mg.zeros(4, dtype=mg.int64)
    x.random_(0, 3)
    assert x.dtype is mg.int64 and x.numpy().max() < 3
    assert mg.zeros(1000).random_().numpy().max() <= 2 ** 24


def test_in_place_fill_of_a_non_leaf_cuts_the_gradient_there():
    x = mg.ones(3, requires_grad=True)
    y = x * 2
    y.normal_()
    (y * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def test_dropout_draws_from_the_global_generator():
    x = mg.ones(100)
    mg.manual_seed(11)
    first = F.dropout(x, 0.5).tolist()
    mg.manual_seed(11)
    assert F.dropout(x, 0.5).tolist() == first
    assert F.dropout2d(mg.ones(2, 8, 3, 3), 0.5).shape == (2, 8, 3, 3)


def test_like_functions_take_numpy_dtypes_too():
    x = mg.zeros(2)
    assert mg.rand_like(x, dtype=np.dtype("float64")).dtype is mg.float64
    assert mg.randn_like(x, dtype=np.float64).dtype is mg.float64
    assert mg.randint_like(x, 3, dtype=np.dtype("int64")).dtype is mg.int64


CONTINUOUS_ON_INTEGERS = [
    lambda L: L.randn(3, dtype=L.long), lambda L: L.rand(3, dtype=L.int32),
    lambda L: L.randn_like(L.zeros(2, dtype=L.long)),
    lambda L: L.rand_like(L.zeros(2, dtype=L.bool)),
    lambda L: L.normal(0.0, 1.0, (2,), dtype=L.long),
    lambda L: L.normal(L.zeros(2, dtype=L.long), 1.0),
    lambda L: L.zeros(2, dtype=L.long).normal_(),
    lambda L: L.zeros(2, dtype=L.uint8).uniform_(),
    lambda L: L.zeros(2, dtype=L.long).exponential_()]


@pytest.mark.parametrize("draw", CONTINUOUS_ON_INTEGERS)
def test_continuous_draws_refuse_integer_dtypes_as_torch(draw):
    # numpy would truncate the draws to integers; torch has no such kernel
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        draw(torch)
    with pytest.raises(type(theirs.value)) as ours:
        draw(mg)
    assert str(ours.value) == str(theirs.value)
