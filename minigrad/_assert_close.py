"""``minigrad.testing.assert_close``: PyTorch's check that two results agree, with its
default tolerances per dtype and its messages.

>>> minigrad.testing.assert_close(minigrad.ones(2), minigrad.ones(2) + 1e-7)
"""
import numpy as np

from minigrad._array import to_host
from minigrad._size import Size
from minigrad._tensor import Tensor

# PyTorch's defaults (rtol, atol); integers and bools compare exactly
_TOLERANCES = {np.dtype(np.float16): (1e-3, 1e-5), np.dtype(np.float32): (1.3e-6, 1e-5),
               np.dtype(np.float64): (1e-7, 1e-7)}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` (tensors, numbers, or
    sequences / mappings of them) agree: same shape and dtype, and every element within
    ``atol + rtol * |expected|``."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    _compare(actual, expected, (), dict(rtol=rtol, atol=atol, equal_nan=equal_nan,
                                        check_dtype=check_dtype, msg=msg))


def _compare(actual, expected, path, options):
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                  path, options)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + (i,), options)
    elif isinstance(actual, dict) and isinstance(expected, dict):
        if actual.keys() != expected.keys():
            _fail(f"The keys of the mappings do not match: {sorted(actual)} != "
                  f"{sorted(expected)}", path, options)
        for key in actual:
            _compare(actual[key], expected[key], path + (key,), options)
    else:
        arrays = _as_array(actual, expected), _as_array(expected, actual)
        if any(a is None for a in arrays):
            raise TypeError(f"No comparison pair was able to handle inputs of type "
                            f"{_type_of(actual)} and {_type_of(expected)}.")
        _compare_values(*arrays, path, options)


def _as_array(value, other):
    """The values to compare (None: a pair PyTorch does not compare, a tensor and a list)."""
    if isinstance(value, Tensor):
        return to_host(value._data)
    if isinstance(value, (bool, int, float, np.generic)) and not isinstance(other, Tensor):
        return np.asarray(value, dtype=np.float64 if isinstance(value, float) else None)
    return None


def _type_of(value):
    return "<class 'minigrad.Tensor'>" if isinstance(value, Tensor) else str(type(value))


def _compare_values(actual, expected, path, options):
    if actual.shape != expected.shape:
        _fail(f"The values for attribute 'shape' do not match: {Size(actual.shape)} != "
              f"{Size(expected.shape)}.", path, options)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        from minigrad._dtypes import as_dtype  # the dtype objects minigrad prints
        _fail(f"The values for attribute 'dtype' do not match: {as_dtype(actual.dtype)!r} != "
              f"{as_dtype(expected.dtype)!r}.", path, options)
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = (max(values) for values in zip(_TOLERANCES.get(actual.dtype, (0.0, 0.0)),
                                                    _TOLERANCES.get(expected.dtype, (0.0, 0.0))))
    close = np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    if not close.all():
        _fail(_mismatch(actual, expected, close, rtol, atol), path, options)


def _mismatch(actual, expected, close, rtol, atol):
    floating = actual.dtype.kind == "f" or expected.dtype.kind == "f"
    if not floating:
        actual, expected = actual.astype(np.int64), expected.astype(np.int64)
    abs_diff = np.abs(actual - expected)
    with np.errstate(divide="ignore", invalid="ignore"):  # (integers: in float32, as torch)
        rel_diff = (abs_diff if floating else abs_diff.astype(np.float32)) / \
            np.abs(expected).astype(abs_diff.dtype if floating else np.float32)
    if actual.ndim == 0:
        return _scalar_mismatch(actual, expected, abs_diff, rel_diff, rtol, atol, floating)
    lines = [f"Tensor-likes are not {'close' if floating else 'equal'}!", "",
             f"Mismatched elements: {int((~close).sum())} / {close.size} "
             f"({(~close).sum() / close.size:.1%})"]
    for kind, diff, allowed in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        where = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
        line = f"Greatest {kind} difference: {diff[where].item()} at index {tuple(map(int, where))}"
        lines.append(line + (f" (up to {allowed} allowed)" if floating else ""))
    return "\n".join(lines)


def _scalar_mismatch(actual, expected, abs_diff, rel_diff, rtol, atol, floating):
    allowed = (lambda tolerance: f" (up to {tolerance} allowed)") if floating else (lambda _: "")
    return (f"Scalars are not {'close' if floating else 'equal'}!\n\n"
            f"Expected {expected.item()} but got {actual.item()}.\n"
            f"Absolute difference: {abs_diff.item()}{allowed(atol)}\n"
            f"Relative difference: {rel_diff.item()}{allowed(rtol)}")


def _fail(message, path, options):
    if options["msg"] is not None:
        raise AssertionError(options["msg"])
    if path:
        message += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    raise AssertionError(message)
