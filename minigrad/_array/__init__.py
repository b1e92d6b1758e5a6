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

from minigrad._array import device_checks

# array type -> (namespace module, special-functions module, device type)
_BY_TYPE = {np.ndarray: (np, scipy.special, "cpu")}
_BY_DEVICE = {"cpu": (np, scipy.special)}


# array type -> namespace: namespace_of's one dict lookup on the hot path
_NAMESPACE = {np.ndarray: np}


def register(array_type, xp, special, device_type):
    """Make arrays of ``array_type`` compute with ``xp`` and live on ``device_type``."""
    _BY_TYPE[array_type] = (xp, special, device_type)
    _BY_DEVICE[device_type] = (xp, special)
    _NAMESPACE[array_type] = xp


def unregister(device_type):
    """Forget the backend of ``device_type`` (tests that install a fake one)."""
    for array_type, entry in list(_BY_TYPE.items()):
        if entry[2] == device_type and array_type is not np.ndarray:
            del _BY_TYPE[array_type]
            _NAMESPACE.pop(array_type, None)
    if device_type != "cpu":
        _BY_DEVICE.pop(device_type, None)


def _entry(array):
    entry = _BY_TYPE.get(type(array))
    if entry is None:
        # numpy scalars (np.float32(1.0)), Python numbers, subclasses: the CPU.
        for array_type, candidate in _BY_TYPE.items():
            if isinstance(array, array_type):
                return candidate
        if type(array).__module__.startswith("cupy") and _load_cuda():
            return _entry(array)  # a CuPy array met before anything asked for "cuda"
        get = getattr(array, "__array_namespace__", None)
        if get is not None and type(array).__module__.split(".")[0] != "numpy":
            return (get(), scipy.special, "cpu")  # an array-API array of an unregistered library
        return _BY_TYPE[np.ndarray]
    return entry


def _load_cuda():
    """Register real CuPy as "cuda" on first use; False when it cannot be imported."""
    from minigrad._array import cupy_backend  # lazily: CuPy is an optional extra
    return cupy_backend.load(required=False)


def is_array(value):
    """Whether ``value`` is an array of a registered library (not a scalar or a list)."""
    return type(value) in _BY_TYPE


def namespace_of(array):
    """The array library of ``array``: ``numpy`` for numpy arrays and scalars.

    >>> namespace_of(np.zeros(2)) is np
    True
    """
    xp = _NAMESPACE.get(type(array))
    return xp if xp is not None else _entry(array)[0]


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
        if device_type == "cuda" and _load_cuda():
            return _BY_DEVICE["cuda"][0]
        from minigrad._device import CUDA_UNAVAILABLE  # lazily: _device imports this layer
        raise RuntimeError(CUDA_UNAVAILABLE)
    return entry[0]


def has_backend(device_type):
    """Whether ``device_type`` can hold arrays here (loading CuPy for "cuda" if present)."""
    if device_type in _BY_DEVICE:
        return True
    return device_type == "cuda" and _load_cuda()


def device_index_of(array):
    """The GPU number of a device array; None on the CPU."""
    if type(array) is np.ndarray or _entry(array)[2] == "cpu":
        return None
    return array.device.id


def to_device(array, device_type, index=None):
    """``array`` on ``device_type`` (GPU ``index``, default the current one): itself when it
    is there already, else a copy (through host memory between two libraries)."""
    src_type = _entry(array)[2]
    if src_type == device_type and (index is None or device_index_of(array) in (None, index)):
        return array
    if device_type == "cpu":
        return to_host(array)
    xp = namespace_for(device_type)
    host = to_host(array)
    if index is None:
        return xp.asarray(host)
    with xp.cuda.Device(index):
        return xp.asarray(host)


def data_pointer(array):
    """The address of ``array``'s first element (to tell which views share which bytes)."""
    interface = getattr(array, "__array_interface__", None)
    if interface is None:
        interface = array.__cuda_array_interface__
    return interface["data"][0]


def is_writeable(array):
    """False for numpy's read-only arrays and for arrays where several elements share one
    memory location (an expanded tensor), which an elementwise write into the array
    itself would not update as meant."""
    if type(array) is np.ndarray and not array.flags.writeable:
        return False
    return not has_internal_overlap(array)


def has_internal_overlap(array):
    """A zero stride over a dim of more than one element (ATen's has_internal_overlap YES);
    never for an empty array (numpy may give one zero strides)."""
    return array.size > 1 and 0 in array.strides and any(
        stride == 0 and n > 1 for stride, n in zip(array.strides, array.shape))


def to_host(array):
    """``array`` as a numpy array (a copy for device arrays, itself on the CPU)."""
    if isinstance(array, np.ndarray) or np.isscalar(array) or array is None:
        return array
    get = getattr(array, "get", None)
    if get is None:
        raise TypeError(f"cannot move a {type(array).__name__} to the host")
    host = get()
    device_checks.raise_ready(wait=True)  # the GPU has caught up: a failed check raises here
    return host
