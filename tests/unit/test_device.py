"""Device plumbing: minigrad.device, Tensor.device, device= on factories, .to/.cpu/.cuda."""
import pickle

import pytest

import minigrad as mg

FACTORIES = [lambda m, d: m.tensor([1.0], device=d), lambda m, d: m.zeros(2, device=d),
             lambda m, d: m.ones(2, device=d), lambda m, d: m.empty(2, device=d),
             lambda m, d: m.full((2,), 1.0, device=d), lambda m, d: m.arange(3, device=d),
             lambda m, d: m.linspace(0, 1, 3, device=d), lambda m, d: m.eye(2, device=d),
             lambda m, d: m.rand(2, device=d), lambda m, d: m.randn(2, device=d),
             lambda m, d: m.randint(0, 3, (2,), device=d), lambda m, d: m.randperm(3, device=d),
             lambda m, d: m.zeros_like(m.ones(2), device=d),
             lambda m, d: m.ones_like(m.ones(2), device=d),
             lambda m, d: m.full_like(m.ones(2), 3.0, device=d),
             lambda m, d: m.empty_like(m.ones(2), device=d),
             lambda m, d: m.rand_like(m.ones(2), device=d),
             lambda m, d: m.randn_like(m.ones(2), device=d),
             lambda m, d: m.randint_like(m.ones(2), 5, device=d),
             lambda m, d: m.normal(0.0, 1.0, (2,), device=d),
             lambda m, d: m.as_tensor([1.0], device=d)]


def test_device_objects_match_torch():
    torch = pytest.importorskip("torch")
    for args in [("cpu",), ("cuda",), ("cuda:1",), ("cuda", 0)]:
        ours, theirs = mg.device(*args), torch.device(*args)
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
        assert (ours.type, ours.index) == (theirs.type, theirs.index)
    assert mg.device("cpu") == mg.device("cpu") and mg.device(mg.device("cpu")) == mg.device("cpu")
    assert mg.device("cuda:0") != mg.device("cuda:1")
    assert hash(mg.device("cpu")) == hash(mg.device("cpu"))
    # as in torch, a device is not equal to its string; compare .type or str(device)
    assert (mg.device("cpu") == "cpu") == (torch.device("cpu") == "cpu")
    assert mg.device("cpu").type == "cpu" and str(mg.device("cpu")) == "cpu"
    assert pickle.loads(pickle.dumps(mg.device("cuda:1"))) == mg.device("cuda:1")


def test_bad_device_strings_raise_like_torch():
    torch = pytest.importorskip("torch")
    for text, message in [("gpu", "device type at start of device string: gpu"),
                          ("cpu:x", "Invalid device string: 'cpu:x'")]:
        for lib in (mg, torch):
            with pytest.raises(RuntimeError, match=message):
                lib.device(text)


@pytest.mark.parametrize("make", FACTORIES)
def test_every_factory_takes_device_cpu(make):
    for d in ("cpu", mg.device("cpu"), None):
        t = make(mg, d)
        assert t.device == mg.device("cpu") and not t.is_cuda


@pytest.mark.parametrize("make", FACTORIES)
def test_asking_a_factory_for_cuda_says_how_to_get_it(make):
    with pytest.raises(AssertionError, match=r"\[cuda\] extra.*GPU"):
        make(mg, "cuda")


def test_to_cpu_cuda():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert x.to("cpu") is x and x.to(mg.device("cpu")) is x and x.cpu() is x
    assert x.to("cpu", non_blocking=True) is x
    assert x.to(device="cpu", dtype=mg.float64).dtype is mg.float64
    assert x.to(mg.zeros(1, dtype=mg.float64)).dtype is mg.float64
    with pytest.raises(AssertionError, match=r"\[cuda\] extra"):
        x.cuda()
    with pytest.raises(AssertionError, match=r"\[cuda\] extra"):
        x.to("cuda")
    with pytest.raises(AssertionError, match=r"\[cuda\] extra"):
        mg.Generator(device="cuda")


def test_cuda_module_reports_no_gpu_like_torch_without_cuda():
    torch = pytest.importorskip("torch")
    assert mg.cuda.is_available() is False and mg.cuda.device_count() == 0
    if not torch.cuda.is_available():
        assert torch.cuda.device_count() == mg.cuda.device_count()
    mg.cuda.manual_seed(0)
    mg.cuda.manual_seed_all(0)
    mg.cuda.empty_cache()
    assert mg.cuda.memory_allocated() == 0
    for needs_gpu in (mg.cuda.current_device, mg.cuda.synchronize, mg.cuda.get_device_name):
        with pytest.raises(AssertionError, match=r"\[cuda\] extra"):
            needs_gpu()


def test_the_usual_device_idiom_runs():
    device = mg.device("cuda" if mg.cuda.is_available() else "cpu")
    model_input = mg.randn(4, 3).to(device)
    assert model_input.device == device


@pytest.mark.parametrize("to", ["meta", "mps", "xpu:0"])
def test_another_torch_device_type_is_refused_as_a_device_not_as_a_dtype(to):
    """x.to("meta") (the ensembling tutorial's base model) names the devices minigrad has,
    instead of reading the string as a dtype."""
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        mg.nn.Linear(2, 2).to(to)
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        mg.ones(2).to(to)
