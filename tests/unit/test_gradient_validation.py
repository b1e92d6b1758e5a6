"""The engine checks what nodes return (issue 11).

Generated nodes (derivatives.yaml): exactly the input's shape, the input's dtype (or
the op result's, cast as PyTorch casts), one gradient per input; the error names the
node, the input and the formula's YAML line.  Stricter than PyTorch on purpose.
Custom Functions and hooks: PyTorch's own rules and messages.
"""
import re

import numpy as np
import pytest

import minigrad as mg
from minigrad._generated import nodes


def _forgets_sum_to(self, grads, create_graph):
    grad = grads[0]
    return (grad * 1.0, grad * 1.0)  # as if the YAML said `other: grad * self`


def test_a_formula_without_sum_to_is_named_with_its_yaml_line(monkeypatch):
    monkeypatch.setattr(nodes.MulBackward0, "apply", _forgets_sum_to)
    a, b = mg.ones(3, 4, requires_grad=True), mg.ones(4, requires_grad=True)
    line = nodes.MulBackward0._yaml_lines["other"]
    formula = nodes.MulBackward0._formulas["other"]
    expected = (f"MulBackward0 returned a gradient of shape (3, 4) for input `other` of shape "
                f"(4,) (derivatives.yaml:{line}: `{formula}`)")
    with pytest.raises(RuntimeError, match=re.escape(expected)):
        (a * b).sum().backward()
    assert b.grad is None  # never summed silently


def test_the_check_also_runs_under_create_graph(monkeypatch):
    monkeypatch.setattr(nodes.MulBackward0, "apply", _forgets_sum_to)
    a, b = mg.ones(3, 4, requires_grad=True), mg.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"MulBackward0 returned a gradient of shape \(3, 4\)"):
        mg.autograd.grad((a * b).sum(), [a, b], create_graph=True)


def test_a_wrong_dtype_is_refused(monkeypatch):
    def float64_grad(self, grads, create_graph):
        return (np.asarray(grads[0], dtype=np.float64),)
    monkeypatch.setattr(nodes.ExpBackward0, "apply", float64_grad)
    x = mg.ones(3, requires_grad=True)  # float32
    with pytest.raises(RuntimeError, match=r"ExpBackward0 returned a gradient of dtype float64 "
                                           r"for input `self` of dtype float32 \(derivatives.yaml:"):
        x.exp().sum().backward()


def test_a_wrong_count_is_refused(monkeypatch):
    monkeypatch.setattr(nodes.ExpBackward0, "apply", lambda self, grads, cg: (grads[0], grads[0]))
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="ExpBackward0 returned 2 gradients for 1 inputs"):
        x.exp().sum().backward()


def test_the_check_applies_to_inner_nodes_not_only_leaves(monkeypatch):
    monkeypatch.setattr(nodes.MulBackward0, "apply", _forgets_sum_to)
    a = mg.ones(3, 4, requires_grad=True)
    b = mg.ones(4, requires_grad=True) * 2  # not a leaf: the gradient flows into MulBackward0
    with pytest.raises(RuntimeError, match=r"for input `other` of shape \(4,\)"):
        (a * b).sum().backward()


def test_promoted_dtypes_are_cast_to_the_input_as_torch_does():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mg, torch):
        a = lib.tensor([1.0, 2.0], dtype=lib.float32, requires_grad=True)
        b = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        h = a * 1.0  # an inner node that receives the float64 gradient
        (h * b).sum().backward()
        results.append((str(a.grad.dtype).split(".")[-1], a.grad.tolist(), b.grad.tolist()))
    assert results[0] == results[1]


def test_clamp_with_broadcast_tensor_bounds_matches_torch():
    torch = pytest.importorskip("torch")
    values = np.array([[-2.0, 0.5, 3.0], [1.0, -1.0, 2.5]])
    grads = []
    for lib in (mg, torch):
        x = lib.tensor(values, requires_grad=True)
        lo = lib.tensor([[-1.0, 0.0, 0.0]], dtype=lib.float64, requires_grad=True)
        hi = lib.tensor([2.0], dtype=lib.float64, requires_grad=True)
        lib.clamp(x, lo, hi).sum().backward()
        grads.append([t.grad.detach().numpy().tolist() for t in (x, lo, hi)])
    assert grads[0] == grads[1]


