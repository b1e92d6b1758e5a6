"""Every kernel and every formula helper runs on a CuPy-like device (the fake_cuda backend).

Each row of the generated gradcheck table (one per derivatives.yaml sample) runs twice
at the array level, no Tensors involved: once on numpy arrays and once on fake-cuda
arrays (which refuse implicit conversion to numpy and host operands, as CuPy's do).
The device run uses a copy of the generated array ops whose ``np`` is the device's
namespace (what device-generic generated code does): it runs the entry's `forward:`,
then evaluates each of its formulas as a plain backward does (ops and helpers looked
up through the formula namespace, helpers' own ``ops_for`` included).  The device
results must stay on the device and equal the numpy ones.
"""
import os
import sys
import types

import numpy as np
import pytest

from codegen.load import load_registry
from minigrad._array import fake_cuda, to_host
from minigrad._generated import array_ops
from minigrad._tensor import Tensor
from minigrad.autograd.formulas import core as formulas_core
from minigrad.autograd.namespace import ARRAYS, FormulaNamespace
from minigrad import testing
from tests.generated.test_derivatives import SAMPLES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = load_registry(os.path.join(ROOT, "derivatives.yaml"), ROOT)
OPS_BY_NODE = {op.node_name: op for op in REGISTRY.ops}


DEVICE_OPS_MODULE = "minigrad._generated.array_ops_on_fake_cuda"


def _device_array_ops():
    """The generated array ops, compiled again with ``np`` naming the device namespace."""
    module = types.ModuleType(DEVICE_OPS_MODULE)
    with open(array_ops.__file__, encoding="utf-8") as f:
        exec(compile(f.read(), array_ops.__file__, "exec"), module.__dict__)
    module.np = fake_cuda.xp
    sys.modules[DEVICE_OPS_MODULE] = module
    return FormulaNamespace(DEVICE_OPS_MODULE, as_tensors=False)


@pytest.fixture(scope="module", autouse=True)
def fake_device():
    was_installed = fake_cuda.is_installed()  # MINIGRAD_TEST_DEVICE=fake_cuda installs it
    fake_cuda.install()
    yield
    if not was_installed:
        fake_cuda.uninstall()
    sys.modules.pop(DEVICE_OPS_MODULE, None)


NAMESPACES = {"cpu": ARRAYS, "cuda": _device_array_ops()}


class _FormulaScope(dict):
    """A formula's names: its locals, then the ops and helpers of its namespace."""

    def __init__(self, values, namespace):
        super().__init__(values)
        self.namespace = namespace

    def __missing__(self, name):
        return getattr(self.namespace, name)


def _arrays(value, device):
    """A built sample's Tensors as arrays of ``device`` (lists and index keys too)."""
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        return fake_cuda.xp.asarray(value) if device == "cuda" else value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(_arrays(v, device) for v in value)
    return value


def _run(op, sample, device, monkeypatch):
    """(forward outputs, {input: gradient}) of ``op`` on ``sample`` on ``device``."""
    namespace = NAMESPACES[device]
    monkeypatch.setattr(formulas_core, "ARRAYS", namespace)  # what helpers' ops_for returns
    args = {name: _arrays(value, device) for name, value in _host_sample(sample).items()}
    args = {a.name: args[a.name] for a in op.args if a.name in args}
    out = _forward(namespace, op)(**args)
    outputs = out if len(op.outputs) > 1 else (out,)
    rng = np.random.default_rng(1)
    grads = [_arrays(_cotangent(o, rng), device) if spec.differentiable else None
             for o, spec in zip(outputs, op.outputs)]
    defaults = {a.name: a.default for a in op.args if a.name not in args and a.has_default}
    lists = {name: _ArrayList(v) for name, v in args.items() if isinstance(v, list)}
    values = dict(defaults, **args, grads=grads, grad=grads[0])
    values.update(lists)
    if len(op.outputs) == 1:
        values["result"] = out
        if op.outputs[0].type == "Tensor[]":  # each piece is an output with its gradient
            values["grads"] = grads[0]
    for spec, o, g in zip(op.outputs, outputs, grads):
        values[spec.name], values[f"grad_{spec.name}"] = o, g
    gradients = {}
    for formula in op.formulas:
        if not _is_array_input(args.get(formula.input)):
            continue  # absent, None, or a Python number (Tensor-level code wraps those)
        try:
            gradients[formula.input] = eval(formula.text, {}, _FormulaScope(values, namespace))
        except NotImplementedError:  # an input torch does not differentiate either (igamma's)
            continue
    return outputs, gradients


