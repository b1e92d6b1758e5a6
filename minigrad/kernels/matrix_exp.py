"""The matrix exponential: scipy.linalg.expm on the CPU, and the same algorithm (Higham's
scaling and squaring with a degree-13 Padé approximant) in array operations elsewhere."""
import math

import numpy as np

from minigrad._array import namespace_of
from minigrad.kernels.core import scalar_type_name


def matrix_exp_array(a):
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype.kind not in "fc":
        raise RuntimeError("linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name(a.dtype)}")
    xp = namespace_of(a)
    if xp is np:
        import scipy.linalg  # lazily: only the CPU path needs it
        return np.asarray(scipy.linalg.expm(a), dtype=a.dtype)
    return pade13_expm(a)


# Higham (2005), "The scaling and squaring method for the matrix exponential revisited"
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def pade13_expm(a):
    """exp of a batch of square matrices with array operations only (any device): scale
    by 2^-s so every 1-norm is at most theta_13, Padé-approximate, square s times."""
    xp = namespace_of(a)
    n = a.shape[-1]
    if a.size == 0:
        return xp.array(a, copy=True)
    norm = float(xp.max(xp.sum(xp.abs(a), axis=-2)))
    s = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > 0 else 0
    a = a / (2.0 ** s)
    b = _PADE13
    eye = xp.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = (a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
         + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye)
    result = xp.linalg.solve(v - u, v + u)
    for _ in range(s):
        result = result @ result
    return result.astype(a.dtype)
