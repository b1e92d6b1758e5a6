"""minigrad.amp: PyTorch's automatic mixed precision API, for code that uses it optionally.

minigrad has no mixed-precision kernels, so mixed precision stays off:
``autocast(..., enabled=False)`` and a disabled ``GradScaler`` pass everything
through unchanged (as PyTorch's do), and asking for CUDA autocast or scaling on a
machine without CUDA disables it with a warning, as PyTorch does.  Turning
autocast on for the CPU raises an error that says minigrad cannot do it.

>>> scaler = minigrad.amp.GradScaler("cpu", enabled=False)
>>> with minigrad.autocast("cpu", enabled=False):
...     pass
"""
import functools
import warnings

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


class GradScaler:
    """Loss scaling for float16 training; disabled in minigrad, where it passes through.

    With ``enabled=False`` (or on "cuda" without a GPU, as PyTorch) ``scale(loss)`` is
    ``loss``, ``step(optimizer)`` is ``optimizer.step()`` and ``update()`` does nothing.
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if enabled and device == "cuda":
            warnings.warn("minigrad.amp.GradScaler is enabled, but CUDA is not available. "
                          "Disabling.")
            enabled = False
        if enabled:
            raise NotImplementedError(
                "minigrad has no float16 training, so GradScaler has nothing to scale: create it "
                "with enabled=False (scripts then run unchanged)")
        self._device = device
        self._enabled = False

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        """Nothing to do: a disabled scaler never scaled the gradients."""

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Nothing to do: a disabled scaler keeps no scale."""

    def get_scale(self):
        return 1.0

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        """Nothing to do: a disabled scaler has no state."""
