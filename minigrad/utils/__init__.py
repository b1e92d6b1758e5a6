"""minigrad.utils: checkpointing (minigrad.utils.checkpoint)."""
from minigrad.utils import checkpoint  # noqa: F401
