"""minigrad.amp: PyTorch's automatic mixed precision API, for code that uses it optionally.

minigrad has no mixed-precision kernels, so autocast stays off:
``autocast(..., enabled=False)`` passes everything through unchanged (as PyTorch's does),
CUDA autocast on a machine without CUDA disables itself with a warning, as PyTorch's, and
autocast on the CPU raises an error that says minigrad cannot do it.  ``GradScaler``'s
loss scaling works in any precision (amp/grad_scaler.py).

>>> scaler = minigrad.amp.GradScaler("cpu", enabled=False)
>>> with minigrad.autocast("cpu", enabled=False):
...     pass
"""
import functools
import warnings

from minigrad.amp.grad_scaler import GradScaler  # noqa: F401

_NO_AUTOCAST = ("minigrad has no automatic mixed precision: autocast would run ops in a lower "
                "precision, which minigrad's kernels do not do. Use autocast(..., enabled=False), "
                "or convert the model and inputs yourself (e.g. model.double()).")


def is_autocast_available(device_type):
    return False


class autocast:
    """Context manager and decorator; only ``enabled=False`` (or CUDA without a GPU) runs."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if enabled and device_type == "cuda":
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. "
                          "Disabling")
            enabled = False
        self.device_type, self.fast_dtype, self._enabled = device_type, dtype, enabled

    def __enter__(self):
        if self._enabled:
            raise NotImplementedError(_NO_AUTOCAST)
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return run
