"""The array library of a value: numpy for numpy arrays, CuPy for CuPy arrays, ...

Generated code starts with ``xp = namespace_of(<first input>)`` instead of naming
numpy, so the same source runs on any array library with the standard API.
"""
import numpy as np

_BY_TYPE = {np.ndarray: np, np.float64: np, np.float32: np}


def namespace_of(array):
    """The module whose functions operate on ``array``.

    >>> namespace_of(np.zeros(2)) is np
    True
    """
    xp = _BY_TYPE.get(type(array))
    if xp is None:
        get = getattr(array, "__array_namespace__", None)
        xp = get() if get is not None else np
        if type(array).__module__.split(".")[0] == "numpy":
            xp = np   # numpy scalars and arrays: the numpy module itself (it has every name)
        _BY_TYPE[type(array)] = xp
    return xp
