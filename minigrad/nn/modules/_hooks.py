"""Hook handles and the machinery of a Module's full backward hooks.

As torch's ``torch.utils.hooks.BackwardHook``: the module's tensor inputs and
outputs pass through identity Functions; the outputs' one sees ``grad_output``
(backward pre-hooks run there), the inputs' one sees ``grad_input`` and calls
the full backward hooks with both.
"""
import itertools

from minigrad._tensor import Tensor
from minigrad.autograd import grad_mode
from minigrad.autograd.function import Function


class RemovableHandle:
    """What ``register_*_hook`` returns: ``handle.remove()`` unregisters the hook
    (also usable as a context manager)."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = next(RemovableHandle._next_id)
        if extra_dict is None:
            extra_dict = []
        elif isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dicts = list(extra_dict)

    def remove(self):
        for d in [self.hooks_dict] + self.extra_dicts:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class BackwardHookFunction(Function):
    """Returns its tensors unchanged; in backward, ``on_grads(grads)`` may replace them.
    (torch's name: its outputs print ``grad_fn=<BackwardHookFunctionBackward>``.)"""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_grads(grads))


def _tensor_positions(values):
    return [i for i, v in enumerate(values) if isinstance(v, Tensor)]


def _through_identity(values, on_grads):
    """``values`` with its tensors replaced by BackwardHookFunction outputs (None if nothing to hook)."""
    positions = _tensor_positions(values)
    if not grad_mode.enabled or not any(values[i].requires_grad for i in positions):
        return None
    new = BackwardHookFunction.apply(on_grads, *(values[i] for i in positions))
    out = list(values)
    for i, t in zip(positions, new):
        out[i] = t
    return positions, tuple(out)


class BackwardHook:
    """One forward call's state for the full backward (pre-)hooks of ``module``."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions = None

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        wrapped = _through_identity(tuple(args), self._on_input_grads) if self.user_hooks \
            else None
        if wrapped is None:
            return args
        self.input_positions, args = wrapped
        return args

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        values = (result,) if single else result
        if not isinstance(values, tuple):
            return result
        wrapped = _through_identity(values, self._on_output_grads)
        if wrapped is None:
            return result
        return wrapped[1][0] if single else wrapped[1]

    def _on_output_grads(self, grads):
        for hook in self.user_pre_hooks:
            res = hook(self.module, grads)
            if res is None:
                continue
            res = res if isinstance(res, tuple) else (res,)
            if len(res) != len(grads):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output,"
                                   f" got {len(res)}, but expected {len(grads)}")
            grads = res
        self.grad_outputs = grads
        if self.input_positions is None:
            # no input requires grad: the hooks run now, with grad_input all None
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not all(r is None for r in res):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return grads

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:
            raise RuntimeError("Module backward hook for grad_input is called before the "
                               "grad_output one. This happens because the gradient in your "
                               "nn.Module flows to the Module's input without passing through "
                               "the Module's output.")
        full = [None] * self.n_inputs
        for i, g in zip(self.input_positions, grads):
            full[i] = g
        grad_inputs = tuple(full)
        for hook in self.user_hooks:
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is None:
                continue
            res = res if isinstance(res, tuple) else (res,)
            if len(res) != len(grad_inputs):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(res)}, but expected {len(grad_inputs)}")
            grad_inputs = res
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_positions)
