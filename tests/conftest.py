"""Render a small derivatives.yaml into a temporary package, import it, run it."""
import importlib
import os
import shutil
import sys
import textwrap

import pytest

from codegen.emit import render_all, write_if_changed
from codegen.load import load_registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_spec(folder, yaml_text):
    """A repository-shaped folder: derivatives.yaml plus the real kernels and helpers."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "derivatives.yaml"), "w") as f:
        f.write(textwrap.dedent(yaml_text))
    for sub in ("minigrad/kernels", "minigrad/autograd/formulas"):
        target = os.path.join(folder, sub)
        if not os.path.exists(target):
            shutil.copytree(os.path.join(ROOT, sub), target)
    return os.path.join(folder, "derivatives.yaml")


def render_package(tmp_path, monkeypatch, yaml_text, package):
    """Render ``yaml_text`` as package ``package`` (its tests as ``<package>_tests``) under
    ``tmp_path`` and make it importable."""
    registry = load_registry(write_spec(str(tmp_path / "repo"), yaml_text))
    files = render_all(registry, package=package, package_dir=package, tests_dir=f"{package}_tests")
    write_if_changed(files, str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()


def generated_modules(tmp_path, monkeypatch, yaml_text, package):
    """render_package, then (its functions module, its generated test module)."""
    render_package(tmp_path, monkeypatch, yaml_text, package)
    return (importlib.import_module(f"{package}.functions"),
            importlib.import_module(f"{package}_tests.test_derivatives"))


@pytest.fixture
def render_spec(tmp_path, monkeypatch):
    """render_spec(yaml) -> the generated `functions` module of a fresh package."""
    counter = iter(range(1000))

    def render(yaml_text):
        name = f"tinyops{next(counter)}"
        render_package(tmp_path, monkeypatch, yaml_text, name)
        module = importlib.import_module(f"{name}.functions")
        yield_cleanup.append(name)
        return module

    yield_cleanup = []
    yield render
    for name in yield_cleanup:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


# ---------------------------------------------------------------- device-generic runs
# MINIGRAD_TEST_DEVICE=fake_cuda runs the tests with sample tensors on the CuPy-like test
# backend (minigrad/_array/fake_cuda.py) registered as "cuda"; MINIGRAD_TEST_DEVICE=cuda
# runs them on a real GPU through CuPy.  Unset: the CPU, as always.
def _setup_test_device():
    choice = os.environ.get("MINIGRAD_TEST_DEVICE", "")
    if not choice or choice == "cpu":
        return
    from minigrad import testing
    if choice == "fake_cuda":
        from minigrad._array import fake_cuda
        fake_cuda.install()
    elif choice == "cuda":
        from minigrad._array import cupy_backend
        cupy_backend.load()  # RuntimeError saying how to install CuPy when it is missing
    else:
        raise ValueError(f"MINIGRAD_TEST_DEVICE={choice!r}: use cpu, cuda or fake_cuda")
    testing.set_sample_device("cuda")


_setup_test_device()


@pytest.fixture
def fake_gpu():
    """The CuPy-like test backend as "cuda" for one test (left in place when the whole run
    uses it); the default device is the CPU again after it.  On a MINIGRAD_TEST_DEVICE=cuda
    run the test uses the real GPU instead."""
    from minigrad._array import fake_cuda
    import minigrad
    if os.environ.get("MINIGRAD_TEST_DEVICE") == "cuda":
        yield
        minigrad.set_default_device("cpu")
        return
    was_installed = fake_cuda.is_installed()
    fake_cuda.install()
    yield
    minigrad.set_default_device("cpu")
    if not was_installed:
        fake_cuda.uninstall()


# The engine tests build their tensors with factories: on a device run, the default device
# is the GPU for them, so the whole engine (and what it calls) runs on device arrays.
_ENGINE_TESTS = {"test_engine.py", "test_seed_engine.py", "test_trust_engine.py",
                 "test_hooks.py", "test_views_inplace.py"}


@pytest.fixture(autouse=True)
def _engine_tests_on_the_test_device(request):
    choice = os.environ.get("MINIGRAD_TEST_DEVICE", "")
    if not choice or choice == "cpu" or request.path.name not in _ENGINE_TESTS:
        yield
        return
    import minigrad
    from minigrad._tensor import Tensor
    # These tests read results with .numpy(), which PyTorch (and minigrad) refuse on a GPU
    # tensor; for them it reads through the host. The library never calls .numpy().
    to_numpy = Tensor.numpy
    Tensor.numpy = lambda self, *, force=False: to_numpy(self.cpu() if self.is_cuda else self,
                                                         force=force)
    minigrad.set_default_device("cuda")
    try:
        yield
    finally:
        minigrad.set_default_device("cpu")
        Tensor.numpy = to_numpy
