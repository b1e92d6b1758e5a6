"""``functional_call``: run a module with parameters and buffers given for the call;
``stack_module_state``: the parameters and buffers of several such modules, stacked (an
ensemble, run with ``vmap``)."""
from collections.abc import Sequence

from minigrad._generated import functions
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


def stack_module_state(models):
    """``(params, buffers)``: for each name, the tensors of ``models`` (modules of one
    class, all training or all in eval mode) stacked along a new dim 0, as
    ``torch.func.stack_module_state``.  The stacked parameters are new leaves (an
    optimizer can take them); ``vmap`` over ``functional_call`` with them runs an
    ensemble.

    >>> models = [minigrad.nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = minigrad.func.stack_module_state(models)
    >>> params["weight"].shape
    minigrad.Size([4, 2, 3])
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({model.training for model in models}) > 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(model) is not type(models[0]) for model in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    return (_stacked_by_name([dict(model.named_parameters()) for model in models]),
            _stacked_by_name([dict(model.named_buffers()) for model in models]))


def _stacked_by_name(states):
    stacked = {}
    for name in states[0]:
        tensors = [state[name] for state in states]
        flags = {t.requires_grad for t in tensors}
        if len(flags) > 1:
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        value = functions.stack(tensors)
        stacked[name] = value.detach().requires_grad_() if flags == {True} else value
    return stacked
