"""nn.utils.skip_init: a module built without running its initialisation's values into
its parameters, as ``torch.nn.utils.skip_init`` (for weights about to be loaded).

>>> m = skip_init(nn.Linear, 5, 1)
>>> m.weight.shape
minigrad.Size([1, 5])
"""
import inspect

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import empty_like
from minigrad.nn.modules.module import Module
from minigrad.nn.parameter import Parameter

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised (empty) parameters and
    buffers on ``device``.  torch builds it on the meta device; minigrad has none, so
    the module is built where it goes and its tensors are then replaced by empty ones
    (torch's ``to_empty``): the values are as arbitrary as torch's."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    module = module_cls(*args, **kwargs)
    for sub in module.modules():
        with no_grad():
            for name, param in sub._parameters.items():
                if param is not None:
                    sub._parameters[name] = Parameter(empty_like(param), param.requires_grad)
            for name, buf in sub._buffers.items():
                if buf is not None:
                    sub._buffers[name] = empty_like(buf)
    return module
