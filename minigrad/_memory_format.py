"""PyTorch's memory formats (``torch.preserve_format``, ``torch.channels_last`` ...), taken
where PyTorch takes them (``clone``, ``zeros_like``, ``contiguous``, ``to``).  minigrad
keeps every tensor in C order, so the values are the same whichever format is asked for;
only strides differ from PyTorch's channels_last tensors."""


class memory_format:  # noqa: N801 - torch.memory_format
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"minigrad.{self._name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def check(function, value):
    """PyTorch's refusal of a ``memory_format`` that is not one."""
    if value is not None and not isinstance(value, memory_format):
        raise TypeError(f"{function}(): argument 'memory_format' must be "
                        f"minigrad.memory_format, not {type(value).__name__}")
