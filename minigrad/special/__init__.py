"""minigrad.special: as torch.special; the ops derivatives.yaml exports under this module."""
from minigrad._generated.api_special import *  # noqa: F401,F403
