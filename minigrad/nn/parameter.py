"""``minigrad.nn.parameter``: Parameter and Buffer (defined in minigrad/_parameter.py, which
the generated op functions can import without the nn package)."""
from minigrad._parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                                 UninitializedParameter, _rebuild_parameter, is_lazy)
