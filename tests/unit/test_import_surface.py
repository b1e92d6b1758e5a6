"""The modules real PyTorch scripts touch at the top import cleanly; what minigrad does not
do raises a clear error when called, never at import."""
import subprocess
import sys
import warnings

import pytest

import minigrad as mg


def test_plain_import_reaches_the_submodules_scripts_use():
    # a fresh interpreter: nothing imported by the test run can stand in for `import minigrad`
    code = ("import minigrad\n"
            "minigrad.utils.checkpoint.checkpoint\n"
            "minigrad.cuda.is_available(); minigrad.backends.cudnn.deterministic = True\n"
            "minigrad.amp.GradScaler; minigrad.onnx.export; minigrad.random.manual_seed\n"
            "import minigrad.nn.parallel\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", ["minigrad.cuda", "minigrad.cuda.amp", "minigrad.amp",
                                  "minigrad.backends", "minigrad.backends.cudnn",
                                  "minigrad.onnx", "minigrad.nn.parallel",
                                  "minigrad.utils.checkpoint", "minigrad.random"])
def test_modules_import_without_warnings(name):
    code = f"import warnings; warnings.simplefilter('error'); import {name}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_version_is_tensor_numel():
    assert isinstance(mg.__version__, str) and mg.__version__.count(".") >= 2
    assert mg.is_tensor(mg.zeros(1)) and not mg.is_tensor([1.0])
    assert mg.numel(mg.zeros(2, 5)) == 10


def test_backends_flags_are_settable_like_torch():
    torch = pytest.importorskip("torch")
    for name in ("deterministic", "benchmark", "enabled", "allow_tf32"):
        assert getattr(mg.backends.cudnn, name) == getattr(torch.backends.cudnn, name)
    old = mg.backends.cudnn.deterministic
    mg.backends.cudnn.deterministic = True
    assert mg.backends.cudnn.deterministic is True
    mg.backends.cudnn.deterministic = old
    mg.backends.cuda.matmul.allow_tf32 = True
    mg.backends.cuda.matmul.allow_tf32 = False
    assert mg.backends.cudnn.is_available() is False and mg.backends.mps.is_available() is False


def test_disabled_amp_passes_through_like_torch():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autocast("cpu", enabled=False):
        loss = (x * x).sum()
    scaler = mg.amp.GradScaler("cpu", enabled=False)
    assert scaler.scale(loss) is loss and not scaler.is_enabled() and scaler.get_scale() == 1.0

    class Step:
        calls = 0

        def step(self):
            Step.calls += 1
    scaler.step(Step())
    scaler.update()
    assert Step.calls == 1


def test_cuda_amp_without_a_gpu_disables_itself_with_a_warning_as_torch_does():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = mg.cuda.amp.GradScaler()
    assert not scaler.is_enabled()
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with mg.autocast("cuda"):
            pass


def test_what_minigrad_does_not_do_says_so_when_called():
    with pytest.raises(NotImplementedError, match="no automatic mixed precision"):
        with mg.autocast("cpu", dtype=mg.float16):
            pass

    @mg.autocast("cpu")
    def forward():
        return 1
    with pytest.raises(NotImplementedError, match="no automatic mixed precision"):
        forward()
    with pytest.raises(NotImplementedError, match="ONNX"):
        mg.onnx.export(None, (), "model.onnx")
    assert mg.onnx.is_in_onnx_export() is False


def test_names_scripts_use_exist_like_torch():
    torch = pytest.importorskip("torch")
    names = ["float", "double", "half", "long", "int", "short", "bool", "float16", "float32",
             "float64", "int8", "int16", "int32", "int64", "uint8", "dtype", "device",
             "Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
             "default_generator", "rand", "randn", "randint", "randperm", "rand_like",
             "randn_like", "randint_like", "normal", "bernoulli", "multinomial",
             "get_default_dtype", "set_default_dtype", "finfo", "iinfo", "is_tensor", "numel",
             "is_floating_point", "is_complex", "as_tensor", "from_numpy", "autocast",
             "__version__", "cuda", "backends", "amp", "onnx", "utils", "random"]
    for name in names:
        assert hasattr(torch, name), name
        assert hasattr(mg, name), name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ["normal_", "uniform_", "zero_", "fill_", "bernoulli_", "exponential_",
                     "random_", "bernoulli", "multinomial", "to", "cpu", "cuda", "type",
                     "double", "float", "half", "long", "int", "bool", "device", "dtype",
                     "is_cuda", "element_size", "itemsize", "nbytes"]:
            assert hasattr(torch.Tensor, name), name
            assert hasattr(mg.Tensor, name), name


def test_global_switches_scripts_set_at_the_top():
    torch = pytest.importorskip("torch")
    assert mg.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
    assert mg.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
    mg.use_deterministic_algorithms(True, warn_only=True)
    assert mg.are_deterministic_algorithms_enabled()
    assert mg.is_deterministic_algorithms_warn_only_enabled()
    mg.use_deterministic_algorithms(False)
    mg.set_float32_matmul_precision("high")
    assert mg.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="has no effect"):
        mg.set_float32_matmul_precision("fast")
    assert mg.get_float32_matmul_precision() == "high"
    mg.set_float32_matmul_precision("highest")
    with pytest.raises(TypeError, match="argument 'mode' \\(position 1\\) must be bool, not int"):
        mg.use_deterministic_algorithms(1)
