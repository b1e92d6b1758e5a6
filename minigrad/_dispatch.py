"""Pick the overload of an op whose parameters fit the call, like torch's arg parser.

``max(x)`` and ``max(x, dim=1)`` are two entries in derivatives.yaml (``max`` and
``max.dim``); the public ``max`` tries them in order and calls the first whose
parameters accept the given arguments.
"""
import numbers

import numpy as np
from minigrad import _array
from minigrad import _tensor  # a module: read at call time (import cycle)


def dispatch(name, overloads, args, kwargs, arrays=False):
    for fn, params in overloads:
        if _fits(params, args, kwargs, arrays):
            return fn(*args, **kwargs)
    # Second pass: a number or an ndarray (a constant) where a Tensor is expected, as the
    # ops without overloads accept: ``div(x, 2, rounding_mode="floor")``, ``max(x, 0.5)``.
    for fn, params in overloads:
        if _fits(params, args, kwargs, arrays, numbers_as_tensors=True):
            return fn(*args, **kwargs)
    signatures = "\n  ".join(_describe(fn, params) for fn, params in overloads)
    raise TypeError(f"{name}() received an invalid combination of arguments; "
                    f"it accepts:\n  {signatures}")


def _describe(fn, params):
    return f"{fn.__name__}(" + ", ".join(f"{t} {n}" for n, t, _, _ in params) + ")"


def _fits(params, args, kwargs, arrays, numbers_as_tensors=False):
    positional = [p for p in params if not p[3]]
    if len(args) > len(positional):
        return False
    names = {p[0] for p in params}
    if any(k not in names for k in kwargs):
        return False
    given = dict(zip((p[0] for p in positional), args))
    for key, value in kwargs.items():
        if key in given:
            return False
        given[key] = value
    for name, type_, has_default, _ in params:
        if name not in given:
            if not has_default:
                return False
        elif not _is(type_, given[name], arrays, numbers_as_tensors):
            return False
    return True


def _is(type_, value, arrays, numbers_as_tensors=False):
    Tensor = _tensor.Tensor
    if type_.endswith("?"):
        if value is None:
            return True
        type_ = type_[:-1]
    scalars = (numbers.Number, np.generic) if numbers_as_tensors else ()

    def is_tensor(v):  # with arrays: an array of any library (numpy, CuPy) stands for a Tensor
        return isinstance(v, (Tensor,) + scalars) or (
            (arrays or numbers_as_tensors) and (isinstance(v, np.ndarray) or _array.is_array(v)))
    if type_ == "Tensor":
        return is_tensor(value)
    if type_ == "Tensor[]":
        return isinstance(value, (list, tuple)) and all(is_tensor(v) for v in value)
    if type_ == "int":
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if type_ == "int[]":
        return _is("int", value, arrays) or (
            isinstance(value, (list, tuple)) and all(_is("int", v, arrays) for v in value))
    if type_ in ("float", "Scalar"):
        return isinstance(value, numbers.Number) and not isinstance(value, Tensor)
    if type_ == "bool":
        return isinstance(value, (bool, np.bool_))
    if type_ == "str":
        return isinstance(value, str)
    return True  # Index, ScalarType: anything


def varargs_sections(values):
    """``varargs_int_list`` for an int-or-list argument: one int stays an int (a count of
    sections: ``x.hsplit(3)``); several ints are one list of indices (``x.hsplit(1, 2)``)."""
    if len(values) == 1:
        return values
    return varargs_int_list(values)


def varargs_int_list(values):
    """A method's int-list argument given as varargs or as one sequence, as torch allows.

    ``x.view(2, 3)``, ``x.view((2, 3))`` and ``x.view([2, 3])`` all pass ``(2, 3)``;
    ``x.view(shape=(2, 3))`` passes nothing here (the keyword goes through as is).
    """
    if not values:
        return ()
    if len(values) == 1 and not isinstance(values[0], (int, np.integer)):
        return values  # one sequence (or a Tensor / None: the op reports a bad value)
    return (tuple(values),)