class _ArrayList(list):
    """A Tensor[] argument as formulas see it: ``tensors.shape`` is the list of shapes."""

    shape = property(lambda self: [v.shape for v in self])
    dtype = property(lambda self: [v.dtype for v in self])
    ndim = property(lambda self: [v.ndim for v in self])


def _host_sample(sample):
    """The sample's values built on the CPU (whatever MINIGRAD_TEST_DEVICE says): this test
    moves them to the device itself, to compare the two runs."""
    previous = testing.sample_device()
    testing.set_sample_device("cpu")
    try:
        return testing.build_sample(sample)
    finally:
        testing.set_sample_device(previous)


def _forward(namespace, op):
    """The entry's own array function (an overloaded name is a dispatcher over several)."""
    try:
        return getattr(namespace, f"{op.func_name}_default")
    except AttributeError:
        return getattr(namespace, op.func_name)


def _is_array_input(value):
    return hasattr(value, "shape") or (isinstance(value, list) and bool(value))


def _cotangent(output, rng):
    if isinstance(output, list):
        return [_cotangent(o, rng) for o in output]
    host = np.asarray(to_host(output))
    if host.dtype.kind != "f":
        return None
    return rng.standard_normal(host.shape).astype(host.dtype)


def _assert_same(device_value, cpu_value, where):
    if isinstance(cpu_value, (list, tuple)):
        assert len(device_value) == len(cpu_value), where
        for i, (d, c) in enumerate(zip(device_value, cpu_value)):
            _assert_same(d, c, f"{where}[{i}]")
        return
    if cpu_value is None:
        assert device_value is None, where
        return
    if isinstance(cpu_value, (bool, int, float)):
        assert device_value == cpu_value, where
        return
    assert isinstance(device_value, fake_cuda.FakeCudaArray), (
        f"{where}: a {type(device_value).__name__} came back from the device, not a device array")
    host = to_host(device_value)
    cpu_value = np.asarray(cpu_value)
    assert host.dtype == cpu_value.dtype, f"{where}: dtype {host.dtype} != {cpu_value.dtype}"
    assert host.shape == cpu_value.shape, f"{where}: shape {host.shape} != {cpu_value.shape}"
    # float32 sums may run in another order on the device (gathered windows, for one)
    rtol = 1e-5 if host.dtype == np.float32 else 1e-7
    np.testing.assert_allclose(host, cpu_value, rtol=rtol, atol=1e-9, equal_nan=True,
                               err_msg=where)


@pytest.mark.parametrize("op_fn, outputs, sample, fast, skip_gradgrad, once, node", SAMPLES)
def test_forward_and_formulas_on_device(op_fn, outputs, sample, fast, skip_gradgrad, once, node,
                                        monkeypatch):
    op = OPS_BY_NODE[node.__name__]
    if op.name == "_to_device":
        pytest.skip("moves values between devices by design (tests/unit/test_cuda_device.py)")
    # numpy's floating-point warnings off, as the engine runs forwards and backwards (CuPy
    # never warns); this harness calls the kernels and formulas on bare arrays, outside it
    with np.errstate(all="ignore"):
        cpu_outputs, cpu_gradients = _run(op, sample, "cpu", monkeypatch)
        cuda_outputs, cuda_gradients = _run(op, sample, "cuda", monkeypatch)
    _assert_same(cuda_outputs, cpu_outputs, f"{op.full_name} forward")
    assert cuda_gradients.keys() == cpu_gradients.keys()
    for name, value in cpu_gradients.items():
        _assert_same(cuda_gradients[name], value, f"{op.full_name} d/d{name} "
                                                  f"(derivatives.yaml:{op.line})")
