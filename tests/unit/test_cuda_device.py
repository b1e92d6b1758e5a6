"""Tensors on "cuda", checked on CPU CI with the CuPy-like test backend (fake_cuda).

The fake backend refuses implicit conversion to numpy and host operands, as CuPy does,
so these tests fail wherever minigrad would silently pull GPU data to the host. PyTorch's
behaviour (error types and messages, what stays on which device) is the specification.
"""
import io

import numpy as np
import pytest

import minigrad as mg
from minigrad._array import fake_cuda

TORCH_NUMPY_ERROR = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy "
                     "the tensor to host memory first.")
TORCH_MIXED_ERROR = ("Expected all tensors to be on the same device, but found at least two "
                     "devices, cuda:0 and cpu!")


@pytest.fixture(autouse=True)
def cuda(fake_gpu):
    """The fake GPU as "cuda" for every test here (tests/conftest.py)."""
    yield


def test_cuda_is_available_and_describes_itself():
    assert mg.cuda.is_available() and mg.cuda.device_count() == fake_cuda.DEVICE_COUNT
    assert mg.cuda.current_device() == 0 and "Fake" in mg.cuda.get_device_name()
    mg.cuda.set_device(1)
    assert mg.cuda.current_device() == 1 and mg.zeros(2, device="cuda").device == mg.device("cuda:1")
    mg.cuda.set_device(0)
    mg.cuda.synchronize()
    mg.cuda.empty_cache()
    mg.cuda.manual_seed_all(0)


@pytest.mark.parametrize("make", [
    lambda: mg.zeros(2, 3, device="cuda"), lambda: mg.ones(2, device="cuda:0"),
    lambda: mg.tensor([1.0, 2.0], device="cuda"), lambda: mg.randn(3, device="cuda"),
    lambda: mg.arange(4, device="cuda"), lambda: mg.full((2,), 3.0, device="cuda"),
    lambda: mg.zeros_like(mg.ones(2, device="cuda")), lambda: mg.rand_like(mg.ones(2).cuda()),
    lambda: mg.ones(2).cuda().new_zeros(3), lambda: mg.eye(2, device=mg.device("cuda", 0))])
def test_factories_put_the_values_on_the_gpu(make):
    t = make()
    assert t.is_cuda and t.device == mg.device("cuda:0") and str(t.device) == "cuda:0"
    assert type(t._data) is fake_cuda.FakeCudaArray


def test_to_cuda_and_back_keeps_values_and_gradients_flow_back():
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.to("cuda")
    assert y.is_cuda and y.requires_grad and x.to("cpu") is x and y.cuda() is y
    z = (y * y).sum()
    assert z.is_cuda
    z.backward()
    assert not x.grad.is_cuda
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0])
    back = y.detach().cpu()
    assert not back.is_cuda and back.tolist() == [1.0, -2.0, 3.0]


def test_numpy_and_implicit_conversion_of_a_cuda_tensor_raise_torchs_error():
    t = mg.ones(2, device="cuda")
    with pytest.raises(TypeError) as ours:
        t.numpy()
    assert str(ours.value) == TORCH_NUMPY_ERROR
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor"):
        np.asarray(t)
    assert t.cpu().numpy().tolist() == [1.0, 1.0] and t.numpy(force=True).tolist() == [1.0, 1.0]
    assert t.sum().item() == 2.0 and float(t.sum()) == 2.0


def test_repr_shows_the_device_like_torch():
    torch = pytest.importorskip("torch")
    t = mg.tensor([1.0, 2.0], dtype=mg.float64, device="cuda", requires_grad=True)
    expected = "tensor([1., 2.], device='cuda:0', dtype=torch.float64, requires_grad=True)"
    assert repr(t) == expected.replace("torch.", "minigrad.")
    assert repr(torch.tensor([1.0, 2.0])) == repr(mg.tensor([1.0, 2.0]))


@pytest.mark.parametrize("op", [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a @ b,
                                lambda a, b: mg.cat([a, b]), lambda a, b: mg.where(a > 0, a, b)])
