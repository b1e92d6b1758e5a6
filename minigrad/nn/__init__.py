"""minigrad.nn: as torch.nn (functional ops for now)."""
from minigrad.nn import functional  # noqa: F401
