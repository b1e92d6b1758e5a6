"""nn.utils.weight_norm / remove_weight_norm: the hook-based weight normalisation
(``weight = g * v / ||v||``), deprecated in PyTorch in favour of
``nn.utils.parametrizations.weight_norm`` but still in many published models.

>>> m = weight_norm(nn.Linear(20, 40), name="weight")
>>> m.weight_g.shape, m.weight_v.shape
((40, 1), (40, 20))
"""
import warnings

from minigrad.nn.parameter import Parameter


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dimension but ``dim``, shaped to broadcast against
    ``v``; ``dim=-1`` (PyTorch's spelling of ``dim=None``) is the whole tensor's norm."""
    if dim == -1:
        return v.norm(2)
    if dim == 0:
        shape = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(2, dim=1).view(*shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.size(-1),)
        return v.contiguous().view(-1, v.size(-1)).norm(2, dim=0).view(*shape)
    return _norm_except_dim(v.transpose(0, dim), 0).transpose(0, dim)


class WeightNorm:
    """The forward pre-hook that recomputes ``name`` from ``name_g`` and ``name_v``."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as magnitude ``<name>_g`` times direction
    ``<name>_v / ||<name>_v||`` (norm over every dim but ``dim``; ``dim=None``: whole
    tensor), recomputed before every forward."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                  stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm`: ``<name>`` becomes a plain Parameter again."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
