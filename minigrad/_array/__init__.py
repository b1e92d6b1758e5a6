"""Array namespaces: which array library holds a tensor's values.

A tensor's device picks its array library: numpy for ``"cpu"``, CuPy for
``"cuda"``.  Code that computes on arrays (kernels, generated nodes, formulas,
the engine) never names numpy for that; it asks the arrays it was given::

    xp = namespace_of(a)          # numpy, cupy, or the test backend
    out = xp.exp(a)
    sp = special_of(xp)           # scipy.special / cupyx.scipy.special

Creating arrays from nothing (zeros for an undefined gradient, a random
sample) asks the device instead: ``namespace_for(device)``.  Moving values
to the host (printing, ``.numpy()``, saving, MPI) goes through ``to_host``.

Each array library registers itself once with ``register`` (the CuPy backend
in cupy_backend.py, the CuPy-like test backend in fake_cuda.py), so this
module imports nothing optional.
"""
import numpy as np
import scipy.special

# array type -> (namespace module, special-functions module, device type)
_BY_TYPE = {np.ndarray: (np, scipy.special, "cpu")}
_BY_DEVICE = {"cpu": (np, scipy.special)}


def register(array_type, xp, special, device_type):
    """Make arrays of ``array_type`` compute with ``xp`` and live on ``device_type``."""
    _BY_TYPE[array_type] = (xp, special, device_type)
    _BY_DEVICE[device_type] = (xp, special)


def unregister(device_type):
    """Forget the backend of ``device_type`` (tests that install a fake one)."""
    for array_type, entry in list(_BY_TYPE.items()):
        if entry[2] == device_type and array_type is not np.ndarray:
            del _BY_TYPE[array_type]
    if device_type != "cpu":
        _BY_DEVICE.pop(device_type, None)


def _entry(array):
    entry = _BY_TYPE.get(type(array))
    if entry is None:
        # numpy scalars (np.float32(1.0)), Python numbers, subclasses: the CPU.
        for array_type, candidate in _BY_TYPE.items():
            if isinstance(array, array_type):
                return candidate
        return _BY_TYPE[np.ndarray]
    return entry


def namespace_of(array):
    """The array library of ``array``: ``numpy`` for numpy arrays and scalars.

    >>> namespace_of(np.zeros(2)) is np
    True
    """
    return _entry(array)[0]


def special_of(array):
    """The special-functions module for ``array``: scipy.special on the CPU."""
    return _entry(array)[1]


def device_type_of(array):
    """``"cpu"`` or ``"cuda"``: where ``array``'s values live."""
    return _entry(array)[2]


def namespace_for(device_type):
    """The array library of a device type (``"cpu"``, ``"cuda"``).

    Raises RuntimeError naming how to install the backend when it is missing.
    """
    entry = _BY_DEVICE.get(device_type)
    if entry is None:
        from minigrad._device import CUDA_UNAVAILABLE  # lazily: _device imports this layer
        raise RuntimeError(CUDA_UNAVAILABLE)
    return entry[0]


def to_host(array):
    """``array`` as a numpy array (a copy for device arrays, itself on the CPU)."""
    if isinstance(array, np.ndarray) or np.isscalar(array):
        return array
    get = getattr(array, "get", None)
    if get is None:
        raise TypeError(f"cannot move a {type(array).__name__} to the host")
    return get()
