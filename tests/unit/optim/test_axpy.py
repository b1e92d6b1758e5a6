"""The optimizers' one-pass update ``y += alpha * x`` (optim/_axpy.py): numpy's two-pass
result, up to a fused multiply-add's last bit, for every kind of array; SGD on float32
and non-contiguous parameters follows PyTorch."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import _threads
from minigrad.optim._axpy import add_scaled_

RNG = np.random.default_rng(1)


def _cases():
    a = RNG.standard_normal((6, 5))
    yield "float64", a.copy(), RNG.standard_normal((6, 5))
    yield "float32", a.astype(np.float32), RNG.standard_normal((6, 5)).astype(np.float32)
    yield "y a transposed view", a.copy().T, RNG.standard_normal((5, 6))
    yield "x a strided view", a.copy()[:, :2], RNG.standard_normal((6, 4))[:, ::2]
    yield "float32 y, float64 x", a.astype(np.float32), RNG.standard_normal((6, 5))
    yield "0-d", np.array(2.0), np.array(3.0)
    yield "empty", np.zeros((0, 3)), np.zeros((0, 3))
    yield "broadcast x", a.copy(), RNG.standard_normal(5)


@pytest.mark.parametrize("name,y,x", list(_cases()), ids=[c[0] for c in _cases()])
def test_equals_numpys_two_passes(name, y, x):
    expected = y.copy()
    expected += -0.3 * x
    add_scaled_(y, x, -0.3)
    np.testing.assert_allclose(y, expected, rtol=4 * np.finfo(y.dtype).eps, atol=0)
    assert y.dtype == expected.dtype


def test_x_is_y():
    y = RNG.standard_normal(7)
    expected = y * 1.5
    add_scaled_(y, y, 0.5)
    np.testing.assert_allclose(y, expected, rtol=1e-15)


def test_overlapping_views_take_numpys_path():
    base = np.arange(10.0)
    y, x = base[1:], base[:-1]
    expected = y.copy()
    expected += 2.0 * x.copy()
    add_scaled_(y, x, 2.0)
    np.testing.assert_array_equal(y, expected)


def test_integer_arrays():
    y, x = np.arange(4), np.ones(4, dtype=np.int64)
    add_scaled_(y, x, 3)
    np.testing.assert_array_equal(y, [3, 4, 5, 6])


@pytest.mark.parametrize("layout", ["float32", "transposed"])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_matches_torch(layout, momentum):
    torch = pytest.importorskip("torch")
    w0 = RNG.standard_normal((4, 3))
    x = RNG.standard_normal((8, 3))
    dtype = np.float32 if layout == "float32" else np.float64
    if layout == "transposed":   # a leaf whose storage is column-major, in both libraries
        mine = mg.tensor(w0.T.copy()).t().detach().requires_grad_()
        theirs = torch.tensor(w0.T.copy()).t().detach().requires_grad_()
        assert not mine.is_contiguous() and not theirs.is_contiguous()
    else:
        mine = mg.tensor(w0.astype(dtype), requires_grad=True)
        theirs = torch.tensor(w0.astype(dtype), requires_grad=True)
    opt = mg.optim.SGD([mine], lr=0.1, momentum=momentum)
    t_opt = torch.optim.SGD([theirs], lr=0.1, momentum=momentum)
    xm, xt = mg.tensor(x.astype(dtype)), torch.tensor(x.astype(dtype))
    for _ in range(5):
        opt.zero_grad(), t_opt.zero_grad()
        (xm @ mine.T).tanh().sum().backward()
        (xt @ theirs.T).tanh().sum().backward()
        opt.step(), t_opt.step()
    assert mine.detach().numpy().dtype == theirs.detach().numpy().dtype == dtype
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=rtol)


@pytest.mark.parametrize("size", [9_999, 10_000, 10_001, 25_000, 30_000])
def test_arrays_updated_in_pieces(size, monkeypatch):
    """Where BLAS may start threads, big arrays go to axpy a piece at a time: every piece,
    the last one short or not."""
    monkeypatch.setattr(_threads, "_set", 2)   # (BLAS may start threads)
    y, x = RNG.standard_normal(size), RNG.standard_normal(size)
    expected = y + 0.25 * x
    add_scaled_(y, x, 0.25)
    np.testing.assert_allclose(y, expected, rtol=4 * np.finfo(y.dtype).eps, atol=0)


_OTHER_THREADS = """
import resource, time
import numpy as np
from minigrad.optim._axpy import add_scaled_


def process_time():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


y, x = np.ones(1_000_000), np.ones(1_000_000)
process, mine = process_time(), time.thread_time()
for _ in range(100):
    add_scaled_(y, x, 1e-3)
time.sleep(0.2)   # (BLAS threads spin on for a while after their last work)
print(process_time() - process - (time.thread_time() - mine))
"""


def test_update_stays_on_the_calling_thread():
    """scipy's BLAS threads stay asleep: with two threads allowed, an axpy of a million
    elements ran on them (0.14 s of their CPU time here), and they then spun beside numpy's
    own BLAS threads, which made a training step 3-5x slower."""
    import os
    import subprocess
    import sys
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: BLAS starts no threads")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="2")
    others = float(subprocess.run([sys.executable, "-c", _OTHER_THREADS], env=env, check=True,
                                  capture_output=True, text=True).stdout)
    assert others < 0.03, f"other threads took {others:.3f} s of CPU time"


@pytest.mark.parametrize("variables,threads", [
    ({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}, 1),
    ({"OMP_NUM_THREADS": "3"}, 3),
    ({"OPENBLAS_NUM_THREADS": "", "GOTO_NUM_THREADS": "2"}, 2),
])
def test_blas_threads_read_as_openblas_does(variables, threads, monkeypatch):
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert _threads._from_environment() == threads
