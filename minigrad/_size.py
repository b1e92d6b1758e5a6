"""``minigrad.Size``: the type of ``x.shape`` and ``x.size()``, a tuple of ints as torch.Size.

It prints as ``minigrad.Size([2, 3])``, the way minigrad's dtypes print as
``minigrad.float32``: the name says which library made it (PyTorch prints
``torch.Size([2, 3])``; docs/divergences.md).  Only the user-facing ``shape`` and
``size()`` build one; minigrad's own code reads the array's plain tuple (``x._data.shape``),
so the engine pays nothing for it.
"""
import math
import operator

_new = tuple.__new__


class Size(tuple):
    """A tuple of dimension sizes; slicing, ``+`` and ``*`` give a Size again.

    >>> import minigrad as mg
    >>> mg.zeros(2, 3).shape
    minigrad.Size([2, 3])
    >>> mg.Size([2, 3]).numel()
    6
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, s in enumerate(sizes):
            if not isinstance(s, int) and not hasattr(s, "__index__"):
                raise TypeError(f"minigrad.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(s).__name__}')")
        return _new(cls, (operator.index(s) for s in sizes))

    def numel(self):
        """The number of elements of a tensor of this shape (1 for ``Size([])``)."""
        return math.prod(self)

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return _new(Size, item) if isinstance(key, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented  # Size + [3] is a TypeError, as for tuples
        return _new(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return _new(Size, tuple.__add__(other, self))

    def __mul__(self, count):
        return _new(Size, tuple.__mul__(self, count))

    __rmul__ = __mul__

    def __repr__(self):
        return f"minigrad.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __reduce__(self):  # pickles (minigrad.save, DataLoader workers) rebuild a Size
        return (Size, (tuple(self),))
Size.__module__ = "minigrad"  # type(x.shape) reads minigrad.Size
