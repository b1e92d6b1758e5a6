"""minigrad: reverse-mode autodiff for numpy with PyTorch's user model.

>>> import minigrad as mg
>>> x1 = mg.tensor(2.0, requires_grad=True); x2 = mg.tensor(3.0, requires_grad=True)
>>> y = x1 * (x1 + x2); y.backward()
>>> x1.grad, x2.grad
(tensor(7.), tensor(2.))

Every op and its derivative is declared in derivatives.yaml; the code in
minigrad/_generated/ is written from it by `python -m codegen`.
"""
from minigrad._tensor import Tensor  # noqa: F401
from minigrad._size import Size  # noqa: F401
from minigrad._tensor_str import set_printoptions  # noqa: F401
from minigrad import _tensor_methods  # noqa: F401  (second: binds ops, operators, hooks to Tensor)
from minigrad import autograd  # noqa: F401
from minigrad.autograd.grad_mode import (  # noqa: F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled)
from minigrad._dtypes import (  # noqa: F401
    bfloat16, bool, double, dtype, finfo, float, float16, float32, float64, get_default_dtype,
    half, iinfo, int, int8, int16, int32, int64, is_complex, is_floating_point, long,
    set_default_dtype, short, uint8, uint16, uint32, uint64)
from minigrad._device import device, get_default_device, set_default_device  # noqa: F401
from minigrad._legacy_types import (  # noqa: F401
    BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor,
    LongTensor, ShortTensor)
from minigrad._switches import (  # noqa: F401
    are_deterministic_algorithms_enabled, get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
    use_deterministic_algorithms)
from minigrad.random import (  # noqa: F401
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state)
from minigrad.creation import (  # noqa: F401
    arange, as_tensor, empty, empty_like, empty_strided, eye, from_numpy, full, full_like,
    linspace, logspace, ones, ones_like, scalar_tensor, tensor, zeros, zeros_like)
from minigrad._sampling import (  # noqa: F401
    bernoulli, multinomial, normal, rand, rand_like, randint, randint_like, randn, randn_like,
    randperm)
from minigrad._sampling_counts_gamma import (  # noqa: F401
    _sample_dirichlet, _standard_gamma, binomial, poisson)
from minigrad._generated.api_minigrad import *  # noqa: F401,F403 - the generated ops
from minigrad.functional import (  # noqa: F401,E402 - joins promote dtypes
    cat, column_stack, concat, concatenate, dstack, hstack, row_stack, stack, vstack)
from minigrad.functional import (  # noqa: F401,E402
    clone, einsum, index_put, masked_select, take, tensordot)
from minigrad._memory_format import (  # noqa: F401,E402 - torch.preserve_format ...
    channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format)
from minigrad.searching import (  # noqa: F401,E402 - also binds x.nonzero(), x.unique() ...
    argwhere, bincount, bucketize, heaviside, histc, mode, nonzero, searchsorted, unique,
    unique_consecutive, where)
from minigrad.index_reduce import index_reduce  # noqa: F401,E402 - also binds x.index_reduce()
from minigrad.index_writes import (  # noqa: F401,E402 - also binds x.index_fill() ...
    index_copy, index_fill, masked_scatter)
from minigrad.strided import as_strided, as_strided_scatter  # noqa: F401,E402 - also x.storage_offset()
from minigrad.scatter_legacy import scatter  # noqa: F401,E402 - scatter(..., reduce=); x.scatter_
from minigrad import inplace_views  # noqa: F401,E402 - binds x.squeeze_(), x.t_(), x.as_strided_() ...
from minigrad.composites import (  # noqa: F401,E402 - also binds x.quantile()
    block_diag, cartesian_prod, cdist, combinations, dist, meshgrid, nanquantile, quantile,
    tril_indices, triu_indices)
from minigrad.comparison import (  # noqa: F401,E402 - also binds x.eq(y), x.type_as(y), x.where(c, y)
    allclose, eq, equal, ge, greater, greater_equal, gt, isclose, isfinite, isinf, isnan, isneginf,
    isposinf, le, less, less_equal, logical_and, logical_not, logical_or, logical_xor, lt, ne,
    not_equal, signbit)
from minigrad.bitwise import (  # noqa: F401,E402 - also binds &, |, ^, ~ and x.bitwise_and(y) ...
    bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor)
from minigrad import _aliases  # noqa: E402
_aliases.bind(globals())  # torch.absolute, x.gt_(y), torch.broadcast_tensors ...
from minigrad.dtype_rules import can_cast, promote_types, result_type  # noqa: F401,E402
from minigrad.elementwise_extras import isin, positive  # noqa: F401,E402
from minigrad.histogram import histogram  # noqa: F401,E402 - also binds x.histogram()
from minigrad import inplace_functions  # noqa: E402
inplace_functions.bind(globals())  # x.logical_and_(y), x &= y, torch.relu_(x) ...
from minigrad import linalg, nn, special  # noqa: F401,E402
from minigrad.linalg.composites import geqrf, lu_unpack  # noqa: F401,E402 - torch.geqrf, torch.lu_unpack
from minigrad.matrix_products import addbmm, addr, chain_matmul, ger  # noqa: F401,E402 - and methods
from minigrad.correlation import corrcoef, cov  # noqa: F401,E402 - and methods
from minigrad.linalg.legacy import (  # noqa: F401,E402 - and x.lu(), x.mH, x.H ...
    adjoint, frobenius_norm, lu, lu_solve, norm_except_dim, nuclear_norm, ormqr,
    triangular_solve, vander)
from minigrad.linalg.removed import eig, lstsq, matrix_rank, solve, symeig  # noqa: F401,E402
from minigrad.linalg.lowrank import pca_lowrank, svd_lowrank  # noqa: F401,E402
from minigrad import random_inplace  # noqa: F401,E402 - x.cauchy_(), x.geometric_() ...
from minigrad.inplace_math import deg2rad_, rad2deg_  # noqa: F401,E402 - x.polygamma_(), x.apply_()
from minigrad import memory_access  # noqa: F401,E402 - x.data_ptr(), x.untyped_storage()
from minigrad import viz  # noqa: F401,E402
from minigrad import amp, backends, cuda, onnx, random, testing, utils  # noqa: F401,E402
from minigrad.amp import autocast  # noqa: F401,E402
from minigrad import optim  # noqa: F401,E402
from minigrad import distributions  # noqa: F401,E402 - torch.distributions
from minigrad import func  # noqa: F401,E402 - torch.func
from minigrad.func import vmap  # noqa: F401,E402 - torch.vmap
from minigrad._threads import get_num_threads, set_num_threads  # noqa: F401,E402
from minigrad.serialization import load, save  # noqa: F401,E402
from minigrad.compile import compile  # noqa: F401,E402 - a function, as torch.compile
# torch's top-level forms of nn.functional, constants, asarray, windows ... (one block)
from minigrad.functional_aliases import *  # noqa: F401,F403,E402 - torch.batch_norm ...
from minigrad.buffer_creation import asarray, frombuffer  # noqa: F401,E402
from minigrad.tensor_functions import (  # noqa: F401,E402 - and x.nonzero_static() ...
    detach, fill, nonzero_static, rsub, split_with_sizes, typename, unravel_index,
    unsafe_chunk, unsafe_split, unsafe_split_with_sizes)
from minigrad.trapezoid_rules import cumulative_trapezoid, trapz  # noqa: F401,E402
from minigrad.finite_differences import gradient  # noqa: F401,E402
from minigrad.resizing import resize_as_  # noqa: F401,E402 - and x.resize_(), x.resize_as_()
from minigrad.windows import (  # noqa: F401,E402
    bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window)
from minigrad import signal  # noqa: F401,E402 - torch.signal.windows
from minigrad import functional_aliases as _fa, legacy_new as _ln, resizing as _rs  # noqa: E402
from minigrad import tensor_functions as _tf  # noqa: E402
for _module in (_fa, _ln, _rs, _tf):
    _module.bind_methods()   # x.prelu(w), x.new(...), x.resize_(...), x.unsafe_split(...)
del _module, _fa, _ln, _rs, _tf
import math as _math  # noqa: E402
pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None

__version__ = "0.1.0"


def is_tensor(obj):
    """True if ``obj`` is a minigrad Tensor (as ``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of ``input``."""
    return input.numel()


def is_nonzero(input):
    """``bool(input)`` for a one-element tensor (as ``torch.is_nonzero``)."""
    if not isinstance(input, Tensor):
        raise TypeError("is_nonzero(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_nonzero()
