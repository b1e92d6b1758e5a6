"""The tensor functions nn builds on, imported from where they live (not from the
``minigrad`` package, which imports nn: that would be an import cycle)."""
from minigrad._dtypes import bool, float16, float32, float64, int32, int64 as long  # noqa: F401,A004
from minigrad._generated.functions import (_gru_cell, _lstm_cell, _lstm_layer,  # noqa: F401
                                           addmm, bmm, cat, clamp, matmul, sigmoid, stack,
                                           tanh)
from minigrad.creation import empty, full, ones, tensor, zeros, zeros_like  # noqa: F401
from minigrad.functional import einsum  # noqa: F401
from minigrad.linalg import vector_norm  # noqa: F401
