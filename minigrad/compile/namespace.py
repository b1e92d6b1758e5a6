"""The array library of a value: numpy for numpy arrays, CuPy for CuPy arrays, ...

Generated code starts with ``xp = namespace_of(<first input>)`` instead of naming
numpy, so the same source runs on any array library with the standard API.  The
answer comes from the array layer (minigrad/_array), which knows every registered
library (numpy, CuPy, the CuPy-like test backend).
"""
from minigrad._array import namespace_of  # noqa: F401 (re-exported for generated code)
