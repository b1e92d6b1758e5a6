"""Optimizer: the base class of every optimizer (PyTorch's ``torch.optim.Optimizer``).

An optimizer holds ``param_groups`` (dicts with ``"params"`` and the options) and
``state`` (per-parameter buffers keyed by the parameter tensor).  Subclasses write
``step``; the base class does the bookkeeping: groups, defaults, ``zero_grad`` and
``state_dict``/``load_state_dict`` in PyTorch's format, so checkpoints written by one
library's code read the same in the other's.

The built-in optimizers update ``p._data`` (the parameter's numpy storage) in place
and bump the parameter's version counter, which is what ``p.add_(...)`` under
``no_grad`` does, without building Tensors for the intermediate values.
"""
from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from minigrad._array import to_device
from minigrad._dtypes import get_default_dtype
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode
from minigrad.nn.modules.module import reset_grad

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks an option that every param group must set (``SGD(lr=required)`` in old torch)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class _RemovableHandle:
    """Returned by the hook registration methods; ``.remove()`` unregisters the hook."""
    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = _RemovableHandle._next_id
        _RemovableHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.id, None)


def _typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()  # torch.typename: the legacy type, "minigrad.FloatTensor"
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__") else f"{module}.{name}"


def _scalar(value):
    """A Python number from a float or a one-element Tensor (``lr`` may be either)."""
    return value.item() if isinstance(value, Tensor) else value


def _step_tensor():
    """A fresh step counter: a 0-d tensor as PyTorch keeps in ``state["step"]`` (float32,
    float64 when that is the default dtype)."""
    dtype = np.float64 if np.dtype(get_default_dtype()) == np.float64 else np.float32
    return _wrap(np.zeros((), dtype=dtype))


def _increment(step):
    step._data += 1
    step._version_counter[0] += 1
    return step._data.item()


def _bump(*tensors):
    """Record an in-place write to each tensor's storage (saved copies notice it)."""
    for t in tensors:
        t._version_counter[0] += 1


def _check_differentiable(differentiable):
    """``differentiable=True`` (gradients through the update itself) is not built."""
    if differentiable:
        raise NotImplementedError(
            "minigrad's optimizers do not support differentiable=True (backpropagating through "
            "the optimizer step); their updates run under no_grad. Use differentiable=False.")


def _no_grad_step(step):
    """Run an optimizer's ``step`` without recording a graph; the closure still can."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with grad_mode.no_grad():
            return step(self, *args, **kwargs)
    return wrapper


def _evaluate(closure):
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return closure()


class Optimizer:
    """Base class for all optimizers.

    ``params`` is an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts
    (param groups, each with its own options); ``defaults`` fills the options a group
    leaves out.

    >>> class PlainSGD(minigrad.optim.Optimizer):
    ...     def __init__(self, params, lr=0.1):
    ...         super().__init__(params, {"lr": lr})
    ...     @minigrad.no_grad()
    ...     def step(self, closure=None):
    ...         for group in self.param_groups:
    ...             for p in group["params"]:
    ...                 if p.grad is not None:
    ...                     p -= group["lr"] * p.grad
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        _patch_step(type(self))
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)


    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # ------------------------------------------------------------ param groups
    def add_param_group(self, param_group):
        """Add a group (a dict with ``"params"`` and options) to ``param_groups``,
        e.g. layers unfrozen while fine-tuning.  Options it leaves out come from
        ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names
        self._check_params(param_group["params"])
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        self._check_disjoint(param_group)
        self.param_groups.append(param_group)

    def _check_params(self, params):
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=4)

    def _check_disjoint(self, param_group):
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

    # ---------------------------------------------------------------- stepping
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every parameter: to ``None`` (default) or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None   # (reset_grad's work for it, a call and a read less)
                else:
                    reset_grad(p, set_to_none)

    def step(self, closure=None):
        """Perform one optimization step; ``closure`` re-evaluates the model and
        returns the loss (needed by LBFGS, optional for the others)."""
        raise NotImplementedError

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before each ``step``; it may return
        new ``(args, kwargs)``."""
        handle = _RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after each ``step``."""
        handle = _RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    # -------------------------------------------------------------- state dict
    def state_dict(self):
        """The optimizer's state as ``{"state": {index: {...}}, "param_groups": [...]}``.

        Parameters are replaced by their index in group order, as in PyTorch, so
        the dict can be loaded into an optimizer built over other tensors of the
        same shapes.  The state's tensors are the live buffers (not copies).
        """
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a dict from ``state_dict()``: the groups' options and each parameter's
        buffers (cast to the parameter's dtype; ``step`` stays as saved).

        Unlike PyTorch, buffers are copied rather than shared with ``state_dict``,
        so two optimizers loaded from one dict never update each other's state.
        """
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group "
                             "that doesn't match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = _cast(id_map[k], v)
            else:
                state[k] = v
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _cast(param, value, key=None):
    """A deep copy of ``value`` whose tensors take ``param``'s dtype and device (``step``
    keeps its own, on the CPU, as torch's)."""
    if isinstance(value, Tensor):
        array = value._data
        if key != "step":
            array = to_device(array, param.device.type, param.device.index)
        if key != "step" and param.is_floating_point() and array.dtype != param._data.dtype:
            return _wrap(array.astype(param._data.dtype))
        return _wrap(array.copy())
    if isinstance(value, dict):
        return {k: _cast(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return copy.deepcopy(value)


def _patch_step(cls):
    """Make ``cls.step`` run the step hooks, once per class, as PyTorch patches it."""
    step = cls.step
    if not getattr(step, "_runs_step_hooks", False):
        cls.step = _with_step_hooks(step)


def _with_step_hooks(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        # (each loop behind a test of its dict: most optimizers have no hooks, and the
        # list of none costs calls every step)
        if self._optimizer_step_pre_hooks:
            for pre_hook in list(self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"{pre_hook} must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
        out = step(self, *args, **kwargs)
        self._opt_called = True  # lets a scheduler warn when it steps first
        if self._optimizer_step_post_hooks:
            for post_hook in list(self._optimizer_step_post_hooks.values()):
                post_hook(self, args, kwargs)
        return out
    wrapper._runs_step_hooks = True
    return wrapper


class _PerParameterOptimizer(Optimizer):
    """An optimizer whose step updates each parameter that has a gradient on its own, with
    ``self._update(p, group)`` (Adam, RMSprop, Adagrad, ...): the loop is written once here."""

    @_no_grad_step
    def step(self, closure=None):
        """One update of every parameter with a gradient; ``closure`` re-evaluates the loss."""
        loss = _evaluate(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return loss

    def _update(self, p, group):
        raise NotImplementedError(f"{type(self).__name__} must define _update(p, group)")