# ------------------------------------------------------------ custom Functions
def _function(lib, backward_result):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return backward_result(lib)
    return Double


@pytest.mark.parametrize("make", [  # what backward returns for a (3,) float32 input
    lambda lib: lib.ones(2, 3, dtype=lib.float64),   # broadcastable: summed, cast
    lambda lib: lib.ones(1, 3),                      # a leading 1: summed away
])
def test_custom_function_gradient_is_summed_and_cast_as_torch(make):
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (mg, torch):
        x = lib.ones(3, requires_grad=True)
        _function(lib, make).apply(x).sum().backward()
        grads.append((str(x.grad.dtype).split(".")[-1], x.grad.tolist()))
    assert grads[0] == grads[1]


def _errors_of_both(program, expected=RuntimeError):
    """[minigrad's, torch's] exception from ``program(lib)``; each must raise ``expected``."""
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (mg, torch):
        with pytest.raises(expected) as info:
            program(lib)
        errors.append(info.value)
    return errors


def test_custom_function_incompatible_gradient_raises_torchs_error():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        _function(lib, lambda L: L.ones(5)).apply(x).sum().backward()
    ours, theirs = map(str, _errors_of_both(program))
    assert ours == theirs
    assert "returned an invalid gradient at index 0 - got [5] but expected shape " \
           "compatible with [3]" in ours


# ------------------------------------------------------------------- hooks
def _tensor_hook(lib, returned):
    x = lib.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: returned(lib, g))
    y.sum().backward()


def _leaf_hook(lib, returned):
    x = lib.ones(3, requires_grad=True)
    x.register_hook(lambda g: returned(lib, g))
    (x * 2).sum().backward()


def _node_prehook(lib, returned):
    x = lib.ones(3, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda grads: (returned(lib, grads[0]),))
    y.sum().backward()


def _node_posthook(lib, returned):
    x = lib.ones(3, requires_grad=True)
    y = x.exp()
    y.grad_fn.register_hook(lambda grad_inputs, grads: (returned(lib, grad_inputs[0]),))
    y.sum().backward()


@pytest.mark.parametrize("where", [_tensor_hook, _leaf_hook, _node_prehook, _node_posthook])
@pytest.mark.parametrize("returned", [
    lambda lib, g: lib.ones(4),
    lambda lib, g: lib.ones(1),
    lambda lib, g: lib.ones(3, 1),
    lambda lib, g: g.double(),
    lambda lib, g: 3.0,
], ids=["bigger", "size-1", "more-dims", "dtype", "not-a-tensor"])
def test_hooks_that_change_the_gradient_raise_torchs_error(where, returned):
    ours, theirs = _errors_of_both(lambda lib: where(lib, returned), (RuntimeError, TypeError))
    assert (type(ours), str(ours)) == (type(theirs), str(theirs))


def test_a_post_hook_with_the_wrong_count_raises_torchs_error():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * x
        y.grad_fn.register_hook(lambda grad_inputs, grads: grad_inputs[:1])
        y.sum().backward()
    ours, theirs = map(str, _errors_of_both(program))
    assert ours == theirs


def test_hooks_that_keep_size_and_dtype_still_replace_the_gradient():
    x = mg.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0, 20.0]


# Nodes whose formulas' shapes are certain by construction (codegen/exactness.py: sin's
# `grad * cos(self)`, mul's `sum_to(..., self.shape)`) skip recording and comparing
# shapes; their dtypes are still checked, and a replaced apply is checked in full.

def test_a_replaced_apply_of_a_certain_shape_node_is_checked_in_full(monkeypatch):
    assert nodes.SinBackward0._shape_sources == ("grad",)
    monkeypatch.setattr(nodes.SinBackward0, "apply", lambda self, grads, cg: (grads[0][:2],))
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"SinBackward0 returned a gradient of shape \(2,\) "
                                           r"for input `self` of shape \(3,\)"):
        (x * 2).sin().sum().backward()  # (the input's shape was recorded by no one)


