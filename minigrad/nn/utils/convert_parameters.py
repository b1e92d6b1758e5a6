"""parameters_to_vector and vector_to_parameters, as torch.nn.utils.

>>> v = nn.utils.parameters_to_vector(model.parameters())     # doctest: +SKIP
"""
from minigrad.nn import _ops
from minigrad._tensor import Tensor


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor."""
    return _ops.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy slices of the 1-D ``vec`` into the parameters' data (in their order)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].reshape(param.shape).data
        pointer += n
