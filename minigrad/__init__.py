"""minigrad: reverse-mode autodiff for numpy with PyTorch's user model.

>>> import minigrad as mg
>>> x1 = mg.tensor(2.0, requires_grad=True); x2 = mg.tensor(3.0, requires_grad=True)
>>> y = x1 * (x1 + x2); y.backward()
>>> x1.grad, x2.grad
(tensor(7.), tensor(2.))

Every op and its derivative is declared in derivatives.yaml; the code in
minigrad/_generated/ is written from it by `python -m codegen`.
"""
from minigrad._tensor import Tensor  # noqa: F401  (first: it binds the generated methods)
from minigrad import autograd  # noqa: F401
from minigrad.autograd.grad_mode import (  # noqa: F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled)
from minigrad.creation import (  # noqa: F401
    arange, bool_, empty, empty_like, eye, float32, float64, from_numpy, full, full_like, int32,
    int64, linspace, manual_seed, ones, ones_like, rand, randint, randn, tensor, zeros, zeros_like)
from minigrad._generated.api_minigrad import *  # noqa: F401,F403 - the generated ops
from minigrad.functional import einsum, tensordot  # noqa: F401,E402 - varargs / dims forms
from minigrad import linalg, nn, special  # noqa: F401,E402
from minigrad import viz  # noqa: F401,E402
