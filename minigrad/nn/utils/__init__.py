"""minigrad.nn.utils: gradient clipping and parameter/vector conversion."""
from minigrad.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_
from minigrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from minigrad.nn.utils import stateless  # noqa: F401 - torch.nn.utils.stateless

clip_grad_norm = clip_grad_norm_

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters"]