def test_mixing_devices_raises_torchs_error(op):
    a, b = mg.ones(2, device="cuda"), mg.ones(2)
    with pytest.raises(RuntimeError) as info:
        op(a, b)
    assert str(info.value) == TORCH_MIXED_ERROR


def test_mixing_two_gpus_names_both():
    a, b = mg.ones(2, device="cuda:0"), mg.ones(2, device="cuda:1")
    with pytest.raises(RuntimeError, match="cuda:0 and cuda:1"):
        a + b


def test_copy_between_devices_is_allowed_as_in_torch():
    gpu = mg.zeros(3, device="cuda")
    gpu.copy_(mg.tensor([1.0, 2.0, 3.0]))
    assert gpu.is_cuda and gpu.cpu().tolist() == [1.0, 2.0, 3.0]
    cpu = mg.zeros(3)
    cpu.copy_(gpu)
    assert not cpu.is_cuda and cpu.tolist() == [1.0, 2.0, 3.0]


def test_default_device_cuda():
    mg.set_default_device("cuda")
    assert mg.zeros(2).is_cuda and mg.tensor([1.0]).is_cuda and mg.randn(2).is_cuda
    assert not mg.zeros(2, device="cpu").is_cuda


def test_save_on_gpu_and_load_anywhere():
    state = {"w": mg.tensor([1.0, 2.0], device="cuda"), "b": mg.tensor([3.0])}
    buffer = io.BytesIO()
    mg.save(state, buffer)
    same = mg.load(io.BytesIO(buffer.getvalue()))
    assert same["w"].is_cuda and not same["b"].is_cuda  # back where they were saved, as torch
    cpu = mg.load(io.BytesIO(buffer.getvalue()), map_location="cpu")
    assert not cpu["w"].is_cuda and cpu["w"].tolist() == [1.0, 2.0]
    gpu = mg.load(io.BytesIO(buffer.getvalue()), map_location={"cpu": "cuda:1"})
    assert gpu["b"].device == mg.device("cuda:1") and gpu["w"].device == mg.device("cuda:0")


def test_load_of_a_cuda_checkpoint_without_a_gpu_says_to_map_it():
    buffer = io.BytesIO()
    mg.save({"w": mg.ones(1, device="cuda")}, buffer)
    fake_cuda.uninstall()
    try:
        with pytest.raises(RuntimeError, match="map_location=minigrad.device\\('cpu'\\)"):
            mg.load(io.BytesIO(buffer.getvalue()))
        assert not mg.load(io.BytesIO(buffer.getvalue()), map_location="cpu")["w"].is_cuda
    finally:
        fake_cuda.install()


def _train(device, steps=30):
    """A small MLP trained with Adam on batches from a DataLoader; returns the losses."""
    mg.manual_seed(0)
    xs = mg.randn(64, 4)
    ys = (xs[:, :1] * 2 - xs[:, 1:2]).tanh()
    loader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(xs, ys), batch_size=16,
                                      pin_memory=True)
    model = mg.nn.Sequential(mg.nn.Linear(4, 16), mg.nn.ReLU(), mg.nn.Linear(16, 1)).to(device)
    opt = mg.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(steps // len(loader)):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = mg.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return model, opt, losses


def test_training_on_the_gpu_matches_the_cpu():
    cpu_model, _, cpu_losses = _train("cpu")
    gpu_model, opt, gpu_losses = _train("cuda")
    assert all(p.is_cuda for p in gpu_model.parameters())
    state = opt.state[next(iter(gpu_model.parameters()))]
    assert state["exp_avg"].is_cuda and state["exp_avg_sq"].is_cuda
    assert gpu_losses[-1] < gpu_losses[0]
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-6)  # the fake computes with numpy


