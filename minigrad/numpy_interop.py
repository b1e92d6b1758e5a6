"""numpy functions on Tensors run minigrad's differentiable ops instead of clogging.

``np.sqrt(x)``, ``np.sum(x, axis=0)``, ``np.concatenate([x, y])``, ... on Tensors
reach ``Tensor.__array_ufunc__`` / ``Tensor.__array_function__``, which look the
matching minigrad op up *at call time* (so ops added to derivatives.yaml later are
picked up by name), map numpy's argument names to PyTorch's (``axis`` -> ``dim``,
``keepdims`` -> ``keepdim``, ``a_min`` -> ``min``, ``ddof`` -> ``correction``, ...)
and return Tensors that keep their history.

A numpy function minigrad has no differentiable op for raises a TypeError naming
it when a Tensor argument requires grad (never a silent cut); when nothing
requires grad it simply computes on the data and wraps the result.

>>> x = minigrad.tensor([4.0, 9.0], requires_grad=True)
>>> np.sqrt(x).sum().backward(); x.grad
tensor([0.25  , 0.1667])
"""
import inspect

import numpy as np

from minigrad._array import namespace_of
from minigrad.numpy_composites import NUMPY_COMPOSITES

# --------------------------------------------------------------------- ufuncs
# numpy ufunc name -> minigrad op name (ufuncs whose names already match need no entry)
UFUNC_NAMES = {
    "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
    "power": "pow", "float_power": "pow", "negative": "neg", "absolute": "abs", "fabs": "abs",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "rint": "round",
    "remainder": "remainder", "mod": "remainder", "conjugate": "conj",
    # scipy.special's ufuncs dispatch here too
    "gammaln": "lgamma", "psi": "digamma", "expit": "sigmoid",
}
# ufuncs whose result carries no gradient (booleans, integers, tests): computed on the data
NONDIFFERENTIABLE_UFUNCS = {
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "isnat", "signbit",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift",
    "floor_divide", "gcd", "lcm",
}
# ufuncs whose derivative is zero wherever it exists: without a minigrad op, the data will do
ZERO_GRAD_UFUNCS = {"floor", "ceil", "trunc", "rint", "sign"}
# ufuncs minigrad can build from other ops when it has no op of that name
UFUNC_COMPOSITES = {
    "square": lambda mg: (lambda x: mg.pow(x, 2)),
    "reciprocal": lambda mg: (lambda x: mg.div(1.0, x)),
    "positive": lambda mg: (lambda x: x),
}
# ufunc.reduce / ufunc.accumulate -> minigrad reduction
UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "amax", "minimum": "amin",
                "logaddexp": "logsumexp"}
UFUNC_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}

# ------------------------------------------------------------------ functions
# numpy argument name -> PyTorch argument name (for every mapped function)
ARG_NAMES = {
    "axis": "dim", "keepdims": "keepdim", "axes": "dims", "a_min": "min", "a_max": "max",
    "ddof": "correction", "newshape": "shape", "k": "diagonal", "shift": "shifts",
    "axis1": "dim0", "axis2": "dim1", "source": "source", "destination": "destination",
    "reps": "dims",
}
# numpy function name -> minigrad name ("linalg." prefix: minigrad.linalg), when they differ
FUNCTION_NAMES = {
    "concatenate": "cat", "concat": "cat", "max": "amax", "min": "amin",
    "transpose": "permute", "permute_dims": "permute", "expand_dims": "unsqueeze",
    "clip": "clamp", "swapaxes": "transpose", "moveaxis": "movedim", "broadcast_to": "expand",
    "absolute": "abs", "power": "pow", "multiply": "mul", "subtract": "sub", "divide": "div",
    "negative": "neg", "around": "round", "round_": "round",
    "array_split": "tensor_split", "take_along_axis": "take_along_dim",
}
# numpy functions whose minigrad (PyTorch) namesake means something else: never dispatched
DIFFERENT_MEANING = {
    "median": "numpy.median averages the two middle values, minigrad.median (like torch) "
              "returns the lower one; use minigrad.quantile(x, 0.5) or minigrad ops",
    "nanmedian": "numpy.nanmedian averages the two middle values, minigrad.nanmedian does not",
}
# post-processing where PyTorch returns more than numpy (values, indices)
TAKE_VALUES = {"sort"}
# non-default numpy arguments we forward with a fixed meaning
DEFAULTS_OVERRIDE = {
    # numpy's var/std divide by N (ddof=0); PyTorch's default correction is 1
    "var": {"correction": 0}, "std": {"correction": 0},
}
# functions whose results carry no gradient: computed on the data even when grad is needed
NONDIFFERENTIABLE_FUNCTIONS = {
    "shape", "ndim", "size", "argmax", "argmin", "argsort", "argwhere", "nonzero",
    "flatnonzero", "count_nonzero", "allclose", "isclose", "array_equal", "array_equiv",
    "isnan", "isinf", "isfinite", "isreal", "iscomplex", "iscomplexobj", "isrealobj", "all",
    "any", "searchsorted", "digitize", "bincount", "histogram", "histogram_bin_edges",
    "result_type", "can_cast", "shares_memory", "may_share_memory", "unravel_index",
    "ravel_multi_index", "array_repr", "array_str", "zeros_like", "ones_like", "empty_like",
    "full_like", "sign", "floor", "ceil", "trunc", "fix", "round", "around", "rint",
    "sometrue", "alltrue", "isin", "in1d", "argpartition", "lexsort", "iscomplexobj",
    "ndim", "real_if_close", "sort_complex",
}


