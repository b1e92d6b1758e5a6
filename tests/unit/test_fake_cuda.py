"""The CuPy-like test backend behaves like CuPy where minigrad's device code depends on it."""
import copy
import io
import pickle

import numpy as np
import pytest

from minigrad import _array
from minigrad._array import fake_cuda
from minigrad._array.fake_cuda import IMPLICIT_CONVERSION, FakeCudaArray, xp


@pytest.fixture
def installed():
    fake_cuda.install()
    yield
    fake_cuda.uninstall()


def test_asarray_and_get_round_trip_copies():
    host = np.arange(6.0).reshape(2, 3)
    dev = xp.asarray(host)
    assert isinstance(dev, FakeCudaArray) and dev.shape == (2, 3) and dev.dtype == np.float64
    host[0, 0] = 100.0  # the device copy is independent of the host array
    back = dev.get()
    assert isinstance(back, np.ndarray) and back[0, 0] == 0.0
    np.testing.assert_array_equal(xp.asnumpy(dev), np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("convert", [np.asarray, np.array, np.ascontiguousarray,
                                     lambda a: np.array([a, a]), lambda a: np.float64(a) + 0])
def test_implicit_conversion_to_numpy_is_refused(convert):
    dev = xp.ones(3)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        convert(dev)
    assert IMPLICIT_CONVERSION.endswith("construct a NumPy array explicitly.")


def test_numpy_functions_dispatch_to_the_device():
    dev = xp.asarray(np.array([0.0, 1.0, 2.0]))
    for out in (np.exp(dev), np.sum(dev), np.concatenate([dev, dev]), np.maximum(dev, 1.0),
                np.add.reduce(dev), np.linalg.norm(dev)):
        assert isinstance(out, FakeCudaArray)
    np.testing.assert_allclose(np.exp(dev).get(), np.exp([0.0, 1.0, 2.0]))


def test_reductions_return_zero_d_device_arrays_not_numpy_scalars():
    s = xp.ones((2, 2)).sum()
    assert isinstance(s, FakeCudaArray) and s.ndim == 0
    assert float(s) == 4.0 and int(s) == 4 and bool(s) and s.item() == 4.0


def test_host_array_operand_is_refused_as_cupy_does():
    dev, host = xp.ones(3), np.ones(3)
    for op in (lambda: dev + host, lambda: host + dev, lambda: xp.add(dev, host),
               lambda: np.add(host, dev), lambda: xp.where(host > 0, dev, dev)):
        with pytest.raises(TypeError, match=r"Unsupported type <class 'numpy.ndarray'>"):
            op()


def test_scalars_mix_freely():
    dev = xp.ones(2, dtype=np.float32)
    for out in (dev * 2, 2.0 * dev, np.float64(3.0) * dev, dev / np.float32(2), -dev, abs(dev)):
        assert isinstance(out, FakeCudaArray)
    assert (dev * 2).dtype == np.float32


def test_inplace_operators_mutate_the_device_array():
    dev = xp.zeros(3)
    same = dev
    dev += 1.0
    dev[1] = 5.0
    assert dev is same
    np.testing.assert_array_equal(dev.get(), [1.0, 5.0, 1.0])
    with pytest.raises(TypeError, match="Unsupported type"):
        dev[0] = np.array(2.0)


def test_indexing_with_host_and_device_indices():
    dev = xp.asarray(np.arange(5.0))
    np.testing.assert_array_equal(dev[np.array([0, 2])].get(), [0.0, 2.0])
    np.testing.assert_array_equal(dev[xp.asarray(np.array([4]))].get(), [4.0])
    np.testing.assert_array_equal(dev[dev > 2].get(), [3.0, 4.0])
    xp.add.at(dev, np.array([0, 0]), 1.0)
    assert dev[0].item() == 2.0


def test_arrays_on_two_devices_do_not_mix():
    a = xp.ones(2)
    with xp.cuda.Device(1):
        b = xp.ones(2)
        assert xp.zeros(1).device.id == 1
    assert a.device.id == 0 and b.device.id == 1
    with pytest.raises(ValueError, match=r"device where the array resides \(1\).*current "
                                         r"device \(0\)"):
        a + b
    assert (b * 2).device.id == 1  # work follows the operands' device


def test_ndarray_methods_stay_on_device():
    dev = xp.asarray(np.arange(6.0)).reshape(2, 3)
    for out in (dev.T, dev.sum(axis=0), dev.astype(np.float32), dev.copy(), dev.max(), dev.mT):
        assert isinstance(out, FakeCudaArray)
    assert dev.astype(np.float32).dtype == np.float32
    with pytest.raises(AttributeError):
        dev.__array_interface__
    with pytest.raises(AttributeError):
        dev.tobytes()


def test_special_functions_mirror_cupyx_subset():
    dev = xp.asarray(np.array([0.5]))
    out = fake_cuda.special.erf(dev)
    assert isinstance(out, FakeCudaArray)
    assert fake_cuda.special.gammaln(dev).get()[0] == pytest.approx(0.5723649429247001)
    with pytest.raises(AttributeError):
        fake_cuda.special.airy  # not in cupyx.scipy.special


def test_numpy_function_the_backend_lacks_raises():
    with pytest.raises(TypeError, match="no implementation found"):
        np.save(io.BytesIO(), xp.ones(1))  # CuPy has no save: numpy finds no implementation


def test_pickle_and_copy_keep_device_and_values():
    with xp.cuda.Device(1):
        dev = xp.asarray(np.array([1.0, 2.0]))
    for clone in (pickle.loads(pickle.dumps(dev)), copy.deepcopy(dev), copy.copy(dev)):
        assert isinstance(clone, FakeCudaArray) and clone.device.id == 1
        np.testing.assert_array_equal(clone.get(), [1.0, 2.0])


def test_install_registers_the_cuda_device(installed):
    dev = xp.ones(2)
    assert _array.namespace_of(dev) is xp
    assert _array.special_of(dev) is fake_cuda.special
    assert _array.device_type_of(dev) == "cuda"
    assert _array.namespace_for("cuda") is xp
    assert isinstance(_array.to_host(dev), np.ndarray)


def test_uninstall_forgets_the_cuda_device(installed):
    fake_cuda.uninstall()
    with pytest.raises(RuntimeError, match="CUDA"):
        _array.namespace_for("cuda")
    fake_cuda.install()  # the fixture uninstalls again
