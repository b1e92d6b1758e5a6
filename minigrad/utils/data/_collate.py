"""default_collate / default_convert: how a list of samples becomes a batch.

Samples that are tensors, numpy arrays or numbers are stacked into one tensor with
a new first dimension; dicts, tuples and lists are collated field by field (tuples
become lists, as in PyTorch); strings stay lists of strings.
"""
import collections.abc
import numbers

import numpy as np

from minigrad._array import namespace_of

from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode

__all__ = ["default_collate", "default_convert"]

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
          "found {}")


def _stack(arrays):
    first = np.shape(arrays[0])
    for i, a in enumerate(arrays):
        if np.shape(a) != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(np.shape(a))} at entry {i}")
    return _wrap(namespace_of(arrays[0]).stack(arrays))  # GPU samples stack on the GPU


def _stack_recorded(tensors):
    from minigrad import stack  # the package imports utils.data: only at call time
    _stack([t._data for t in tensors])  # the shape check and its message
    return stack(tensors)


def _same_type(elem, values):
    """``type(elem)(values)`` where that type can be built from them, else a plain one."""
    try:
        return type(elem)(values)
    except TypeError:
        return values


def default_collate(batch):
    """Stack a list of samples into a batch.

    >>> default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=minigrad.float64)]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        if grad_mode.enabled and any(t.requires_grad for t in batch):
            return _stack_recorded(batch)  # as torch.stack: the batch joins the graph
        return _stack([t._data for t in batch])
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_ERROR.format(elem.dtype))
        return _stack(batch)
    if isinstance(elem, np.generic):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_ERROR.format(elem.dtype))
        return _wrap(np.asarray(batch))
    if isinstance(elem, bool):
        return _wrap(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, float):
        return _wrap(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, int):
        return _wrap(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, numbers.Number):
        return _wrap(np.asarray(batch))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        return collated if type(elem) is dict else _same_type(elem, collated)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # PyTorch turns tuples into lists
        return columns if type(elem) is list else _same_type(elem, columns)
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data):
    """Turn numpy arrays (also inside dicts, tuples and lists) into tensors; used when
    a DataLoader does not batch (``batch_size=None``)."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "OSUV" else _wrap(data)
    if isinstance(data, np.generic):
        return data if data.dtype.kind in "OSUV" else _wrap(np.asarray(data))
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        return converted if type(data) is dict else _same_type(data, converted)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        converted = [default_convert(d) for d in data]
        return converted if type(data) is list else _same_type(data, converted)
    return data
