"""``Tensor.new_*``: new tensors with the dtype (and device) of an existing one.

>>> x = minigrad.ones(2, dtype=minigrad.float64)
>>> x.new_zeros(2, 3).dtype
minigrad.float64
"""
import importlib


def _like(self, dtype, device):
    return (self.dtype if dtype is None else dtype), (self.device if device is None else device)


def _creation():
    # read at call time: creation imports Tensor, whose class body binds these functions
    return importlib.import_module("minigrad.creation")


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` with ``self``'s dtype unless ``dtype`` is given."""
    dtype, device = _like(self, dtype, device)
    return _creation().tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _creation().zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _creation().ones(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _creation().empty(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _creation().full(size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def split_with_sizes(self, split_sizes, dim=0):
    """``split`` with explicit sizes, which must add up to the size of ``dim``."""
    sizes = [int(s) for s in split_sizes]
    total = self.shape[dim]
    if sum(sizes) != total:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {total} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={sizes}")
    return tuple(self.split(sizes, dim))
