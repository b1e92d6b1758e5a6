"""minigrad.nn: as torch.nn (Module, layers, losses, init, utils, functional).

>>> model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
>>> loss = nn.CrossEntropyLoss()(model(x), y)        # doctest: +SKIP
"""
from minigrad.nn import functional  # noqa: F401
from minigrad.nn import init  # noqa: F401
from minigrad.nn.parameter import (Parameter, Buffer, UninitializedParameter,  # noqa: F401
                                   UninitializedBuffer)
from minigrad.nn.modules import *  # noqa: F401,F403
from minigrad.nn.modules import __all__ as _modules_all
from minigrad.nn import utils  # noqa: F401

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", "UninitializedParameter",
           "UninitializedBuffer"] + list(_modules_all)
