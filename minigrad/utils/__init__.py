"""minigrad.utils: checkpointing (minigrad.utils.checkpoint), datasets and loaders (minigrad.utils.data)."""
from minigrad.utils import checkpoint  # noqa: F401
from minigrad.utils import data  # noqa: F401
