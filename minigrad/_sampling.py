"""Random tensors (``rand``, ``randn``, ``randint`` ...) and the in-place initialisers
(``normal_``, ``uniform_`` ...), all drawing from a :class:`minigrad.Generator`.

Every function takes ``generator=`` (default: ``minigrad.default_generator``), so
``minigrad.manual_seed(0)`` makes a whole program reproducible.  Results are leaves
with no history: sampling is not differentiable.

Values are drawn on the host and copied to the tensor's device, so a seed gives
the same numbers on the CPU and on a GPU (minigrad.cuda.manual_seed is therefore
minigrad.manual_seed's stream, see docs/gpu.md).

>>> g = minigrad.Generator().manual_seed(0)
>>> minigrad.randint(0, 10, (3,), generator=g).dtype
minigrad.int64
"""
import numpy as np

from minigrad._array import to_host
from minigrad._device import on_device
from minigrad._dtypes import default_numpy, numpy_dtype
from minigrad._tensor import Tensor, _wrap
from minigrad.kernels.core import not_implemented_for, scalar_type_name
from minigrad.random import numpy_rng

# PyTorch's kernels for continuous distributions, which have no integer or bool version
_NORMAL, _UNIFORM = "normal_kernel_cpu", "check_uniform_bounds"


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _floating_only(kernel, dtype):
    """Refuse an integer or bool ``dtype`` for a continuous distribution, as PyTorch does
    (numpy would silently truncate the draws)."""
    if dtype is not None and np.dtype(numpy_dtype(dtype)).kind in "biu":
        raise not_implemented_for(kernel, np.dtype(numpy_dtype(dtype)))


