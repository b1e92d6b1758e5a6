"""minigrad.backends.cuda: settable flags, as ``torch.backends.cuda``; no CUDA is used."""
import types

matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                               allow_bf16_reduced_precision_reduction=True)


def is_built():
    return False
