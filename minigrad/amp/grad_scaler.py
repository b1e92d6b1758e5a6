"""``GradScaler``: dynamic loss scaling, as ``torch.amp.GradScaler``.

It multiplies the loss by a scale before backward, divides the gradients by it before the
optimizer's step (``unscale_``), skips the step where a gradient is inf or NaN, and then
halves the scale (``backoff_factor``), or doubles it (``growth_factor``) after
``growth_interval`` steps in a row without one.  That is what float16 training needs, and
it does the same in any precision (a scaled loss that overflows skips its step), so a
script with ``GradScaler("cpu")`` runs as under PyTorch.  On "cuda" without CUDA it turns
itself off with PyTorch's warning; disabled, every method passes through.

>>> scaler = minigrad.amp.GradScaler("cpu")
>>> scaler.get_scale()
65536.0
"""
import warnings

from minigrad import _dtypes
from minigrad._array import namespace_of
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import tensor as _tensor_of

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if enabled and device == "cuda":
            warnings.warn("minigrad.amp.GradScaler is enabled, but CUDA is not available. "
                          "Disabling.")
            enabled = False
        self._device, self._enabled = device, enabled
        if enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._scale, self._init_scale = None, init_scale   # (the scale: made at first use)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval, self._growth_tracker = growth_interval, 0
        self._stages, self._found_inf = {}, {}   # per optimizer (by id), until update()

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor, or tensors nested in lists and tuples) times the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = float(_dtypes.float32.type(self._init_scale))
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * _scalar_like(outputs, self._scale)

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place, and note whether any is
        inf or NaN (then ``step`` skips the step)."""
        if not self._enabled:
            return
        stage = self._stages.get(id(optimizer), _READY)
        if stage == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if stage == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate "
                                 "your script did not use scaler.scale(loss or outputs) "
                                 "earlier in the iteration.")
        # 1 / scale in double, then rounded to float32, as PyTorch's inverse scale
        inverse = float(_dtypes.float32.type(1.0 / self._scale))
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(_scalar_like(p.grad, inverse))
                    xp = namespace_of(p.grad._data)
                    found_inf = found_inf or not bool(xp.isfinite(p.grad._data).all())
        self._found_inf[id(optimizer)] = found_inf
        self._stages[id(optimizer)] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` on unscaled gradients, skipped (None) where one is inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        stage = self._stages.get(id(optimizer), _READY)
        if stage == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if stage == _READY:
            self.unscale_(optimizer)
        result = None if self._found_inf[id(optimizer)] else optimizer.step(*args, **kwargs)
        self._stages[id(optimizer)] = _STEPPED
        return result

    def update(self, new_scale=None):
        """The scale for the next iteration: ``new_scale``, or backed off after an inf or
        NaN, or grown after ``growth_interval`` clean steps in a row."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(getattr(new_scale, "item", lambda: new_scale)())
        else:
            if not self._found_inf:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(self._found_inf.values()):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
            self._scale = float(_dtypes.float32.type(self._scale))   # (a float32, as PyTorch's)
        self._stages, self._found_inf = {}, {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


def _scalar_like(tensor, value):
    """``value`` as a 0-d float32 tensor on ``tensor``'s device (it does not upcast a
    float16 tensor, and a float64 one keeps its dtype, as PyTorch's 0-d scale)."""
    return _tensor_of(value, dtype=_dtypes.float32, device=tensor.device)