def _leaf(array, dtype, device, requires_grad):
    """The sampled values as a new leaf tensor of ``dtype`` (default: the default float)."""
    host = np.asarray(array, dtype=default_numpy() if dtype is None else numpy_dtype(dtype))
    t = _wrap(on_device(host, device))
    if requires_grad:
        t.requires_grad = True
    return t


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples from [0, 1): ``rand(2, 3)`` or ``rand((2, 3))``."""
    _floating_only(_UNIFORM, dtype)
    values = numpy_rng(generator).random(_shape(size))
    return _leaf(values, dtype, device, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples: ``randn(2, 3)`` or ``randn((2, 3))``."""
    _floating_only(_NORMAL, dtype)
    values = numpy_rng(generator).standard_normal(_shape(size))
    return _leaf(values, dtype, device, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers drawn uniformly from [low, high): ``randint(high, size)`` or
    ``randint(low, high, size)``.

    >>> minigrad.randint(10, (2, 2)).shape
    (2, 2)
    """
    if size is None:
        if not isinstance(high, (tuple, list)):
            raise TypeError("randint() needs a size: randint(high, size) or "
                            "randint(low, high, size), e.g. randint(10, (3,))")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    values = numpy_rng(generator).integers(low, high, tuple(size))
    return _leaf(values, np.int64 if dtype is None else dtype, device, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (int64)."""
    values = numpy_rng(generator).permutation(n)
    return _leaf(values, np.int64 if dtype is None else dtype, device, requires_grad)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    dtype = input.dtype if dtype is None else dtype
    device = input.device if device is None else device
    return rand(input.shape, generator=generator, dtype=dtype, device=device,
                requires_grad=requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    dtype = input.dtype if dtype is None else dtype
    device = input.device if device is None else device
    return randn(input.shape, generator=generator, dtype=dtype, device=device,
                 requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None):
    """``randint_like(x, high)`` or ``randint_like(x, low, high)``, in ``x``'s dtype."""
    if high is None:
        low, high = 0, low
    dtype = input.dtype if dtype is None else dtype
    device = input.device if device is None else device
    return randint(low, high, input.shape, generator=generator, dtype=dtype, device=device,
                   requires_grad=requires_grad)


def _values(x):
    """A tensor's values on the host (the generator draws there); numbers as they are."""
    return to_host(x._data) if isinstance(x, Tensor) else x


def _on_device_of(tensor, host):
    """Host values as a tensor on ``tensor``'s device."""
    return _wrap(on_device(host, tensor.device))


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Normal samples: ``normal(mean_tensor, std)``, ``normal(mean, std_tensor)`` or
    ``normal(mean, std, size)`` for numbers."""
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    if not tensors and size is None:
        raise TypeError("normal() with a float mean and std needs a size: "
                        "normal(mean, std, size), e.g. normal(0.0, 1.0, (3,))")
    std_values = np.asarray(_values(std))
    if np.any(std_values < 0):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}"
                           if not isinstance(std, Tensor)
                           else "normal expects all elements of std >= 0.0")
    shape = tuple(size) if size is not None else np.broadcast_shapes(
        *[t.shape for t in tensors])
    if dtype is None and tensors:
        dtype = np.result_type(*[t._data.dtype for t in tensors])
    _floating_only(_NORMAL, dtype)
    values = numpy_rng(generator).normal(_values(mean), std_values, shape)
    if device is None and tensors:
        device = tensors[0].device
    return _leaf(values, dtype, device, requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """0/1 draws with probability ``input`` (or the number ``p``), in ``input``'s dtype."""
    probability = _values(input) if p is None else p
    _check_probability(probability)
    draws = numpy_rng(generator).random(input.shape) < probability
    return _on_device_of(input, draws.astype(input._data.dtype))


def _check_probability(p):
    p = _values(p)
    if np.any(np.asarray(p) < 0) or np.any(np.asarray(p) > 1):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the categories ``input`` weights (a row per distribution).

    >>> minigrad.multinomial(minigrad.tensor([0.0, 1.0]), 2, replacement=True).tolist()
    [1, 1]
    """
    weights = _values(input).astype(np.float64)
    if weights.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not replacement and num_samples > weights.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = weights.reshape(-1, weights.shape[-1])
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = numpy_rng(generator)
    if replacement:
        cumulative = np.cumsum(rows / rows.sum(axis=1, keepdims=True), axis=1)
        u = rng.random((rows.shape[0], num_samples))
        picks = np.stack([np.searchsorted(c, r, side="right") for c, r in zip(cumulative, u)])
        picks = np.minimum(picks, rows.shape[1] - 1)
    else:
        # torch's method: weight / Exp(1) noise, largest first; zero weights come last
        keys = rows / rng.exponential(size=rows.shape)
        picks = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    return _on_device_of(input, picks.reshape(weights.shape[:-1] + (num_samples,)).astype(np.int64))


# ------------------------------------------------------------ in-place initialisers
# Each draws the values, then writes them with copy_: autograd sees an overwrite by
# a constant (and refuses it on a leaf that requires grad, outside no_grad).

def _fill_with(tensor, values):
    return tensor.copy_(_on_device_of(tensor, np.asarray(values)))


def normal_(tensor, mean=0.0, std=1.0, *, generator=None):
    """Fill ``tensor`` with normal samples (``nn.init`` and weight setup use this)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _floating_only(_NORMAL, tensor.dtype)
    return _fill_with(tensor, numpy_rng(generator).normal(mean, std, tensor.shape))


def uniform_(tensor, a=0.0, b=1.0, *, generator=None):
    """Fill ``tensor`` with samples from [a, b); torch names the bounds ``from``/``to``."""
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a} > to={b}")
    _floating_only(_UNIFORM, tensor.dtype)
    return _fill_with(tensor, numpy_rng(generator).uniform(a, b, tensor.shape))


def bernoulli_(tensor, p=0.5, *, generator=None):
    probability = _values(p)
    _check_probability(probability)
    return _fill_with(tensor, numpy_rng(generator).random(tensor.shape) < probability)


def exponential_(tensor, lambd=1.0, *, generator=None):
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    if tensor._data.dtype.kind in "biu":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{scalar_type_name(tensor._data.dtype)}")
    return _fill_with(tensor, numpy_rng(generator).exponential(1.0 / lambd, tensor.shape))


def random_(tensor, from_=0, to=None, *, generator=None):
    """Integers from [from, to): ``random_(to)``, ``random_(from, to)``, or with no bounds
    every integer the dtype holds exactly (0 .. 2**mantissa for floats)."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        dtype = tensor._data.dtype
        to = 2 ** (np.finfo(dtype).nmant + 1) + 1 if dtype.kind == "f" else \
            (2 if dtype.kind == "b" else int(np.iinfo(dtype).max) + 1)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={from_} >= to={to}")
    return _fill_with(tensor, numpy_rng(generator).integers(from_, to, tensor.shape))
