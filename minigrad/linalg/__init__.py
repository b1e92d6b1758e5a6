"""minigrad.linalg: as torch.linalg; the ops derivatives.yaml exports under this module."""
from minigrad._generated.api_linalg import *  # noqa: F401,F403
