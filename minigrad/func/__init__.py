"""minigrad.func: composable function transforms, as ``torch.func``.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` are reverse mode; ``jvp``,
``jacfwd``, ``linearize`` and ``hessian`` (forward-over-reverse) use forward mode
(``minigrad.autograd.forward_ad``); ``vmap`` maps a function over a dimension of its
inputs (one call per slice, stacked); ``functional_call`` runs a module with given
parameters, ``stack_module_state`` stacks several modules' for an ensemble.

>>> from minigrad.func import grad, jacrev, vmap
>>> x = minigrad.tensor([1.0, 2.0])
>>> grad(lambda x: (x ** 2).sum())(x)
tensor([2., 4.])
>>> jacrev(lambda x: x ** 2)(x)
tensor([[2., 0.],
        [0., 4.]])
>>> vmap(grad(lambda x: x ** 3))(x)
tensor([ 3., 12.])
"""
from minigrad.func._reverse import grad, grad_and_value, jacrev, vjp
from minigrad.func._forward import hessian, jacfwd, jvp, linearize
from minigrad.func._functional_call import functional_call, stack_module_state
from minigrad.func._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]