def array_ufunc(ufunc, method, inputs, kwargs):
    """``Tensor.__array_ufunc__``: run the minigrad op for ``ufunc``."""
    name = ufunc.__name__
    if (name in NONDIFFERENTIABLE_UFUNCS or not _needs_grad(inputs) or
            (name in ZERO_GRAD_UFUNCS and _ufunc_op(ufunc, method) is None)):
        op = _ufunc_op(ufunc, method)
        out = kwargs.get("out")
        if out is not None:   # `array += tensor`: numpy writes into `out` and expects it back
            getattr(ufunc, method)(*_strip(inputs), **{k: _strip(v) for k, v in kwargs.items()})
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        if op is not None and _plain_kwargs(kwargs, method):
            return _call_ufunc_op(op, method, inputs, kwargs)
        return _on_data(getattr(ufunc, method), inputs, kwargs)
    if kwargs.get("out") is not None:
        raise TypeError(
            f"numpy.{name}(..., out=...) cannot write a differentiable result into an array; "
            f"drop out= (the result is a minigrad Tensor), or .detach() the inputs first.")
    op = _ufunc_op(ufunc, method)
    if op is None or not _plain_kwargs(kwargs, method):
        what = f"numpy.{name}" if method == "__call__" else f"numpy.{name}.{method}"
        raise TypeError(
            f"{what} has no differentiable minigrad op (for these arguments), so calling it "
            f"on a Tensor that requires grad would cut the graph. Use a minigrad op, or "
            f"call .detach() on the input to cut the graph on purpose.")
    return _call_ufunc_op(op, method, inputs, kwargs)


def _ufunc_op(ufunc, method):
    import minigrad
    name = ufunc.__name__
    if method == "__call__":
        op = getattr(minigrad, UFUNC_NAMES.get(name, name), None)
        if op is None and name in UFUNC_COMPOSITES:
            op = UFUNC_COMPOSITES[name](minigrad)
        return op
    if method == "reduce" and name in UFUNC_REDUCE:
        return getattr(minigrad, UFUNC_REDUCE[name], None)
    if method == "accumulate" and name in UFUNC_ACCUMULATE:
        return getattr(minigrad, UFUNC_ACCUMULATE[name], None)
    return None


def _plain_kwargs(kwargs, method):
    allowed = {"out"} if method == "__call__" else {"out", "axis", "keepdims"}
    return all(k in allowed or v is None for k, v in kwargs.items())


def _call_ufunc_op(op, method, inputs, kwargs):
    if method == "__call__":
        return op(*inputs)
    x = inputs[0]
    axis = kwargs.get("axis", 0)
    if method == "accumulate":
        return op(x, 0 if axis is None else axis)
    keepdim = bool(kwargs.get("keepdims", False))
    if axis is None:
        axis = tuple(range(x.ndim))
    return op(x, axis, keepdim) if op.__name__ != "prod" or isinstance(axis, int) else \
        _prod_dims(op, x, axis, keepdim)


