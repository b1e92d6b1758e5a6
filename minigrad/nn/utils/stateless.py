"""Call a module with some parameters and buffers swapped for given tensors
(``torch.nn.utils.stateless``); ``minigrad.func.functional_call`` is the public entry.

The swap writes straight into each submodule's ``_parameters`` / ``_buffers`` (so a
plain tensor may stand in for a Parameter) and is undone when the call returns or
raises.
"""
import contextlib

from minigrad._tensor import Tensor
from minigrad.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()  # the attribute did not exist before the swap


def _submodule(module, path, memo):
    if not path:
        return module
    if path not in memo:
        prefix, _, attr = path.rpartition(".")
        parent = _submodule(module, prefix, memo)
        try:
            child = getattr(parent, attr)
        except AttributeError as ex:
            raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(child, Module):
            raise TypeError(f"submodule `{path}`: {child} is not an instance of torch.nn.Module")
        memo[path] = child
    return memo[path]


def _swap_tensor(module, name, tensor):
    """Put ``tensor`` (or, for ``_MISSING``, nothing) at ``module.name``; return what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for registry in (module._parameters, module._buffers):
        if name in registry:
            original = registry[name]
            if tensor is _MISSING:
                del registry[name]
            else:
                registry[name] = tensor
            return original
    original = getattr(module, name, _MISSING)
    if original is not _MISSING and original is not None and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return original


def _swap_all(module, named_tensors, memo):
    originals = {}
    try:
        for name, tensor in named_tensors.items():
            prefix, _, attr = name.rpartition(".")
            originals[name] = _swap_tensor(_submodule(module, prefix, memo), attr, tensor)
    except Exception:
        _restore(module, originals, memo)
        raise
    return originals


def _restore(module, originals, memo):
    for name, tensor in originals.items():
        prefix, _, attr = name.rpartition(".")
        _swap_tensor(_submodule(module, prefix, memo), attr, tensor)


def _untie(module, parameters_and_buffers):
    """Give every name tied to a given one (a shared tensor) the same new value."""
    by_tensor = {}
    for name, tensor in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        by_tensor.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in by_tensor.values() if len(names) > 1 for name in names}
    given = [name for name in parameters_and_buffers if name in tied]
    for name in given:
        names = tied[name]
        if len(names.intersection(given)) > 1 and len(
                {id(parameters_and_buffers[n]) for n in names if n in parameters_and_buffers}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


def _check_keys(module, keys, strict):
    if not strict:
        return
    valid = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    valid |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
    messages = []
    unexpected, missing = sorted(set(keys) - valid), sorted(valid - set(keys))
    if unexpected:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if messages:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(messages)))


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """Within the block, ``module``'s named tensors are those given; restored after.

    As in PyTorch, a tensor the module reassigned during the block (``self.buf = ...``)
    is written back into ``parameters_and_buffers``."""
    untied = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    _check_keys(module, untied, strict)
    memo = {}
    originals = _swap_all(module, untied, memo)
    try:
        yield
    finally:
        current = _swap_all(module, originals, memo)
        parameters_and_buffers.update(
            {k: current[k] for k in parameters_and_buffers if k in current})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced."""
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)
