"""numpy building blocks for the ``forward:`` expressions in derivatives.yaml.

Each function takes and returns numpy arrays, follows PyTorch's argument
conventions (``dim`` may be an int, a tuple or None), and knows nothing about
autograd.  Add one when a forward needs more than a single numpy call; codegen
finds every public function defined in this package's modules.
"""
from minigrad.kernels.core import *  # noqa: F401,F403
from minigrad.kernels.elementwise import *  # noqa: F401,F403
from minigrad.kernels.reductions import *  # noqa: F401,F403
from minigrad.kernels.shape import *  # noqa: F401,F403
from minigrad.kernels.linalg import *  # noqa: F401,F403
from minigrad.kernels.lu import *  # noqa: F401,F403
from minigrad.kernels.linalg_solvers import *  # noqa: F401,F403
from minigrad.kernels.matrix_exp import *  # noqa: F401,F403
from minigrad.kernels.nn import *  # noqa: F401,F403
from minigrad.kernels.conv import *  # noqa: F401,F403
from minigrad.kernels.rnn import *  # noqa: F401,F403
from minigrad.kernels.quiet import *  # noqa: F401,F403
from minigrad.kernels.sorting import *  # noqa: F401,F403
from minigrad.kernels.stacking import *  # noqa: F401,F403
from minigrad.kernels.device import *  # noqa: F401,F403
from minigrad.kernels.ctc import *  # noqa: F401,F403
from minigrad.kernels.strided import *  # noqa: F401,F403
from minigrad.kernels.number_functions import *  # noqa: F401,F403
from minigrad.kernels.reparam import *  # noqa: F401,F403
from minigrad.kernels.special import *  # noqa: F401,F403
