"""torch.cov and torch.corrcoef, composed of differentiable ops as PyTorch's
Correlation.cpp does (so the gradients are those ops'); also bound as Tensor methods."""
import warnings

from minigrad._generated import functions as _F
from minigrad._tensor import Tensor
from minigrad.kernels.core import scalar_type_name

__all__ = ["cov", "corrcoef"]


def _check_weights(w, kind, observations, floating):
    name = "fweights" if kind == "f" else "aweights"
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.dim()} dimensions")
    dtype_kind = w._data.dtype.kind
    if floating and dtype_kind != "f":
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got "
                           f"{name} with {scalar_type_name(w._data.dtype)} dtype")
    if not floating and dtype_kind not in "iu":
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{scalar_type_name(w._data.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {observations}")
    if observations and bool((w._data < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the variables in input's rows (observations in its columns),
    weighted by the frequencies ``fweights`` and the observation weights ``aweights``."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input._data.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "f", observations, floating=False)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "a", observations, floating=True)
        w = aweights if w is None else w * aweights
    w_sum = observations if w is None else w.sum()
    if w is not None and not bool(w_sum._data != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and correction != 0 and aweights is not None:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if float(norm_factor._data if isinstance(norm_factor, Tensor) else norm_factor) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    centered = x - avg.unsqueeze(1)
    c = _F.mm(centered, (centered if w is None else centered * w).t())
    return (c / norm_factor).squeeze()


def corrcoef(input):
    """Pearson's correlation coefficients of the variables in input's rows, clipped to
    [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:  # one variable: NaN if its variance is 0, NaN or inf; 1 otherwise
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.reshape(-1, 1)
    c = c / stddev.reshape(1, -1)
    return c.clamp(-1, 1)


for _name in __all__:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
