"""minigrad.nn.functional: the ops derivatives.yaml exports under this module."""
from minigrad._generated.api_nn_functional import *  # noqa: F401,F403
from minigrad._generated import functions as _ops


# torch's F.max_pool1d/2d return a tuple only when return_indices=True (its
# boolean_dispatch); the two ops behind them are entries in derivatives.yaml.
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over (N, C, L) or (C, L) input, as ``torch.nn.functional.max_pool1d``.

    >>> F.max_pool1d(x, 2)                             # doctest: +SKIP
    >>> out, indices = F.max_pool1d(x, 3, stride=2, return_indices=True)  # doctest: +SKIP
    """
    if return_indices:
        return _ops.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _ops.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over (N, C, H, W) or (C, H, W) input, as ``torch.nn.functional.max_pool2d``.

    >>> F.max_pool2d(x, 2)                             # doctest: +SKIP
    >>> out, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)  # doctest: +SKIP
    """
    if return_indices:
        return _ops.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
