"""In-place forms PyTorch has and minigrad's generated ops do not give:

- the non-differentiable in-place methods ``logical_and_`` ... ``bitwise_xor_`` (also
  ``&=``, ``|=``, ``^=``) and ``heaviside_``: the result, cast to ``self``'s dtype, is
  written into ``self`` (refused where it cannot be cast: PyTorch's can_cast), and the
  version counter moves.  Like PyTorch, the bitwise ones and heaviside_ refuse a leaf
  that requires grad; the logical ones do not check (their result has no gradient);
- the top-level in-place functions, ``torch.relu_(x)`` for ``x.relu_()`` and the like.
"""
from minigrad._tensor import Tensor
from minigrad.autograd import grad_mode
from minigrad.autograd.errors import LEAF_INPLACE_ERROR
from minigrad.autograd.inplace import write
from minigrad.bitwise import bitwise_and, bitwise_not, bitwise_or, bitwise_xor
from minigrad.comparison import logical_and, logical_not, logical_or, logical_xor
from minigrad.searching import heaviside

# torch's top-level functions `name(tensor, ...)` that are the Tensor method `name`
_TOP_LEVEL = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_",
    "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
    "trunc_", "xlogy_", "zero_")


def _non_differentiable_(function, checks_leaf):
    def method(self, *args):
        if checks_leaf and grad_mode.enabled and self._requires_grad and self.grad_fn is None \
                and self._base is None:
            raise RuntimeError(LEAF_INPLACE_ERROR)
        with grad_mode.no_grad():
            result = function(self, *args)
        write(self, result._data)  # casts, PyTorch's refusals; moves the version counter
        return self
    method.__name__ = method.__qualname__ = function.__name__ + "_"
    method.__doc__ = f"In-place :func:`{function.__name__}`: its result written into self."
    return method


def _top_level(name):
    method = getattr(Tensor, name)

    def function(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``, as a function."
    return function


def bind(namespace):
    """Add the in-place methods to Tensor, and the top-level functions to ``namespace``
    (minigrad's globals, once the Tensor methods are all bound)."""
    for function in (logical_and, logical_or, logical_xor, logical_not):
        setattr(Tensor, function.__name__ + "_", _non_differentiable_(function, False))
    for function in (bitwise_and, bitwise_or, bitwise_xor, bitwise_not, heaviside):
        setattr(Tensor, function.__name__ + "_", _non_differentiable_(function, True))
    Tensor.__iand__, Tensor.__ior__, Tensor.__ixor__ = (
        Tensor.bitwise_and_, Tensor.bitwise_or_, Tensor.bitwise_xor_)
    for name in _TOP_LEVEL:
        if hasattr(Tensor, name) and name not in namespace:
            namespace[name] = _top_level(name)
