"""minigrad.nn.functional: the ops derivatives.yaml exports under this module."""
from minigrad._generated.api_nn_functional import *  # noqa: F401,F403
