"""PyTorch's memory-overlap checks for in-place writes (ATen's MemoryOverlap.cpp).

An in-place op that reads a tensor sharing part of its memory with the one it writes
(``x[1:].add_(x[:-1])``, ``x[[0, 1]] = x``) would read values it already overwrote, so
PyTorch refuses it.  Like PyTorch, the check is exact only for tensors that are
non-overlapping and dense (every element once, no gaps: contiguous up to a
permutation of the dims); for other layouts it cannot tell cheaply and lets the
write go ahead.

- ``check_partial_overlap`` is TensorIterator's check (``add_``, ``copy_``, every
  elementwise in-place op): the very same memory, read and written, is fine.
- ``check_no_overlap`` is ``index_put_``'s: any shared memory is refused.
- ``has_internal_overlap``: several elements of one tensor share memory (an
  expanded tensor), which most in-place ops refuse to write (autograd/inplace.py).
"""

from minigrad._array import data_pointer, has_internal_overlap  # noqa: F401  (has_internal_overlap: one of the checks above)

OVERLAP_ERROR = ("unsupported operation: some elements of the input tensor and the written-to "
                 "tensor refer to a single memory location. Please clone() the tensor before "
                 "performing the operation.")

INTERNAL_OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")

NO, FULL, PARTIAL, TOO_HARD = "no", "full", "partial", "too hard"


def check_partial_overlap(written, read):
    """Raise PyTorch's error if ``read`` shares part (not all) of ``written``'s memory."""
    if overlap_status(written, read) == PARTIAL:
        raise RuntimeError(OVERLAP_ERROR)


def check_no_overlap(written, read):
    """Raise PyTorch's error if ``read`` shares any of ``written``'s memory."""
    if overlap_status(written, read) in (PARTIAL, FULL):
        raise RuntimeError(OVERLAP_ERROR)


def overlap_status(a, b):
    """How the memory of arrays ``a`` and ``b`` overlaps (ATen's get_overlap_status)."""
    if a is b:
        return FULL
    if a.size == 0 or b.size == 0:
        return NO
    if _storage(a) != _storage(b):
        return NO
    if not (_dense(a) and _dense(b)):
        return TOO_HARD
    a_begin, b_begin = data_pointer(a), data_pointer(b)
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if a_begin == b_begin and a_end == b_end:
        return FULL if _strides(a) == _strides(b) else PARTIAL
    if a_begin < b_end and b_begin < a_end:
        return PARTIAL
    return NO


def _storage(array):
    """Which memory ``array`` looks into, as a number: arrays with the same one share it.

    That is the first byte of the array owning the memory (numpy's or CuPy's; views of
    views lead there through ``base``), or the address of the buffer object a numpy array
    was made over (``frombuffer``, ``memmap``): live objects have distinct addresses."""
    while isinstance(array.base, type(array)):
        array = array.base
    return data_pointer(array) if array.base is None else id(array.base)


def _strides(array):
    """Strides in elements, as PyTorch compares them.  numpy gives a dim of size 1 added
    by ``None`` or ``unsqueeze`` the stride 0; PyTorch's ``unsqueeze`` gives it the
    next dim's size times its stride, so that is what it counts as here."""
    strides = [s // array.itemsize for s in array.strides]
    for d in range(array.ndim - 1, -1, -1):
        if array.shape[d] == 1 and strides[d] == 0:
            strides[d] = 1 if d == array.ndim - 1 else array.shape[d + 1] * strides[d + 1]
    return tuple(strides)


def _dense(array):
    """Every element once and no gaps: sorted by stride, each dim's stride is the
    product of the sizes below it (dims of size 1 do not count)."""
    dims = sorted((abs(s) // array.itemsize, n, s) for s, n in zip(array.strides, array.shape)
                  if n != 1)
    expected = 1
    for stride, size, signed in dims:
        if signed < 0 or stride != expected:
            return False
        expected *= size
    return True
