"""Helpers that derivatives.yaml formulas may call besides the ops themselves.

Each helper is written once and works on both kinds of value a formula sees:
numpy arrays in a plain backward, Tensors under ``create_graph=True``.  Helpers
that compute must do so through ``F = ops_for(x)`` so that, on Tensors, they
record a differentiable graph; helpers on shapes return plain Python values.
codegen finds every public function defined in this package's modules.
"""
from minigrad.autograd.formulas.core import *  # noqa: F401,F403
from minigrad.autograd.formulas.elementwise import *  # noqa: F401,F403
from minigrad.autograd.formulas.reductions import *  # noqa: F401,F403
from minigrad.autograd.formulas.shape import *  # noqa: F401,F403
from minigrad.autograd.formulas.linalg import *  # noqa: F401,F403
from minigrad.autograd.formulas.linalg_factor import *  # noqa: F401,F403
from minigrad.autograd.formulas.nn import *  # noqa: F401,F403
from minigrad.autograd.formulas.conv import *  # noqa: F401,F403
from minigrad.autograd.formulas.rnn import *  # noqa: F401,F403
from minigrad.autograd.formulas.stacking import *  # noqa: F401,F403
from minigrad.autograd.formulas.forward import *  # noqa: F401,F403
from minigrad.autograd.formulas.device import *  # noqa: F401,F403
from minigrad.autograd.formulas.ctc import *  # noqa: F401,F403
from minigrad.autograd.formulas.scatter import *  # noqa: F401,F403
from minigrad.autograd.formulas.special import *  # noqa: F401,F403
from minigrad.autograd.formulas.strided import *  # noqa: F401,F403
