"""minigrad.autograd: the engine, graph nodes, grad mode, and gradient checking."""
from minigrad.autograd import grad_mode  # noqa: F401
from minigrad.autograd.api import backward, grad  # noqa: F401
from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from minigrad.autograd.grad_mode import (  # noqa: F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled)
from minigrad.autograd.node import AccumulateGrad, Node  # noqa: F401
from minigrad.autograd.function import Function, FunctionCtx, once_differentiable  # noqa: F401
from minigrad.autograd.anomaly import (  # noqa: F401
    detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly)
from minigrad.autograd import graph  # noqa: F401,E402
from minigrad.autograd import clogs, leaks  # noqa: F401,E402
from minigrad.autograd.clogs import (  # noqa: F401,E402
    GradientClogError, GradientClogWarning, clog_mode, get_clog_mode, set_clog_mode)
from minigrad.autograd.leaks import (  # noqa: F401,E402
    GradientLeakError, GradientLeakWarning, get_leak_mode, set_leak_mode)
from minigrad.autograd.trace import trace  # noqa: F401,E402
from minigrad.autograd import functional  # noqa: F401,E402 - torch.autograd.functional