def test_module_and_optimizer_state_survive_save_load_on_the_gpu():
    model, opt, _ = _train("cuda", steps=8)
    buffer = io.BytesIO()
    mg.save({"model": model.state_dict(), "opt": opt.state_dict()}, buffer)
    checkpoint = mg.load(io.BytesIO(buffer.getvalue()), map_location="cpu")
    fresh = mg.nn.Sequential(mg.nn.Linear(4, 16), mg.nn.ReLU(), mg.nn.Linear(16, 1)).cuda()
    fresh.load_state_dict(checkpoint["model"])  # CPU tensors into GPU parameters
    assert all(p.is_cuda for p in fresh.parameters())
    for a, b in zip(fresh.parameters(), model.parameters()):
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    fresh_opt = mg.optim.Adam(fresh.parameters(), lr=0.01)
    fresh_opt.load_state_dict(checkpoint["opt"])
    state = fresh_opt.state[next(iter(fresh.parameters()))]
    assert state["exp_avg"].is_cuda  # state follows the parameter's device, as torch's


def test_module_cpu_brings_everything_back():
    model = mg.nn.Linear(3, 2).cuda()
    assert model.weight.is_cuda and model.bias.is_cuda
    model.cpu()
    assert not model.weight.is_cuda


def test_pin_memory_is_copy_free_and_refuses_gpu_tensors_as_torch():
    t = mg.ones(3)
    assert t.pin_memory() is t and not t.is_pinned()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        t.cuda().pin_memory()


def test_assigning_a_grad_from_another_device_raises_torchs_error():
    x = mg.zeros(2, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="device type 'cpu' to a tensor with device type 'cuda'"):
        x.grad = mg.zeros(2)


def test_save_on_cpu_hooks_move_saved_tensors_and_back():
    x = mg.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    with mg.autograd.graph.save_on_cpu():
        y = (x * x).sum()
    y.backward()
    assert x.grad.is_cuda and x.grad.cpu().tolist() == [2.0, 4.0]


def test_collectives_stage_gpu_tensors_through_host_memory():
    from minigrad.distributed import collectives
    t = mg.tensor([1.0, 2.0], device="cuda")
    buffer, write_back = collectives._buffer(t)
    assert type(buffer) is np.ndarray  # what MPI (not CUDA-aware) is handed
    write_back(np.array([5.0, 6.0], dtype=np.float32))
    assert t.is_cuda and t.cpu().tolist() == [5.0, 6.0] and t._version == 1


def test_compiled_function_runs_on_the_gpu():
    f = mg.compile(lambda x: (x * 0.5).tanh().sum())
    x = mg.tensor([0.1, 0.2, 0.3], device="cuda", requires_grad=True)
    f(x)
    y = f(x)
    y.backward()
    assert y.is_cuda and x.grad.is_cuda
    expected = 0.5 * (1 - np.tanh(0.5 * np.array([0.1, 0.2, 0.3])) ** 2)
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected, rtol=1e-6)


def test_comparisons_across_devices_raise_torchs_error():
    with pytest.raises(RuntimeError, match="same device"):
        mg.ones(2, device="cuda") == mg.ones(2)
    assert (mg.ones(2, device="cuda") == mg.ones(2, device="cuda")).is_cuda


def test_data_parallel_on_one_gpu_moves_inputs_and_refuses_several():
    from minigrad.nn.parallel import DataParallel
    model = DataParallel(mg.nn.Linear(3, 2).cuda(), device_ids=[0])
    assert model(mg.ones(4, 3)).is_cuda
    with pytest.raises(NotImplementedError, match="DistributedDataParallel"):
        DataParallel(mg.nn.Linear(3, 2), device_ids=[0, 1])


def test_grad_output_on_another_device_raises_torchs_error():
    x = mg.ones(2, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="invalid gradient at index 0 - expected device cuda:0 "
                                           "but got cpu"):
        mg.autograd.grad(x * 2, x, mg.ones(2))


def test_zero_dim_cpu_tensors_mix_with_gpu_tensors_as_in_torch():
    x = mg.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    scale = mg.tensor(3.0, requires_grad=True)  # 0-d, on the CPU
    y = (x * scale + mg.tensor(1.0)).sum()
    assert y.is_cuda and (x > mg.tensor(1.5)).is_cuda
    y.backward()
    assert x.grad.is_cuda and not scale.grad.is_cuda and scale.grad.item() == 3.0
    with pytest.raises(RuntimeError, match="same device"):
        x * mg.tensor([3.0, 3.0])  # one dimension: not a scalar, refused
