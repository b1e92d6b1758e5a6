"""``minigrad.signal``: torch.signal's window functions (``minigrad.signal.windows``)."""
from minigrad.signal import windows  # noqa: F401

__all__ = ["windows"]
