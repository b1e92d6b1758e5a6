"""DataParallel: PyTorch's single-process multi-GPU wrapper. Without GPUs PyTorch's
DataParallel simply runs the module, and so does this one.  With one GPU id it moves the
inputs to that GPU and runs the module there (as torch does with one device); several
GPUs in one process are not implemented: use DistributedDataParallel, one process per GPU."""
from minigrad._device import cuda_device, require_cuda
from minigrad.nn.modules.module import Module


class DataParallel(Module):
    """>>> model = DataParallel(nn.Linear(4, 2))   # runs nn.Linear where its parameters are
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module, self.device_ids, self.output_device, self.dim = module, [], None, dim
        if device_ids:
            require_cuda()  # torch's AssertionError for GPU ids without CUDA
            ids = [d if isinstance(d, int) else d.index for d in device_ids]
            if len(ids) > 1:
                raise NotImplementedError(
                    "DataParallel over several GPUs is not implemented in minigrad: pass one "
                    "device id, or use DistributedDataParallel with one process per GPU")
            self.device_ids, self.output_device = ids, cuda_device(ids[0])

    def forward(self, *inputs, **kwargs):
        if self.device_ids:
            inputs = tuple(_to(x, self.output_device) for x in inputs)
            kwargs = {k: _to(v, self.output_device) for k, v in kwargs.items()}
        return self.module(*inputs, **kwargs)


def _to(value, device):
    return value.to(device) if hasattr(value, "is_cuda") else value
