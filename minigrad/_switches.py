"""Global switches PyTorch scripts set at the top, with what they mean in minigrad.

minigrad computes with numpy on the CPU: its results are deterministic for a given
seed, and float32 matmuls always run in full float32.  The switches are kept and
reported back as PyTorch does, so scripts that set them run unchanged.

>>> minigrad.use_deterministic_algorithms(True)
>>> minigrad.are_deterministic_algorithms_enabled()
True
"""
import warnings

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}
_PRECISIONS = ("highest", "high", "medium")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (every minigrad op already is one)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


def set_float32_matmul_precision(precision):
    """PyTorch's TF32 switch for GPUs; minigrad's float32 matmuls are always full precision."""
    if precision not in _PRECISIONS:  # torch warns and keeps the old setting
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]
