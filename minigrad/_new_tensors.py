"""``Tensor.split_with_sizes``: ``split`` with explicit sizes, checked as PyTorch checks them.

(``Tensor.new_*`` factories live in minigrad/creation.py.)

>>> minigrad.arange(5.0).split_with_sizes([2, 3])
(tensor([0., 1.]), tensor([2., 3., 4.]))
"""


def split_with_sizes(self, split_sizes, dim=0):
    """``split`` with explicit sizes, which must add up to the size of ``dim``."""
    sizes = [int(s) for s in split_sizes]
    total = self.shape[dim]
    if sum(sizes) != total:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {total} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={sizes}")
    return tuple(self.split(sizes, dim))
