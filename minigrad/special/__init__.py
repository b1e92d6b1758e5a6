"""minigrad.special: as torch.special; the ops derivatives.yaml exports under this module."""
from minigrad._generated.api_special import *  # noqa: F401,F403
from minigrad._generated.functions import igamma, igammac, mvlgamma

# torch.special's names for ops declared under their torch names (one entry, one node:
# PyTorch's gammainc is igamma, with igamma's errors)
gammainc = igamma
gammaincc = igammac
multigammaln = mvlgamma
