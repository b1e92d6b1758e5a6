"""DataParallel: PyTorch's single-process multi-GPU wrapper. Without GPUs (minigrad's CPU
backend) PyTorch's DataParallel simply runs the module, and so does this one; asking for
GPU devices raises, since minigrad has no CUDA backend yet."""
from minigrad.nn.modules.module import Module


class DataParallel(Module):
    """>>> model = DataParallel(nn.Linear(4, 2))   # runs nn.Linear on the CPU
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids:
            from minigrad._device import CUDA_UNAVAILABLE  # (import cycle: minigrad imports nn)
            raise AssertionError(CUDA_UNAVAILABLE)  # torch's error for GPU ids without CUDA
        self.module, self.device_ids, self.output_device, self.dim = module, [], None, dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
