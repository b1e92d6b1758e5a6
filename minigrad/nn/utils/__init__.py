"""minigrad.nn.utils: gradient clipping, parameter/vector conversion, weight_norm,
spectral_norm, parametrizations, conv/linear + batch-norm fusion, skip_init."""
from minigrad.nn.utils.clip_grad import (clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                                         get_total_norm)
from minigrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from minigrad.nn.utils import rnn, stateless  # noqa: F401 - torch.nn.utils.rnn, .stateless
from minigrad.nn.utils.weight_norm import remove_weight_norm, weight_norm
from minigrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from minigrad.nn.utils import parametrize, parametrizations  # noqa: F401
from minigrad.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights,
                                      fuse_linear_bn_eval, fuse_linear_bn_weights)
from minigrad.nn.utils.init import skip_init

clip_grad_norm = clip_grad_norm_

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector",
           "vector_to_parameters", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm", "parametrize", "parametrizations", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "skip_init"]
