"""torch.addr, addbmm, chain_matmul and ger, composed of differentiable products (outer,
matmul, linalg.multi_dot); also bound as Tensor methods."""
import warnings

from minigrad._array import namespace_of
from minigrad._generated import functions as _F
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd.promotion import result_dtype
from minigrad.kernels.core import scalar_type_name

__all__ = ["addr", "addbmm", "chain_matmul", "ger"]


def _check_integral_scalars(dtype, beta, alpha):
    if dtype.kind in "iub":
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                                   "floating point number.")


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product, input broadcast to the product's shape (torch's
    expand error where it does not fit).  beta == 0 ignores input, NaN included, as torch;
    input then gets a zero gradient (``where`` with an all-false mask)."""
    base = input.expand(tuple(product.shape))
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        nowhere = _wrap(namespace_of(product._data).zeros(tuple(product.shape), dtype=bool))
        return product + _F.where(nowhere, base, 0)
    return (base if beta == 1 else base * beta) + product


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2), in the three tensors' promoted dtype."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.dim()}-D")
    dtype = result_dtype((input, vec1, vec2))
    _check_integral_scalars(dtype, beta, alpha)
    input, vec1, vec2 = (t if t._data.dtype == dtype else t.to(dtype) for t in (input, vec1, vec2))
    return _scaled_sum(input, _F.outer(vec1, vec2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i]."""
    for t in (batch1, batch2):
        if t.dim() != 3:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(t.dim(), 1)}, {max(t.dim(), 1) - 1}], but got 2)")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    for t in (batch1, batch2):
        if t.dtype != input.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{scalar_type_name(input._data.dtype)} and "
                               f"{scalar_type_name(t._data.dtype)}")
    _check_integral_scalars(input._data.dtype, beta, alpha)
    return _scaled_sum(input, _F.matmul(batch1, batch2).sum(0), beta, alpha)


def chain_matmul(*matrices):
    """The product of 2-D matrices (deprecated in torch for linalg.multi_dot)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return _F.linalg_multi_dot(list(matrices))


def ger(input, vec2):
    """torch.ger: the old name of outer."""
    return _F.outer(input, vec2)


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """In place: self = addr(self, vec1, vec2), which must keep self's shape."""
    if self.dim() != 2:
        raise RuntimeError(f"2D tensor expected, got {self.dim()}D tensor for input")
    return self.copy_(_in_place_result(self, addr(self, vec1, vec2, beta=beta, alpha=alpha)))


def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In place: self = addbmm(self, batch1, batch2), which must keep self's shape."""
    return self.copy_(_in_place_result(self, addbmm(self, batch1, batch2, beta=beta,
                                                    alpha=alpha)))


def _in_place_result(self, result):
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    return result


for _name in __all__ + ["addr_", "addbmm_"]:
    if _name != "chain_matmul" and not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
