"""Pytrees: nested tuples, lists, dicts and namedtuples of tensors, as torch.utils._pytree.

The function transforms accept and return such trees.  ``tree_flatten`` turns one
into a list of leaves and a ``TreeSpec`` that ``tree_unflatten`` rebuilds it from.
Like PyTorch's, ``None`` is a leaf, dicts keep their key order, and two specs are
equal when the containers, keys and shapes are.
The spec's ``repr`` is PyTorch's, so error messages that print one read the same.

>>> leaves, spec = tree_flatten((1, [2, {"a": 3}]))
>>> leaves, treespec_pprint(spec)
([1, 2, 3], "(*, [*, {'a': *}])")
>>> tree_unflatten([4, 5, 6], spec)
(4, [5, {'a': 6}])
"""
from collections import OrderedDict


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


class namedtuple:  # noqa: N801 - the name PyTorch's spec repr shows for namedtuples
    """The spec type of every namedtuple; its class is the spec's context."""


class TreeSpec:
    """The shape of a pytree: a container type, its context (dict keys) and children."""

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type_, context, children):
        self.type = type_
        self.context = context
        self.children = children
        self.num_leaves = sum(child.num_leaves for child in children)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        if self is other:
            return True
        return (isinstance(other, TreeSpec) and not other.is_leaf() and self.type is other.type
                and self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self, indent=0):
        # PyTorch's layout: children after the first on their own line, indented.
        indent += 2
        children = [child.__repr__(indent) for child in self.children]
        body = (",\n" + " " * indent).join(children)
        return f"TreeSpec({self.type.__name__}, {self.context}, [{body}])"

    def unflatten(self, leaves):
        it = iter(leaves)
        return self._build(it)

    def _build(self, it):
        values = [child._build(it) for child in self.children]
        if self.type is tuple or self.type is list:
            return self.type(values)
        if self.type is namedtuple:
            return self.context(*values)
        return self.type(zip(self.context, values))  # dict, OrderedDict


class LeafSpec(TreeSpec):
    """A leaf: anything that is not a tuple, list, dict, OrderedDict or namedtuple."""

    __slots__ = ()

    def __init__(self):
        self.type, self.context, self.children, self.num_leaves = None, None, [], 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0

    def __repr__(self, indent=0):
        return "*"

    def _build(self, it):
        return next(it)


LEAF = LeafSpec()


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves in order, and the spec to rebuild ``tree``."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(tree, leaves):
    kind = type(tree)
    if kind is tuple or kind is list:
        return TreeSpec(kind, None, [_flatten(child, leaves) for child in tree])
    if kind is dict or kind is OrderedDict:
        return TreeSpec(kind, list(tree), [_flatten(child, leaves) for child in tree.values()])
    if _is_namedtuple(tree):
        return TreeSpec(namedtuple, kind, [_flatten(child, leaves) for child in tree])
    leaves.append(tree)
    return LEAF


def tree_unflatten(leaves, spec):
    """The pytree of ``spec``'s shape holding ``leaves``."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                         f"the spec refers to a pytree that holds {spec.num_leaves} items "
                         f"({spec}).")
    return spec.unflatten(leaves)


def tree_map(fn, tree):
    """``tree`` with every leaf replaced by ``fn(leaf)``."""
    leaves, spec = tree_flatten(tree)
    return spec.unflatten([fn(leaf) for leaf in leaves])


class _Asterisk:
    def __repr__(self):
        return "*"


def treespec_pprint(spec):
    """The spec written as its tree, with ``*`` for each leaf: ``(*, [*, *])``."""
    return repr(spec.unflatten([_Asterisk()] * spec.num_leaves))
