"""Where CuPy differs from numpy, as the first run on a real GPU (an H200, CuPy 14) found.

Each test runs the same program on the CPU and on "cuda" and wants the same results (or
PyTorch's error on both).  On CPU CI "cuda" is the CuPy-like test backend, which mirrors
each of these differences (minigrad/_array/fake_cuda.py); on a MINIGRAD_TEST_DEVICE=cuda
run it is the real GPU.
"""
import numpy as np
import pytest

import minigrad as mg

OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single"


@pytest.fixture(autouse=True)
def cuda(fake_gpu):
    yield


def _both(program):
    """``program(device)``'s results on the CPU and on cuda, as numpy arrays."""
    results = []
    for device in ("cpu", "cuda"):
        out = program(device)
        results.append([o.detach().cpu().numpy() for o in out])
    return results


def _assert_same(program, rtol=1e-12):
    mine, theirs = _both(program)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-12)


def test_setting_an_element_to_a_python_number():
    def program(device):
        y = mg.arange(4.0, device=device, requires_grad=True) * 1.0
        y[0] = 0.0      # a copy of a Python number into a 0-d view (CuPy broadcasts arrays only)
        y[1:3] = 5
        return [y]
    _assert_same(program)


def test_partly_overlapping_copy_is_refused_on_the_gpu_too():
    x = mg.arange(6.0, device="cuda")
    with pytest.raises(RuntimeError, match=OVERLAP):
        x[1:].copy_(x[:-1])     # the check reads the arrays' addresses (CuPy has no __array_interface__)


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_with_repeated_targets(include_self):
    # CuPy has no multiply.at: the products are taken in rounds
    index = [[0, 1, 0, 0, 2], [1, 1, 1, 0, 0]]

    def program(device):
        x = mg.tensor(np.linspace(0.5, 1.5, 6).reshape(2, 3), device=device, requires_grad=True)
        src = mg.tensor(np.linspace(0.7, 1.3, 10).reshape(2, 5), device=device,
                        requires_grad=True)
        out = x.scatter_reduce(1, mg.tensor(index, device=device), src, "prod",
                               include_self=include_self)
        grads = mg.autograd.grad((out * out).sum(), [x, src])
        return [out, *grads]
    _assert_same(program)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin", "mean"])
def test_scatter_reduce_extremes_share_the_gradient(reduce, include_self):
    # float64 values float32 cannot hold, with ties: the gradient goes to the elements
    # equal to the result, so the result must be exact
    third = 1 / 3

    def program(device):
        x = mg.tensor([[third, 5.1, 2.0], [0.7, 3.3, 3.3]], device=device, requires_grad=True)
        src = mg.tensor([[5.1, third, 5.1, 0.1], [3.3, 3.3, 0.7, 9.9]], device=device,
                        requires_grad=True)
        out = x.scatter_reduce(1, mg.tensor([[1, 0, 1], [2, 1, 0]], device=device), src,
                               reduce, include_self=include_self)
        return [out, *mg.autograd.grad(out.sum(), [x, src])]
    _assert_same(program)


def test_polygamma_takes_its_order_as_a_python_int():
    def program(device):
        x = mg.tensor([0.5, 1.5, 3.0], device=device, dtype=mg.float64, requires_grad=True)
        out = mg.polygamma(2, x) + mg.digamma(x)
        (g,) = mg.autograd.grad(out.sum(), [x], create_graph=True)   # polygamma(3) and (1)
        return [out, g, *mg.autograd.grad(g.sum(), [x])]
    _assert_same(program, rtol=1e-10)


@pytest.mark.parametrize("keepdim", [False, True])
def test_reducing_a_0d_tensor_over_dim_0(keepdim):
    def program(device):
        x = mg.tensor(3.0, device=device, requires_grad=True)
        return [x.sum(0, keepdim=keepdim), x.prod(-1, keepdim=keepdim)]
    _assert_same(program)


def test_solve_broadcasts_batch_dims():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 2))

    def program(device):
        A = mg.tensor(a, device=device, requires_grad=True)
        B = mg.tensor(b, device=device, requires_grad=True)
        X = mg.linalg.solve(A, B)            # B's batch dims broadcast against A's
        v = mg.linalg.solve(A[0], mg.ones(4, 3, 1, device=device, dtype=A.dtype))
        return [X, v, *mg.autograd.grad(X.sum() + v.sum(), [A, B])]
    _assert_same(program, rtol=1e-9)


def test_det_second_derivative_of_a_singular_matrix():
    def program(device):
        A = mg.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], device=device,
                      dtype=mg.float64, requires_grad=True)
        (g,) = mg.autograd.grad(mg.linalg.det(A), [A], create_graph=True)
        return [g, *mg.autograd.grad((g * g).sum(), [A])]
    _assert_same(program, rtol=1e-9)


@pytest.mark.parametrize("op", ["inv", "solve", "cholesky"])
def test_a_failed_factorization_raises_pytorchs_error_on_the_gpu_too(op):
    # CuPy gives NaN unless asked to check cuSOLVER's status (kernels/linalg.py)
    singular = [[1.0, 2.0], [2.0, 4.0]] if op != "cholesky" else [[1.0, 2.0], [2.0, 1.0]]
    calls = {"inv": lambda a: mg.linalg.inv(a),
             "solve": lambda a: mg.linalg.solve(a, mg.ones(2, 1, dtype=a.dtype, device=a.device)),
             "cholesky": lambda a: mg.linalg.cholesky(a)}
    messages = []
    for device in ("cpu", "cuda"):
        with pytest.raises(RuntimeError) as raised:
            calls[op](mg.tensor(singular, dtype=mg.float64, device=device))
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_on_the_gpu(mode):
    # its bags are worked out on the host; the result and gradient stay on the device
    def program(device):
        bag = mg.nn.EmbeddingBag(6, 3, mode=mode).double()
        with mg.no_grad():
            bag.weight.copy_(mg.tensor(np.linspace(-1, 1, 18).reshape(6, 3)))
        bag = bag.to(device)
        text = mg.tensor([1, 2, 4, 5, 4, 3, 2], device=device)
        out = bag(text, mg.tensor([0, 2, 4], device=device))
        return [out, *mg.autograd.grad((out * out).sum(), [bag.weight])]
    _assert_same(program)


def test_a_packed_sequence_through_an_lstm_on_the_gpu():
    # the packing's permutations come back to the host; the values stay on the device
    def program(device):
        mg.manual_seed(0)
        lstm = mg.nn.LSTM(3, 4).double().to(device)
        x = mg.tensor(np.linspace(-1, 1, 5 * 3 * 3).reshape(5, 3, 3), requires_grad=True)
        packed = mg.nn.utils.rnn.pack_padded_sequence(x, [3, 5, 2], enforce_sorted=False)
        out, (h, c) = lstm(packed.to(device))   # packed on the CPU, moved whole
        padded, _ = mg.nn.utils.rnn.pad_packed_sequence(out)
        return [padded, h, *mg.autograd.grad(padded.sum() + c.sum(), [x])]
    _assert_same(program)
