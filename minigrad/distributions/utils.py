"""Helpers shared by the distributions (``torch.distributions.utils``)."""
import numbers

import numpy as np

from minigrad._dtypes import finfo, get_default_dtype
from minigrad._generated.api_minigrad import cat, log, log1p, sigmoid, softmax
from minigrad._size import Size
from minigrad.autograd.grad_mode import enable_grad
from minigrad.creation import arange, tensor
from minigrad._tensor import Tensor


def broadcast_all(*values):
    """Tensors and numbers as tensors of one broadcast shape; numbers take the dtype and
    device of the first tensor (the default dtype when there is none)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    options = ({"dtype": get_default_dtype()} if first is None
               else {"dtype": first.dtype, "device": first.device})
    tensors = [v if isinstance(v, Tensor) else tensor(v, **options) for v in values]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    # a tensor of the broadcast shape is returned itself, as torch.broadcast_tensors does
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def formatted(value):
    """``value`` as torch's f-strings show it: a 0-d tensor as its number."""
    if isinstance(value, Tensor) and value.dim() == 0:
        return value.item()
    return value


def broadcast_shape(*shapes):
    return Size(np.broadcast_shapes(*(tuple(s) for s in shapes)))


def clamp_probs(probs):
    """Probabilities kept one machine epsilon away from 0 and 1, so logits stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    if is_binary:
        return log(clamped) - log1p(-clamped)
    return log(clamped)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return sigmoid(logits)
    return softmax(logits, dim=-1)


def sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


class lazy_property:
    """An attribute computed on first read and then stored on the instance (so
    ``"probs" in d.__dict__`` tells which parameter a distribution was given)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


# helpers of the transforms and distributions added with them
euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _tril_mask(n, diag, device):
    """(n, n) bools: True on and below the ``diag``-th diagonal (row order)."""
    rows = arange(n, device=device)
    return rows < rows.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat`` on and below diagonal ``diag``, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: a D x D matrix, zero above diagonal ``diag``."""
    # the positive root of D**2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 len(vec) = 0
    b = 1 + 2 * diag
    n = (-b + (b ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    # gather from vec padded with one zero: every entry outside the triangle reads the zero
    mask = _tril_mask(n, diag, "cpu").numpy()
    index = np.full((n, n), vec.shape[-1], dtype=np.int64)
    index[mask] = np.arange(int(mask.sum()))
    padded = cat([vec, vec.new_zeros(tuple(vec.shape[:-1]) + (1,))], -1)
    return padded[..., tensor(index, device=vec.device)]
