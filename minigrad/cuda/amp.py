"""minigrad.cuda.amp: PyTorch's older spelling of ``minigrad.amp`` for CUDA."""
from minigrad import amp as _amp


def autocast(enabled=True, dtype=None, cache_enabled=True):
    """``minigrad.amp.autocast("cuda", ...)``."""
    return _amp.autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def GradScaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
               enabled=True):
    """``minigrad.amp.GradScaler("cuda", ...)``."""
    return _amp.GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                           enabled)
