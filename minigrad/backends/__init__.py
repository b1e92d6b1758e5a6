"""minigrad.backends: as ``torch.backends``, the switches scripts set at the top.

minigrad computes with numpy on the CPU, so the CUDA, cuDNN and MPS switches
have nothing to control: they can be read and set (``cudnn.deterministic = True``
runs), and ``is_available()`` says False.  minigrad's CPU results are deterministic
for a given seed whatever they say.

>>> minigrad.backends.cudnn.deterministic = True
>>> minigrad.backends.mps.is_available()
False
"""
from minigrad.backends import cuda, cudnn, mps  # noqa: F401
