"""Sequences of different lengths in one batch, as torch.nn.utils.rnn.

A ``PackedSequence`` keeps only the real time steps: ``data`` holds, time step after time
step, the rows of the sequences still running (longest first), and ``batch_sizes[t]`` says
how many there are at step ``t``.  Packing and unpacking are one differentiable gather
each (``getitem``), so gradients flow back to the padded tensor or the sequences.

>>> seqs = [minigrad.ones(3, 2), minigrad.ones(1, 2)]
>>> packed = pack_sequence(seqs)
>>> packed.batch_sizes
tensor([2, 1, 1])
>>> pad_packed_sequence(packed)[0].shape
minigrad.Size([3, 2, 2])
"""
from collections import namedtuple

import numpy as np

from minigrad._tensor import Tensor
from minigrad.nn import _ops

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence",
                                 ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """``data`` (the real time steps' rows), ``batch_sizes`` (int64, rows per step),
    ``sorted_indices`` / ``unsorted_indices`` (the batch's order by decreasing length and
    back, or None when the batch came sorted).  Made by :func:`pack_padded_sequence`."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the indices follow data's device, batch_sizes stays as it is."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = lambda t: None if t is None else t.to(data.device)  # noqa: E731
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def double(self):
        return self.to(dtype=_ops.float64)

    def float(self):
        return self.to(dtype=_ops.float32)

    def half(self):
        return self.to(dtype=_ops.float16)

    def long(self):
        return self.to(dtype=_ops.long)

    def int(self):
        return self.to(dtype=_ops.int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    is_tensor = isinstance(permutation, Tensor)
    order = np.asarray(permutation.cpu().numpy() if is_tensor else permutation)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return _ops.tensor(inverse, dtype=_ops.long, device=permutation.device if is_tensor else None)


def _lengths_list(lengths):
    ndim = lengths.dim() if isinstance(lengths, Tensor) else np.ndim(lengths)
    if ndim != 1:   # (torch makes lengths an int64 tensor, which its kernel then checks)
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{ndim}D cpu Long tensor")
    return lengths.tolist() if isinstance(lengths, Tensor) else [int(v) for v in lengths]


def _packed_rows(lengths, order, batch_first):
    """Where each row of packed data comes from in the padded tensor: (time, batch) index
    arrays, time step by time step over the batch in ``order`` (decreasing length)."""
    time, batch = [], []
    for t in range(max(lengths)):
        running = [b for b in order if lengths[b] > t]
        time.extend([t] * len(running))
        batch.extend(running)
    time, batch = np.array(time, dtype=np.int64), np.array(batch, dtype=np.int64)
    return (batch, time) if batch_first else (time, batch)


def _batch_sizes(lengths):
    counts = [sum(1 for n in lengths if n > t) for t in range(max(lengths))]
    return _ops.tensor(counts, dtype=_ops.long)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence
    ``b`` has ``lengths[b]`` real steps.  ``enforce_sorted`` wants decreasing lengths;
    ``enforce_sorted=False`` sorts them and remembers the order."""
    values = _lengths_list(lengths)
    batch = input.shape[0 if batch_first else 1]
    if len(values) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(values)} (batch_size={batch})")
    if enforce_sorted:
        if any(a < b for a, b in zip(values, values[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.")
        order, sorted_indices = list(range(batch)), None
    else:
        order = [int(i) for i in np.argsort(-np.array(values), kind="stable")]
        sorted_indices = _ops.tensor(order, dtype=_ops.long)
    if min(values) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if max(values) > input.shape[1 if batch_first else 0]:
        raise RuntimeError(f"Expected the longest sequence to fit the padded input: length "
                           f"{max(values)} but only {input.shape[1 if batch_first else 0]} steps")
    data = input[_packed_rows(values, order, batch_first)]
    return PackedSequence(data, _batch_sizes(values), sorted_indices)


def _lengths_of(sequence):
    """Each sequence's length, in the packed (sorted) order, from ``batch_sizes``."""
    sizes = sequence.batch_sizes.tolist()
    return [sum(1 for s in sizes if s > b) for b in range(sizes[0])]


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)``, in the batch's
    original order, padded with ``padding_value`` to ``total_length`` steps (default: the
    longest sequence)."""
    steps = len(sequence.batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    sorted_lengths = _lengths_of(sequence)
    batch = len(sorted_lengths)
    order = (list(range(batch)) if sequence.sorted_indices is None
             else sequence.sorted_indices.tolist())
    lengths = [0] * batch
    for position, b in enumerate(order):
        lengths[b] = sorted_lengths[position]
    # every (time, batch) cell names its row of data; padding cells name one extra row
    data = sequence.data
    source = np.full((steps, batch), data.shape[0], dtype=np.int64)
    time, column = _packed_rows(lengths, order, False)
    source[time, column] = np.arange(time.size)
    fill = _ops.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                      device=data.device)
    padded = _ops.cat([data, fill])[source.T if batch_first else source]
    return padded, _ops.tensor(lengths, dtype=_ops.long)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences ``(L_i, *)`` into one ``(T, B, *)`` tensor (``(B, T, *)`` with
    ``batch_first``), padded with ``padding_value`` on ``padding_side``."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0 if batch_first else 1))
    steps = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = steps - s.shape[0]
        if missing:
            fill = _ops.full((missing,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype,
                              device=s.device)
            s = _ops.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return _ops.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences ``(L_i, *)``: pad_sequence, then pack_padded_sequence."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