def test_a_certain_shape_node_still_has_its_dtype_checked(monkeypatch):
    monkeypatch.setattr(nodes.SinBackward0, "apply",
                        lambda self, grads, cg: (np.asarray(grads[0], dtype=np.float16),))
    x = mg.ones(3, requires_grad=True)  # float32
    with pytest.raises(RuntimeError, match=r"SinBackward0 returned a gradient of dtype float16 "
                                           r"for input `self` of dtype float32"):
        x.sin().sum().backward()


def test_the_apply_of_a_certain_shape_node_is_trusted_again_once_restored(monkeypatch):
    generated = nodes.SinBackward0.apply
    monkeypatch.setattr(nodes.SinBackward0, "apply", lambda self, grads, cg: generated(self, grads, cg))
    assert nodes.SinBackward0._grad_check == mg.autograd.node.FULL_CHECK
    monkeypatch.undo()
    assert nodes.SinBackward0._grad_check == mg.autograd.node.NO_CHECK  # its forward checks


def test_dtypes_are_checked_where_output_and_input_dtypes_differ():
    # mul's gradient dtype is certain only when its output and the input share a float
    # dtype; here a float64 constant makes the output float64 for a float32 input
    x = mg.ones(2, requires_grad=True)
    (x * np.ones(2)).sum().backward()
    assert x.grad.dtype == mg.float32
    # an integer input (a tensor with history: the internal _to_copy makes one, where
    # .long() now leaves the graph as in torch): the float64 gradient sin's formula
    # returns is cast to the input's dtype, as before
    y = mg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    z = mg._generated.functions._to_copy(y, np.int64)
    z.register_hook(lambda g: seen.append(g.dtype))
    z.sin().sum().backward()
    assert seen == [mg.int64]


def test_a_node_whose_shapes_are_not_certain_gets_its_inputs_shapes_recorded(monkeypatch):
    assert nodes.ExpBackward0._shape_sources is None
    monkeypatch.setattr(nodes.ExpBackward0, "apply", lambda self, grads, cg: (grads[0][:2],))
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"ExpBackward0 returned a gradient of shape \(2,\) "
                                           r"for input `self` of shape \(3,\)"):
        (x * 2).exp().sum().backward()  # (x * 2)'s shape: recorded by exp's forward


# Nodes whose gradients' dtypes are certain for float32 and float64 (sin, mul, ...): their
# forward tests once that the output and the inputs share one of those dtypes; where they
# do not, the engine checks every gradient the node returns.

class _UpcastingCos:
    """The array formulas with a ``cos`` that returns float32 whatever it is given."""

    def __init__(self, formulas):
        self._formulas = formulas

    def __getattr__(self, name):
        if name == "cos":
            return lambda x: np.cos(x).astype(np.float32)
        return getattr(self._formulas, name)


def test_a_float16_node_has_its_gradients_checked(monkeypatch):
    monkeypatch.setattr(nodes.SinBackward0, "_array_formulas",
                        _UpcastingCos(nodes.SinBackward0._array_formulas))
    x = mg.ones(3, dtype=mg.float16, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"SinBackward0 returned a gradient of dtype float32 "
                                           r"for input `self` of dtype float16"):
        (x * 1).sin().sum().backward()


def test_mixed_float_dtypes_give_each_input_its_own_dtype():
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        x = lib.ones(2, dtype=lib.float32, requires_grad=True)
        y = lib.full((2,), 3.0, dtype=lib.float64, requires_grad=True)
        (x * y).sin().sum().backward()
        if lib is mg:
            ours = (x.grad.dtype, y.grad.dtype, x.grad.tolist(), y.grad.tolist())
        else:
            theirs = (x.grad.dtype, y.grad.dtype, x.grad.tolist(), y.grad.tolist())
    assert str(ours[:2]) == str(theirs[:2]).replace("torch", "minigrad")
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6)