def _prod_dims(op, x, axes, keepdim):
    for axis in sorted(axes, reverse=True):
        x = op(x, axis, keepdim)
    return x


def array_function(func, types, args, kwargs):
    """``Tensor.__array_function__``: run the minigrad op for the numpy function ``func``."""
    name = func.__name__
    module = (func.__module__ or "numpy").split(".")
    # np.linalg.norm -> "linalg.norm" (minigrad.linalg.norm); np.sum -> "sum"
    qualified = f"{module[1]}.{name}" if len(module) > 1 and module[1] in ("linalg", "fft") else name
    if qualified in NUMPY_COMPOSITES:
        return NUMPY_COMPOSITES[qualified](*args, **kwargs)
    if qualified in NONDIFFERENTIABLE_FUNCTIONS and qualified not in _DIFFERENTIABLE_IF_FOUND:
        return _on_data(func, args, kwargs)
    if qualified in DIFFERENT_MEANING:
        if _needs_grad(args) or _needs_grad(kwargs.values()):
            raise TypeError(f"numpy.{qualified} on a Tensor that requires grad: "
                            f"{DIFFERENT_MEANING[qualified]}. Or .detach() the input first.")
        return _on_data(func, args, kwargs)
    op = _lookup(FUNCTION_NAMES.get(qualified, qualified))
    needs_grad = _needs_grad(args) or _needs_grad(kwargs.values())
    if op is None:
        if needs_grad and qualified not in NONDIFFERENTIABLE_FUNCTIONS:
            raise TypeError(
                f"numpy.{qualified} has no differentiable minigrad op, so calling it on a "
                f"Tensor that requires grad would cut the graph. Use minigrad ops, or call "
                f".detach() on the input to cut the graph on purpose.")
        return _on_data(func, args, kwargs)
    try:
        call_args, call_kwargs = _map_arguments(func, qualified, args, kwargs)
    except _Unsupported as why:
        if needs_grad:
            raise TypeError(
                f"numpy.{qualified} on a Tensor that requires grad: {why}; minigrad's "
                f"differentiable version does not support it. Use minigrad ops directly, or "
                f".detach() the input to cut the graph on purpose.") from None
        return _on_data(func, args, kwargs)
    result = op(*call_args, **call_kwargs)
    if qualified in TAKE_VALUES and isinstance(result, tuple):
        result = result[0]
    return result


# found in both lists: use the op when minigrad has one (e.g. round), else the data
_DIFFERENTIABLE_IF_FOUND = {"sign", "floor", "ceil", "trunc", "round", "around", "rint", "fix"}


class _Unsupported(Exception):
    pass


_SIGNATURES = {}


def _signature(func):
    sig = _SIGNATURES.get(func)
    if sig is None:
        try:
            sig = inspect.signature(func)
        except (TypeError, ValueError):
            sig = False
        _SIGNATURES[func] = sig
    return sig


def _map_arguments(func, qualified, args, kwargs):
    """numpy's (args, kwargs) -> minigrad's: first argument positional, the rest renamed."""
    sig = _signature(func)
    if not sig:
        return args, {ARG_NAMES.get(k, k): v for k, v in kwargs.items()}
    bound = sig.bind(*args, **kwargs)
    params = list(sig.parameters.values())
    call_args, call_kwargs = [], dict(DEFAULTS_OVERRIDE.get(qualified, {}))
    for i, param in enumerate(params):
        if param.name not in bound.arguments:
            continue
        value = bound.arguments[param.name]
        if param.kind is param.VAR_POSITIONAL:
            call_args.extend(value)
            continue
        if param.kind is param.VAR_KEYWORD:
            call_kwargs.update({ARG_NAMES.get(k, k): v for k, v in value.items()})
            continue
        if i == 0 or (qualified in _POSITIONAL and i < _POSITIONAL[qualified]):
            call_args.append(value)
            continue
        if value is param.default or value is np._NoValue:
            continue
        if param.name in ("out", "where", "initial", "dtype", "order", "casting", "subok",
                          "like", "copy", "mode"):
            if value is None or (param.name == "where" and value is True):
                continue
            raise _Unsupported(f"argument {param.name}={value!r}")
        call_kwargs[ARG_NAMES.get(param.name, param.name)] = value
    _fix_up(qualified, call_args, call_kwargs)
    return call_args, call_kwargs


