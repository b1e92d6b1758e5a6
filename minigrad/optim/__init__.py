"""minigrad.optim: optimizers and learning-rate schedulers with PyTorch's names and rules.

>>> opt = minigrad.optim.Adam(model.parameters(), lr=1e-3)
>>> opt.zero_grad(); loss.backward(); opt.step()
"""
from minigrad.optim.optimizer import Optimizer  # noqa: F401
from minigrad.optim.adadelta import Adadelta  # noqa: F401
from minigrad.optim.adagrad import Adagrad  # noqa: F401
from minigrad.optim.adam import Adam, AdamW  # noqa: F401
from minigrad.optim.adafactor import Adafactor  # noqa: F401
from minigrad.optim.adamax import Adamax  # noqa: F401
from minigrad.optim.asgd import ASGD  # noqa: F401
from minigrad.optim.lbfgs import LBFGS  # noqa: F401
from minigrad.optim.nadam import NAdam  # noqa: F401
from minigrad.optim.radam import RAdam  # noqa: F401
from minigrad.optim.rmsprop import RMSprop  # noqa: F401
from minigrad.optim.rprop import Rprop  # noqa: F401
from minigrad.optim.sgd import SGD  # noqa: F401
from minigrad.optim import lr_scheduler  # noqa: F401
from minigrad.optim import swa_utils  # noqa: F401

__all__ = ["Optimizer", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "ASGD",
           "LBFGS", "NAdam",
           "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler", "swa_utils"]
