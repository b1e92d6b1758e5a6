"""minigrad.autograd: the engine, graph nodes, grad mode, and gradient checking."""
from minigrad.autograd import grad_mode  # noqa: F401
from minigrad.autograd.functional import backward, grad  # noqa: F401
from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from minigrad.autograd.node import AccumulateGrad, Node  # noqa: F401
from minigrad.autograd import clogs, graph, leaks  # noqa: F401,E402
from minigrad.autograd.clogs import (  # noqa: F401,E402
    GradientClogError, GradientClogWarning, clog_mode, get_clog_mode, set_clog_mode)
from minigrad.autograd.leaks import (  # noqa: F401,E402
    GradientLeakError, GradientLeakWarning, get_leak_mode, set_leak_mode)
from minigrad.autograd.trace import trace  # noqa: F401,E402
