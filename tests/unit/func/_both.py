"""Run one program under minigrad and torch and compare what comes out."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.func._pytree import tree_flatten, treespec_pprint

torch = pytest.importorskip("torch")
from torch.utils import _pytree as torch_pytree  # noqa: E402

LIBS = [pytest.param(mg, id="minigrad"), pytest.param(torch, id="torch")]


def tensor(L, values, requires_grad=False):
    return L.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def randn(L, *shape, seed=0, requires_grad=False):
    values = np.random.default_rng(seed + 7 * len(shape)).standard_normal(shape)
    return tensor(L, values, requires_grad)


def assert_same(ours, theirs, rtol=1e-9, atol=1e-11, requires_grad=True):
    """Same pytree structure, and leaf by leaf the same shape, dtype, values (and
    ``requires_grad`` unless told not to compare it)."""
    leaves, spec = tree_flatten(ours)
    their_leaves, their_spec = torch_pytree.tree_flatten(theirs)
    assert treespec_pprint(spec) == torch_pytree.treespec_pprint(their_spec)
    for a, b in zip(leaves, their_leaves):
        if not isinstance(b, torch.Tensor):
            assert a == b
            continue
        assert isinstance(a, mg.Tensor), type(a)
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        if requires_grad:
            assert a.requires_grad == b.requires_grad
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol, atol)


def compare(program, **kwargs):
    """``program(L)`` under both libraries gives the same pytree of tensors."""
    assert_same(program(mg), program(torch), **kwargs)


def same_error(program):
    """``program(L)`` raises the same exception type and message under both."""
    with pytest.raises(Exception) as theirs:
        program(torch)
    with pytest.raises(type(theirs.value)) as ours:
        program(mg)
    assert type(ours.value) is type(theirs.value)
    expected = str(theirs.value)
    assert str(ours.value) in (expected, expected.replace("torch.", "minigrad.")), (
        str(ours.value), expected)
