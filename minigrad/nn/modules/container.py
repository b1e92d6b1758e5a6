"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
>>> model[0]
Linear(in_features=4, out_features=8, bias=True)
"""
from collections import OrderedDict
import operator

from minigrad._tensor import Tensor
from minigrad.nn.parameter import Parameter
from minigrad.nn.modules import module
from minigrad.nn.modules.module import Module, _addindent


def _index(idx, size, owner):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _NumberedModules(Module):
    """Sequential's and ModuleList's shared behaviour: children numbered 0, 1, ... in order."""

    def __delitem__(self, idx):
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self), self)]]):
            delattr(self, key)
        # keep the numbering contiguous, as torch does
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class Sequential(_NumberedModules):
    """Modules called in order, each on the previous one's output."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), self)]

    def __setitem__(self, idx, module):
        key = list(self._modules)[_index(idx, len(self), self)]
        setattr(self, key, module)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(modules))
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_NumberedModules):
    """A list of modules whose parameters the parent registers."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), self))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self), self)), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not hasattr(modules, "__iter__"):   # (a Sequential or a ModuleList is iterable)
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = OrderedDict()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __repr__(self):
        # runs of identical children print once, as torch: "(0-2): 3 x Linear(...)"
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        runs = [[0, 0, reprs[0]]]
        for i, r in enumerate(reprs[1:], 1):
            if r == runs[-1][2]:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for start, end, block in runs:
            text = f"({start}): {block}" if start == end else \
                f"({start}-{end}): {end - start + 1} x {block}"
            lines.append(_addindent(text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    forward = None


class ModuleDict(Module):
    """An ordered dict of modules whose parameters the parent registers."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]
        module.state_changes[0] += 1

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()
        module.state_changes[0] += 1

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for j, item in enumerate(items):
            if hasattr(modules, "items"):
                key, module = item
            else:
                if len(item) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                     f"{len(item)}; 2 is required")
                key, module = item
            self[key] = module

    forward = None


def _param_line(p, type_name):
    """torch's line for one entry: ParameterList names the dtype, ParameterDict the legacy
    type (``minigrad.FloatTensor``)."""
    size = "x".join(str(s) for s in p.shape)
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    return f"{kind} containing: [{type_name} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters (tensors are wrapped in Parameter on insertion)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), self)))

    def __setitem__(self, idx, param):
        idx = _index(idx, len(self), self)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({k}): " + (_param_line(p, repr(p.dtype)) if isinstance(p, Tensor)
                                          else "Object of type: " + type(p).__name__)
                         for k, p in enumerate(self))

    forward = None


class ParameterDict(Module):
    """An ordered dict of parameters (tensors are wrapped in Parameter on insertion)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def get(self, key, default=None):
        return self[key] if key in self else default

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in items:
            self[key] = value

    def extra_repr(self):
        return "\n".join(f"  ({k}): " + (_param_line(p, p.type()) if isinstance(p, Tensor)
                                          else "Object of type: " + type(p).__name__)
                         for k, p in self.items())

    forward = None