# functions whose first n numpy arguments stay positional (numpy and PyTorch agree on order)
_POSITIONAL = {"where": 3, "matmul": 2, "outer": 2, "inner": 2, "einsum": 1,
               "tensordot": 2, "maximum": 2, "minimum": 2, "add": 2, "subtract": 2,
               "multiply": 2, "divide": 2, "power": 2, "linalg.solve": 2,
               "kron": 2, "atan2": 2, "arctan2": 2, "hypot": 2, "take_along_axis": 2,
               "split": 2, "array_split": 2}


def _fix_up(qualified, args, kwargs):
    """Where numpy and PyTorch disagree beyond names."""
    if qualified in ("concatenate", "concat", "stack", "hstack", "vstack", "dstack",
                     "column_stack"):
        args[0] = list(args[0])
        if kwargs.get("dim", 0) is None:   # numpy: axis=None flattens first
            import minigrad
            args[0] = [minigrad.reshape(t, (-1,)) for t in args[0]]
            kwargs["dim"] = 0
    if qualified in ("transpose", "permute_dims"):
        dims = kwargs.pop("dims", None)
        kwargs["dims"] = tuple(range(_ndim(args[0]) - 1, -1, -1)) if dims is None else tuple(dims)
    if qualified in ("cumsum", "cumprod") and kwargs.get("dim", None) is None:
        import minigrad
        args[0] = minigrad.reshape(args[0], (-1,))
        kwargs["dim"] = 0
    if qualified in ("squeeze", "expand_dims", "flip", "roll") and isinstance(kwargs.get("dim"), list):
        kwargs["dim"] = tuple(kwargs["dim"])
    if qualified == "flip" and "dim" in kwargs:
        dim = kwargs.pop("dim")
        kwargs["dims"] = dim if isinstance(dim, (tuple, list)) else (dim,)
    elif qualified == "flip":
        kwargs["dims"] = tuple(range(_ndim(args[0])))
    if qualified == "roll" and "dim" in kwargs:
        kwargs["dims"] = kwargs.pop("dim")
    if qualified == "reshape" and "shape" in kwargs and len(args) == 1:
        args.append(kwargs.pop("shape"))
    if qualified == "broadcast_to" and "shape" in kwargs:
        args.append(kwargs.pop("shape"))
    if qualified in ("max", "min", "amax", "amin") and kwargs.get("dim", None) is None:
        kwargs["dim"] = tuple(range(_ndim(args[0])))
    if qualified == "ravel":
        del args[1:]
        kwargs.clear()
    for key in ("dim", "dims"):
        if isinstance(kwargs.get(key), list):
            kwargs[key] = tuple(kwargs[key])


def _ndim(value):
    data = getattr(value, "_data", value)
    return data.ndim if hasattr(data, "ndim") else np.ndim(data)


def _lookup(name):
    import minigrad
    target = minigrad
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target if callable(target) else None


# --------------------------------------------------------------------- helpers
def _needs_grad(values):
    from minigrad.autograd import grad_mode
    if not grad_mode.enabled:
        return False
    return any(_requires_grad(v) for v in values)


def _requires_grad(value):
    from minigrad._tensor import Tensor
    if isinstance(value, Tensor):
        return value._requires_grad
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(v) for v in value)
    return False


def _strip(value):
    from minigrad._tensor import Tensor
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, list):
        return [_strip(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_strip(v) for v in value)
    return value


def _is_array(value):
    """A numpy array, or an array of a device library (CuPy's results are never scalars)."""
    return isinstance(value, np.ndarray) or (
        hasattr(value, "shape") and namespace_of(value) is not np)


def _dress(value):
    from minigrad._tensor import _wrap
    if _is_array(value):
        return _wrap(value)
    if isinstance(value, np.generic) and not isinstance(value, (np.bool_,)):
        return _wrap(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_dress(v) for v in value)
    if isinstance(value, list) and value and _is_array(value[0]):
        return [_dress(v) for v in value]
    return value


def _on_data(func, args, kwargs):
    """Compute with numpy on the Tensors' data (nothing here needs a gradient)."""
    return _dress(func(*_strip(args), **{k: _strip(v) for k, v in kwargs.items()}))
