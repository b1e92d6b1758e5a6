"""Flatten and Unflatten.

>>> nn.Flatten()(minigrad.zeros(32, 1, 5, 5)).shape
(32, 25)
"""
from minigrad.nn.modules.module import Module


class Flatten(Module):
    """Flattens dims ``start_dim..end_dim`` into one (the batch dim is kept by default)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dim ``dim`` into ``unflattened_size``."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise NotImplementedError("Unflatten with a named dim: minigrad has no named tensors")
        if not isinstance(unflattened_size, (tuple, list)) or \
                not all(isinstance(e, int) for e in unflattened_size):
            raise TypeError("unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        dim = self.dim % input.ndim
        shape = input.shape[:dim] + tuple(self.unflattened_size) + input.shape[dim + 1:]
        return input.reshape(shape)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
