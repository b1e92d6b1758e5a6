"""PyTorch's other names for minigrad's ops (``torch.absolute`` is ``torch.abs``, ...), as
functions and Tensor methods, the in-place comparisons (``x.gt_(y)``), and a few
attributes scripts query (``x.ndimension()``, ``x.is_sparse``).  Bound at import by
minigrad/__init__.py (bind)."""
from minigrad._size import Size
from minigrad._tensor import Tensor

# alias: the op it names; each as a function, a method and (with _) an in-place method
_ALIASES = {"absolute": "abs", "negative": "neg", "multiply": "mul", "divide": "div",
            "subtract": "sub", "true_divide": "div", "arccos": "acos", "arcsin": "asin",
            "arctan": "atan", "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh",
            "arctan2": "atan2"}
_COMPARISONS = ("eq", "ne", "lt", "gt", "le", "ge", "greater", "greater_equal", "less",
                "less_equal", "not_equal")


def clamp_min(input, min):  # noqa: A002 - torch's argument names
    return input.clamp(min=min)


def clamp_max(input, max):  # noqa: A002
    return input.clamp(max=max)


def clamp_min_(self, min):  # noqa: A002
    return self.clamp_(min=min)


def clamp_max_(self, max):  # noqa: A002
    return self.clamp_(max=max)


def _comparison_(name):
    def compare_(self, other):
        """PyTorch's in-place comparison: the result, in ``self``'s dtype, written into it."""
        return self.copy_(getattr(self, name)(other))
    compare_.__name__ = compare_.__qualname__ = name + "_"
    return compare_


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (an int counts as a 1-d shape)."""
    result = []
    for position, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if any(n < 0 for n in shape):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        result = [1] * (len(shape) - len(result)) + result
        for back in range(1, len(shape) + 1):
            n, have = shape[-back], result[-back]
            if have == 1:
                result[-back] = n
            elif n != 1 and n != have:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at "
                                   f"{-back}! Mismatching argument at index {position} had "
                                   f"{shape}; but expected shape should be broadcastable to "
                                   f"{result}")
    return Size(result)


def broadcast_tensors(*tensors):
    """The tensors expanded (views) to their common shape."""
    shape = []
    for position, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got "
                            f"{type(tensor).__name__}")
        shape = infer_size(shape, list(tensor.shape))
    return tuple(t.expand(shape) for t in tensors)


def infer_size(a, b):
    """PyTorch's infer_size: the broadcast of two shapes, with its error."""
    ndim = max(len(a), len(b))
    a, b = [1] * (ndim - len(a)) + a, [1] * (ndim - len(b)) + b
    for dim, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {dim}")
    return [y if x == 1 else x for x, y in zip(a, b)]


def bind(namespace):
    """Add the aliases to ``namespace`` (minigrad's globals) and to Tensor."""
    for alias, name in _ALIASES.items():
        namespace[alias] = namespace[name]
        setattr(Tensor, alias, getattr(Tensor, name))
        setattr(Tensor, alias + "_", getattr(Tensor, name + "_"))
    for fn in (clamp_min, clamp_max):
        namespace[fn.__name__] = fn
        setattr(Tensor, fn.__name__, fn)
    Tensor.clamp_min_, Tensor.clamp_max_ = clamp_min_, clamp_max_
    for name in _COMPARISONS:
        setattr(Tensor, name + "_", _comparison_(name))
    namespace["broadcast_shapes"], namespace["broadcast_tensors"] = (broadcast_shapes,
                                                                     broadcast_tensors)
    Tensor.ndimension = Tensor.dim
    Tensor.is_signed = lambda self: self._data.dtype.kind in "if" or \
        self._data.dtype.kind == "c"
    Tensor.get_device = lambda self: -1 if self.device.type == "cpu" else self.device.index
    for flag in ("is_sparse", "is_quantized", "is_meta", "is_sparse_csr", "is_mkldnn"):
        setattr(Tensor, flag, False)
