"""``functional_call``: run a module with parameters and buffers given for the call."""
from collections.abc import Sequence

from minigrad.nn.utils import stateless


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors
    in ``parameter_and_buffer_dicts`` (a dict, or a sequence of dicts with distinct keys),
    as ``torch.func.functional_call``.  The module's own tensors are back afterwards, also
    when the call raises.  ``tie_weights``: a value given for one of several names of a
    shared tensor is used for all of them; ``strict``: every name must be given.

    >>> net = minigrad.nn.Linear(2, 1)
    >>> params = {k: v.detach() * 0 for k, v in net.named_parameters()}
    >>> minigrad.func.functional_call(net, params, (minigrad.ones(1, 2),))
    tensor([[0.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        seen, repeated = set(), []
        for key in (k for d in parameter_and_buffer_dicts for k in d):
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return stateless.functional_call(module, parameters_and_buffers, args, kwargs,
                                     tie_weights=tie_weights, strict=strict)
