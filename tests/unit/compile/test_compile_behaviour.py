"""minigrad.compile: guards, graph breaks, fullgraph, and autograd through a compiled region."""
import types
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import grad as autograd_grad
from minigrad.compile import GraphBreak


def leaf(*shape, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return minigrad.tensor(rng.uniform(0.5, 1.5, shape).astype(dtype), requires_grad=True)


def f(a, b):
    return ((a + b) * b).sum()


def compiled_state(fn):
    """'compiled' or 'eager' for the guard used last."""
    return "eager" if fn.source().startswith("# not compiled") else "compiled"


def guards(fn):
    return len(fn._cache)


# ------------------------------------------------------------------ basics
def test_decorator_forms_and_values_match_eager():
    a, b = leaf(4), leaf(4, seed=1)

    @minigrad.compile
    def g(a, b):
        return f(a, b)

    @minigrad.compile(fullgraph=True)
    def h(a, b):
        return f(a, b)
    for fn in (g, h):
        for _ in range(3):
            a.grad = b.grad = None
            out = fn(a, b)
            out.backward()
            assert np.allclose(out.item(), f(a, b).item())
            assert np.allclose(a.grad._data, b._data)
            assert np.allclose(b.grad._data, a._data + 2 * b._data)
        assert compiled_state(fn) == "compiled" and guards(fn) == 1


def test_second_call_runs_generated_code_not_the_function():
    # (counted on a plain object's attribute, which the side-effect check does not watch:
    # a closure's list would make the append a graph break, compile/world.py)
    calls = types.SimpleNamespace(count=0)

    @minigrad.compile
    def g(x):
        calls.count += 1
        return x.exp()
    x = leaf(3)
    g(x)
    g(x)
    g(x)
    assert calls.count == 1   # traced once; the generated forward runs afterwards


def test_source_names_ops_and_yaml_lines():
    g = minigrad.compile(f)
    with pytest.raises(RuntimeError, match="call the compiled function once"):
        g.source()
    g(leaf(4), leaf(4, seed=1))
    text = g.source()
    namespace = {}
    exec(compile(text, "<source>", "exec"), namespace)   # the shown source is valid Python
    assert callable(namespace["forward"]) and callable(namespace["backward"])


def test_compile_arguments():
    with pytest.raises(NotImplementedError, match="dynamic"):
        minigrad.compile(f, dynamic=True)
    with pytest.raises(ValueError, match="backend"):
        minigrad.compile(f, backend="nope")
    eager = minigrad.compile(f, backend="eager")
    assert eager(leaf(4), leaf(4)).item() == f(leaf(4), leaf(4)).item()


# ------------------------------------------------------------------ guards
@pytest.mark.parametrize("change", ["shape", "dtype", "requires_grad", "grad_mode", "number",
                                    "aliasing"])
def test_each_guard_compiles_again(change):
    @minigrad.compile
    def g(a, b, scale=2.0):
        return (a * b * scale).sum()
    a, b = leaf(4), leaf(4, seed=1)
    first = g(a, b)
    assert guards(g) == 1
    if change == "shape":
        a2, b2 = leaf(5), leaf(5, seed=1)
        args, kwargs = (a2, b2), {}
    elif change == "dtype":
        a2, b2 = leaf(4, dtype=np.float32), leaf(4, seed=1, dtype=np.float32)
        args, kwargs = (a2, b2), {}
    elif change == "requires_grad":
        b2 = minigrad.tensor(b._data.copy())
        args, kwargs = (a, b2), {}
    elif change == "number":
        args, kwargs = (a, b), {"scale": 3.0}
    elif change == "aliasing":
        args, kwargs = (a, a), {}
    if change == "grad_mode":
        with minigrad.no_grad():
            out = g(a, b)
        assert out.grad_fn is None
    else:
        out = g(*args, **kwargs)
        expected = (args[0] * args[1] * kwargs.get("scale", 2.0)).sum()
        assert np.allclose(out.item(), expected.item())
        assert out.dtype == expected.dtype and out.requires_grad == expected.requires_grad
    assert guards(g) == 2
    g(a, b)
    assert guards(g) == 2   # the first guard is reused
    assert first.item() == g(a, b).item()


def test_captured_tensor_is_read_on_every_call_and_guarded():
    w = leaf(3)

    @minigrad.compile
    def g(x):
        return (x * w).sum()
    x = leaf(3, seed=2)
    g(x)
    with minigrad.no_grad():
        w.mul_(2.0)            # an optimizer step, outside the function
    out = g(x)
    out.backward()
    assert np.allclose(out.item(), (x._data * w._data).sum())
    assert np.allclose(w.grad._data, x._data)
    w2 = w
    w = leaf(4)                 # a different captured tensor (new shape): compiles again
    g(leaf(4))
    assert guards(g) == 2
    del w2


def test_cache_limit_falls_back_to_eager_with_a_warning(monkeypatch):
    monkeypatch.setattr(minigrad.compile, "cache_size_limit", 2)
    g = minigrad.compile(lambda x: x.sum())
    g(leaf(1))
    g(leaf(2))
    with pytest.warns(UserWarning, match="new ones run eagerly"):
        out = g(leaf(3))
    assert np.allclose(out.item(), leaf(3).sum().item())
    assert guards(g) == 2


# ------------------------------------------------------------------ graph breaks
BREAKS = {
    "item": lambda x: x * x.sum().item(),
    "bool": lambda x: x * 2 if x.sum() > 0 else x * 3,
    "float": lambda x: x * float(x.sum()),
    "numpy": lambda x: x * np.asarray(x.detach()).sum(),
    "tolist": lambda x: x * x.detach().tolist()[0],
    "inplace_input": lambda x: x.mul_(2),
    "random": lambda x: x * minigrad.bernoulli(x.sigmoid()),   # (a draw that reads values)
    "hook": lambda x: _hooked(x),
}


def _hooked(x):
    y = x * 2
    y.register_hook(lambda g: g * 10)
    return y


@pytest.mark.parametrize("name", list(BREAKS))
def test_graph_break_runs_eagerly_and_never_freezes_data(name):
    fn = BREAKS[name]
    g = minigrad.compile(fn)
    x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, requires_grad=name == "hook")
    if name == "bool":
        y = minigrad.tensor([-1.0, -2.0, -3.0], dtype=minigrad.float64)
        assert np.allclose(g(x)._data, x._data * 2)
        assert np.allclose(g(y)._data, y._data * 3)  # the other branch: not frozen
    else:
        g(x)
    assert compiled_state(g) == "eager"
    assert "runs eagerly" in g.explain()
    if name in ("item", "float"):
        z = minigrad.tensor([5.0, 6.0, 7.0], dtype=minigrad.float64)
        assert np.allclose(g(z)._data, z._data * z._data.sum())


@pytest.mark.parametrize("name", ["item", "bool", "inplace_input"])
def test_fullgraph_turns_a_break_into_an_error_naming_the_line(name):
    g = minigrad.compile(BREAKS[name], fullgraph=True)
    with pytest.raises(GraphBreak, match=r"test_compile_behaviour.py:\d+"):
        g(minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64))


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("outcome", ["compiled", "error"])
def test_garbage_collector_is_paused_while_compiling_and_restored(enabled, outcome):
    """Compiling pauses Python's cyclic collector (minigrad/compile/__init__.py) and leaves
    it as it found it, also when tracing raises."""
    import gc
    probe = types.SimpleNamespace(seen=[])   # (not watched for side effects, as above)

    def fn(x):
        probe.seen.append(gc.isenabled())
        return x * 2 if outcome == "compiled" else x * x.item()
    g = minigrad.compile(fn, fullgraph=True)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        if outcome == "compiled":
            g(minigrad.tensor([1.0, 2.0]))
        else:
            with pytest.raises(GraphBreak):
                g(minigrad.tensor([1.0, 2.0]))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert probe.seen == [False]


# ------------------------------------------------------------------ autograd through a region
def test_autograd_grad_and_unused_outputs():
    @minigrad.compile
    def two(a, b):
        return a.sin() * b, (a * b).exp()
    a, b = leaf(3), leaf(3, seed=1)
    two(a, b)
    first, second = two(a, b)
    ga, = autograd_grad([first.sum()], [a], retain_graph=True)   # second output's gradient: None
    assert np.allclose(ga._data, np.cos(a._data) * b._data)
    ga, gb = autograd_grad([second.sum()], [a, b])
    assert np.allclose(gb._data, a._data * np.exp(a._data * b._data))


def test_hooks_on_inputs_and_outputs():
    g = minigrad.compile(lambda x: x.tanh())
    x = leaf(3)
    g(x)
    seen = []
    x.register_hook(lambda grad: seen.append("input") or grad * 2)
    y = g(x)
    y.register_hook(lambda grad: seen.append("output") or grad * 3)
    y.sum().backward()
    assert seen == ["output", "input"]
    assert np.allclose(x.grad._data, 6 * (1 - np.tanh(x._data) ** 2))


def test_retain_graph_and_the_freed_graph_error():
    g = minigrad.compile(lambda x: (x.exp() * x).sum())
    x = leaf(3)
    g(x)
    y = g(x)
    y.backward(retain_graph=True)
    y.backward()
    assert np.allclose(x.grad._data, 2 * (np.exp(x._data) * (1 + x._data)))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_version_counter_check_on_inputs():
    g = minigrad.compile(lambda x, w: (x * w).sum())
    x, w = leaf(3), minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64)
    g(x, w)
    y = g(x, w)
    w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_anomaly_mode_runs_eagerly_and_names_the_op():
    g = minigrad.compile(lambda x: (x.sqrt() * 0).sum())
    x = minigrad.tensor([0.0, 1.0], dtype=minigrad.float64, requires_grad=True)
    g(x)
    with minigrad.autograd.detect_anomaly():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = g(x)
            with pytest.raises(RuntimeError, match="Sqrt|Mul"):
                y.backward()


def test_create_graph_gives_second_order_gradients():
    g = minigrad.compile(lambda w, x: (w @ x).tanh().pow(2).sum())
    w, x, v = leaf(4, 4), leaf(4, seed=1), leaf(4, 4, seed=2)
    g(w, x)
    for fn in (g, lambda w, x: (w @ x).tanh().pow(2).sum()):
        gw, = autograd_grad([fn(w, x)], [w], create_graph=True)
        hv, = autograd_grad([(gw * v).sum()], [w])
        if fn is g:
            compiled = hv._data
        else:
            assert np.allclose(compiled, hv._data, rtol=1e-12)


def test_module_forward_compiles_with_parameters_captured():
    model = minigrad.nn.Sequential(minigrad.nn.Linear(5, 4), minigrad.nn.Tanh(),
                                   minigrad.nn.Linear(4, 2)).to(minigrad.float64)
    fast = minigrad.compile(model)
    x = minigrad.tensor(np.random.default_rng(0).normal(size=(3, 5)))
    fast(x)
    out = fast(x)
    out.sum().backward()
    grads = [p.grad._data.copy() for p in model.parameters()]
    for p in model.parameters():
        p.grad = None
    model(x).sum().backward()
    for got, p in zip(grads, model.parameters()):
        assert np.allclose(got, p.grad._data, rtol=1e-12)
    assert compiled_state(fast) == "compiled"


def test_compile_explain_prints_guards_and_breaks(tmp_path, capsys):
    from minigrad import compile_explain
    script = tmp_path / "script.py"
    script.write_text(
        "import minigrad\n"
        "@minigrad.compile\n"
        "def g(x):\n"
        "    if x.sum() > 0:\n"
        "        return x * 2\n"
        "    return x\n"
        "g(minigrad.tensor([1.0, 2.0], requires_grad=True))\n")
    assert compile_explain.main(["--source", str(script)]) == 0
    out = capsys.readouterr().out
    assert "1 graph break(s)" in out
    assert "script.py:4" in out and "bool(tensor)" in out


# ------------------------------------------------------------------ structure
def test_outputs_structure_inputs_returned_and_kwargs():
    @minigrad.compile
    def g(x, *, y, scale):
        return [x, (x * y * scale, 3)], y.exp()
    x, y = leaf(3), leaf(3, seed=1)
    g(x, y=y, scale=2.0)
    (same, (prod, three)), ey = g(x, y=y, scale=2.0)
    assert same is x and three == 3
    assert np.allclose(prod._data, x._data * y._data * 2)
    (prod.sum() + ey.sum()).backward()
    assert np.allclose(y.grad._data, 2 * x._data + np.exp(y._data))


def test_nested_compiled_function_is_inlined_into_the_outer_trace():
    inner = minigrad.compile(lambda x: x.sin())
    outer = minigrad.compile(lambda x: inner(x).exp().sum())
    x = leaf(3)
    outer(x)
    outer(x).backward()
    assert np.allclose(x.grad._data, np.exp(np.sin(x._data)) * np.cos(x._data))
    assert compiled_state(outer) == "compiled"
    assert "0 guard(s)" in inner.explain()   # its ops were recorded by the outer trace


def test_no_grad_call_records_nothing_and_inference_outputs():
    g = minigrad.compile(lambda x: (x * x).sum())
    x = leaf(3)
    with minigrad.no_grad():
        g(x)
        out = g(x)
    assert out.grad_fn is None and not out.requires_grad


def test_compiled_backward_keeps_no_more_arrays_than_eager():
    def fn(a, b):
        return ((a + b) * b).tanh().sum()
    g = minigrad.compile(fn)
    a, b = leaf(8), leaf(8, seed=1)
    g(a, b)
    node = g(a, b).grad_fn
    compiled_arrays = len(node._saved) + len(node._inputs)
    eager_arrays, seen, stack = 0, set(), [fn(a, b).grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        eager_arrays += len(n._saved_slots)
        stack.extend(next_node for next_node, _ in n.next_functions)
    assert compiled_arrays <= eager_arrays


def test_generated_code_takes_its_namespace_from_the_inputs():
    from minigrad.compile.namespace import namespace_of

    class Module:
        pass

    class FakeArray:
        def __array_namespace__(self):
            return Module
    assert namespace_of(np.zeros(2)) is np
    assert namespace_of(np.float32(1)) is np
    assert namespace_of(FakeArray()) is Module


def test_constants_from_creation_functions_compile_and_data_copies_break():
    g = minigrad.compile(lambda x: x * minigrad.ones(3, dtype=minigrad.float64) + minigrad.arange(3))
    x = leaf(3)
    g(x)
    assert compiled_state(g) == "compiled"
    assert np.allclose(g(x)._data, x._data + np.arange(3))
    copy = minigrad.compile(lambda x: x * minigrad.tensor(x.detach() * 2))
    copy(x)
    z = leaf(3, seed=5)
    assert np.allclose(copy(z)._data, z._data * z._data * 2)   # never the first call's values


def test_comparison_masks_are_recomputed_every_call():
    g = minigrad.compile(lambda x: (x * (x > 0)).sum())
    x = minigrad.tensor([1.0, -2.0, 3.0], dtype=minigrad.float64, requires_grad=True)
    g(x)
    y = minigrad.tensor([-1.0, 2.0, -3.0], dtype=minigrad.float64, requires_grad=True)
    out = g(y)
    out.backward()
    assert compiled_state(g) == "compiled"
    assert out.item() == 2.0 and np.allclose(y.grad._data, [0.0, 1.0, 0.0])


# ------------------------------------------------------------------ backward's shortcut
def test_backward_of_a_compiled_scalar_accumulates_like_eager():
    torch = pytest.importorskip("torch")
    g = minigrad.compile(lambda x, y: x * y + x)        # 0-d: the gradient of y is x, of x is y + 1
    x = minigrad.tensor(2.0, dtype=minigrad.float64, requires_grad=True)
    y = minigrad.tensor(3.0, dtype=minigrad.float64, requires_grad=True)
    tx = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    for _ in range(3):
        g(x, y).backward()
        (tx * ty + tx).backward()
    x.grad.add_(1.0)                                    # a leaf's .grad is its own array
    tx.grad.add_(1.0)
    g(x, y).backward()
    (tx * ty + tx).backward()
    assert x.grad.item() == tx.grad.item() and y.grad.item() == ty.grad.item()
    passthrough = minigrad.compile(lambda a, b: a + b)  # both gradients are the root's ones
    a, b = leaf(), leaf(seed=1)
    for _ in range(2):
        a.grad = b.grad = None
        passthrough(a, b).backward()
        a.grad.mul_(5.0)
        assert b.grad.item() == 1.0 and a.grad.item() == 5.0


def test_backward_shortcut_keeps_the_engine_rules():
    g = minigrad.compile(lambda a, b: ((a + b) * b).sum())
    a, b = leaf(4), leaf(4, seed=1)
    g(a, b)
    out = g(a, b)
    out.backward(retain_graph=True)
    out.backward()                                     # retained once: runs again, accumulates
    assert np.allclose(b.grad._data, 2 * (a._data + 2 * b._data))
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()
    seen = []
    a.register_hook(lambda grad: seen.append(grad))    # a hook on an input: the engine runs
    a.grad = None
    g(a, b).backward()
    assert len(seen) == 1 and np.allclose(a.grad._data, b._data)
    out = g(a, b)
    with minigrad.no_grad():
        b.add_(1.0)                                    # the backward reads b: version check
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


@pytest.mark.parametrize("fn", [
    lambda x, y: (x.sin() * x.exp() + x ** 3).sum() + y.sum(),
    lambda x, y: ((x * y + x) * (x - y) / (y + 2.0)).sum(),
    lambda x, y: (x * 2.0 + x * y + y.tanh() * x).mean(),
    lambda x, y: ((x + y) * (x + y) - x).sum(),
])
def test_big_backward_writing_into_dead_gradients_matches_eager(fn):
    # from 65536 elements on, the generated backward reuses gradient buffers in place
    x = leaf(70_000, dtype=np.float32)
    y = leaf(70_000, seed=1, dtype=np.float32)
    before = x._data.copy(), y._data.copy()
    g = minigrad.compile(fn)
    for _ in range(3):
        x.grad = y.grad = None
        g(x, y).backward()
        got = x.grad._data.copy(), y.grad._data.copy()
        x.grad = y.grad = None
        fn(x, y).backward()
        for a, e in zip(got, (x.grad._data, y.grad._data)):
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)
    assert compiled_state(g) == "compiled"
    assert np.array_equal(x._data, before[0]) and np.array_equal(y._data, before[1])


# ------------------------------------------------------------------ create_graph: generated code
def _hvp(lib, f, w, x, v):
    grad = lib.autograd.grad
    g, = grad([f(w, x)], [w], create_graph=True)
    return grad([(g * v).sum()], [w])[0]


@pytest.mark.parametrize("body", [
    lambda w, x: (w @ x).tanh().pow(2).sum(),
    lambda w, x: ((w * x).sin() * w.exp() + w ** 3).sum(),
    lambda w, x: (w @ x).sigmoid().log().mean() + (w * w).sum() * 0.5,
])
def test_hessian_vector_products_through_compiled_code_match_torch(body):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = rng.normal(size=(5, 5)) * 0.5, rng.normal(size=5), rng.normal(size=(5, 5))
    w = minigrad.tensor(arrays[0], requires_grad=True)
    x, v = minigrad.tensor(arrays[1]), minigrad.tensor(arrays[2])
    tw = torch.tensor(arrays[0], requires_grad=True)
    tx, tv = torch.tensor(arrays[1]), torch.tensor(arrays[2])
    expected = _hvp(torch, body, tw, tx, tv).numpy()
    g = minigrad.compile(body)
    for _ in range(3):   # traced; compiled (its create_graph backward traced); all generated
        np.testing.assert_allclose(_hvp(minigrad, g, w, x, v)._data, expected, rtol=1e-10, atol=1e-12)
    assert compiled_state(g) == "compiled"
    backwards = g._latest._tensor_backwards
    assert backwards and all(found is not None and compiled_state(found[0]) == "compiled"
                             for found in backwards.values())


def test_third_order_through_a_compiled_region_matches_torch():
    torch = pytest.importorskip("torch")
    body = lambda x: (x.sin() * x * x).sum()   # noqa: E731
    g = minigrad.compile(body)
    x = minigrad.tensor([0.3, -1.2, 2.0], dtype=minigrad.float64, requires_grad=True)
    tx = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    for _ in range(3):
        results = []
        for lib, fn, t in ((minigrad, g, x), (torch, body, tx)):
            d1, = lib.autograd.grad([fn(t)], [t], create_graph=True)
            d2, = lib.autograd.grad([d1.sum()], [t], create_graph=True)
            d3, = lib.autograd.grad([d2.sum()], [t])
            results.append(np.asarray(d3.detach().numpy() if lib is torch else d3._data))
        np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_create_graph_checks_inputs_it_recomputes_from():
    g = minigrad.compile(lambda a, b: ((a + b) * b).sum())   # backward reads b and a + b
    a, b = leaf(3), leaf(3, seed=1)
    g(a, b)
    out = g(a, b)
    with minigrad.no_grad():
        a.mul_(2.0)            # only create_graph's recomputation of a + b reads a
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        autograd_grad([out], [b], create_graph=True)


def test_create_graph_retains_the_graph_and_its_gradients_are_differentiable():
    g = minigrad.compile(lambda x: (x.tanh() * x).sum())
    x = leaf(4)
    g(x)
    out = g(x)
    dx, = autograd_grad([out], [x], create_graph=True)
    again, = autograd_grad([out], [x], create_graph=True)   # create_graph retains the graph
    ex, = autograd_grad([(x.tanh() * x).sum()], [x], create_graph=True)
    for got in (dx, again):
        np.testing.assert_allclose(got._data, ex._data, rtol=1e-12)
        assert got.requires_grad and got.grad_fn is not None
    out.backward()                                          # and a plain backward after it
    np.testing.assert_allclose(x.grad._data, ex._data, rtol=1e-12)


def test_big_programs_calling_functions_named_like_variables():
    # from 65,536 elements on the generated code deletes dead variables (v3, g3): never a
    # function whose name starts alike (view_array, var_array, gather_array)
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).random((300, 400))
    index = np.random.default_rng(1).integers(0, 400, (300, 400))

    def f(x, lib):
        y = x.view(-1) * 2.0
        return y.var() + x.gather(1, lib.tensor(index)).sum()
    compiled = minigrad.compile(lambda x: f(x, minigrad))
    for _ in range(2):
        x = minigrad.tensor(data, requires_grad=True)
        out = compiled(x)
        out.backward()
    t = torch.tensor(data, requires_grad=True)
    want = f(t, torch)
    want.backward()
    np.testing.assert_allclose(out.item(), want.item(), rtol=1e-12)
    # var's gradient, 2 (x - mean) / (n - 1), is near 0 for elements near the mean: there its
    # relative error is the mean's (summed in another order), so the bound is on the largest
    want_grad = t.grad.numpy()
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-12,
                               atol=1e-12 * np.abs(want_grad).max())


def test_a_captured_tensor_given_a_new_shape_is_guarded_on_the_next_call():
    torch = pytest.importorskip("torch")
    w = leaf(3)
    g = minigrad.compile(lambda x: (x * w).sum())
    x = leaf(1, seed=2)                  # broadcasts against w
    g(x)
    g(x)                                 # the generated code, its guard checked
    w.data = leaf(5, seed=3)             # same Tensor, new shape: not the code traced for 3
    out = g(x)
    out.backward()
    tw = torch.tensor(w._data, requires_grad=True)
    tx = torch.tensor(x._data, requires_grad=True)
    expected = (tx * tw).sum()
    expected.backward()
    assert np.allclose(out.item(), expected.item())
    assert np.allclose(w.grad._data, tw.grad.numpy()) and np.allclose(x.grad._data, tx.grad.numpy())


def test_input_edges_are_the_leaves_accumulators_and_their_hooks_run():
    g = minigrad.compile(f)
    a, b = leaf(4), leaf(4, seed=1)
    g(a, b)
    out = g(a, b)
    edges = out.grad_fn.next_functions
    assert [acc.variable for acc, _ in edges] == [a, b] and [nr for _, nr in edges] == [0, 0]
    accumulator = edges[0][0]
    seen = []
    accumulator.register_prehook(lambda grad_outputs: seen.append(grad_outputs[0]._data.copy()))
    out.backward()
    later = g(a, b)                      # its edges are not read: the hooked accumulator is a's
    later.backward()
    assert len(seen) == 2
    assert np.allclose(seen[1], b._data) and np.allclose(a.grad._data, 2 * b._data)


def test_gradients_of_a_compiled_sum_are_the_leaves_own_arrays():
    torch = pytest.importorskip("torch")
    g = minigrad.compile(lambda x, y: x.sum() + (x * y).sum())
    x, y = leaf(3), leaf(3, seed=1)
    tx, ty = (torch.tensor(t._data, requires_grad=True) for t in (x, y))
    for _ in range(3):                      # traced, then the generated code twice
        x.grad = y.grad = tx.grad = ty.grad = None
        g(x, y).backward()
        (tx.sum() + (tx * ty).sum()).backward()
        x.grad.mul_(2.0)                    # written in place: no other gradient changes
        tx.grad.mul_(2.0)
        assert np.allclose(x.grad._data, tx.grad.numpy()) and np.allclose(y.grad._data, ty.grad.numpy())
    x.grad = y.grad = tx.grad = ty.grad = None
    g(x, y).backward()
    (tx.sum() + (tx * ty).sum()).backward()
    assert np.allclose(x.grad._data, tx.grad.numpy())


# ------------------------------------------------------------------ small-program paths
def test_shortcut_backward_quiets_numpy_and_restores_its_error_state():
    torch = pytest.importorskip("torch")
    g = minigrad.compile(lambda x, y: (x / y).sum())
    x, y = leaf(3), leaf(3, seed=1)
    y.data[1] = 0.0                                     # the backward divides by zero
    tx = torch.tensor(x._data, requires_grad=True)
    ty = torch.tensor(y._data, requires_grad=True)
    (tx / ty).sum().backward()
    before = np.geterr()
    for _ in range(2):                                  # traced, then the generated code
        x.grad = y.grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("error")              # as the engine: no numpy warnings
            g(x, y).backward()
        assert np.geterr() == before
    np.testing.assert_array_equal(x.grad._data, tx.grad.numpy())
    np.testing.assert_array_equal(y.grad._data, ty.grad.numpy())
    out = g(x, y)
    with minigrad.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    assert np.geterr() == before                        # restored after an error too


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
def test_full_sums_keep_torch_dtypes_and_values(dtype):
    torch = pytest.importorskip("torch")
    data = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    g = minigrad.compile(lambda x: (x * x).sum())
    for _ in range(2):
        out = g(minigrad.tensor(data))
    expected = (torch.tensor(data) * torch.tensor(data)).sum()
    assert str(out.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert out._data.shape == () and type(out._data) is np.ndarray
    assert out.item() == expected.item()


@pytest.mark.parametrize("shapes", [((5, 1), (1, 4)), ((2, 5, 1), (1, 4)), ((5, 1), (3, 1, 4))])
def test_outer_products_through_matmul_match_torch(shapes):
    torch = pytest.importorskip("torch")
    g = minigrad.compile(lambda a, b, w: ((a @ b) * w).sum())
    a, b = leaf(*shapes[0]), leaf(*shapes[1], seed=1)
    w = leaf(*np.matmul(np.ones(shapes[0]), np.ones(shapes[1])).shape, seed=2)
    ta, tb, tw = (torch.tensor(t._data, requires_grad=True) for t in (a, b, w))
    ((ta @ tb) * tw).sum().backward()
    for _ in range(2):
        a.grad = b.grad = w.grad = None
        g(a, b, w).backward()
    for mine, theirs in ((a, ta), (b, tb), (w, tw)):
        np.testing.assert_allclose(mine.grad._data, theirs.grad.numpy(), rtol=1e-12)


def test_hessian_vector_product_of_a_matrix_vector_product_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    w0, x0, v0 = rng.standard_normal((6, 6)) * 0.3, rng.standard_normal(6), rng.standard_normal((6, 6))
    f = minigrad.compile(lambda w, x: (w @ x).tanh().pow(2).sum())
    w = minigrad.tensor(w0, requires_grad=True)
    x, v = minigrad.tensor(x0), minigrad.tensor(v0)
    tw = torch.tensor(w0, requires_grad=True)
    tg, = torch.autograd.grad((tw @ torch.tensor(x0)).tanh().pow(2).sum(), tw, create_graph=True)
    thv, = torch.autograd.grad((tg * torch.tensor(v0)).sum(), tw)
    for _ in range(3):
        grad, = autograd_grad([f(w, x)], [w], create_graph=True)
        hv, = autograd_grad([(grad * v).sum()], [w])
        np.testing.assert_allclose(grad._data, tg.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(hv._data, thv.numpy(), rtol=1e-10)


@pytest.mark.parametrize("fn", [
    lambda a, b: (b * 2.0).sum(),                       # the first argument unused
    lambda a, b: (b * a - b).sum(),                     # read in the other order
])
def test_inputs_other_than_the_positional_arguments_in_order(fn):
    g = minigrad.compile(fn)
    for _ in range(3):
        a, b = leaf(3), leaf(3, seed=1)
        g(a, b).backward()
        ea, eb = leaf(3), leaf(3, seed=1)
        fn(ea, eb).backward()
        for mine, eager in ((a, ea), (b, eb)):
            assert (mine.grad is None) == (eager.grad is None)
            if mine.grad is not None:
                np.testing.assert_allclose(mine.grad._data, eager.grad._data)



# ------------------------------------------------------------------ hooks on outputs it reads
def sin_and_square_sum(x):
    y = x.sin()
    return y, (y * y).sum()


def hooked(lib, body, x0, use_y):
    """``body(x)``'s outputs ``y, z``, ``y`` hooked (the hook triples its gradient) and
    retaining its gradient: (x, the loss, y, the gradients the hook saw)."""
    x = lib.tensor(x0, requires_grad=True)
    seen = []
    y, z = body(x)
    y.register_hook(lambda g: seen.append(g.detach().numpy().copy()) or g * 3)
    y.retain_grad()
    return x, (z + y.sum() if use_y else z), y, seen


@pytest.mark.parametrize("use_y", [True, False], ids=["used-outside", "inside-only"])
def test_hooks_on_an_output_the_region_reads_see_its_whole_gradient(use_y):
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, 5)
    x, loss, y, seen = hooked(torch, sin_and_square_sum, x0, use_y)
    loss.backward()
    expected = seen[0], y.grad.numpy(), x.grad.numpy()
    g = minigrad.compile(sin_and_square_sum)
    for _ in range(3):                                  # traced, then the generated code
        x, loss, y, seen = hooked(minigrad, g, x0, use_y)
        loss.backward()
        assert len(seen) == 1
        for mine, theirs in zip((seen[0], y.grad.numpy(), x.grad.numpy()), expected):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_hooks_on_an_output_the_region_reads_under_create_graph():
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(1).uniform(0.5, 1.5, 5)

    def orders(lib, body, grad):
        x, loss, y, seen = hooked(lib, body, x0, True)
        gx, = grad([loss], [x], create_graph=True)
        hx, = grad([(gx * gx).sum()], [x])
        return seen[0], y.grad.detach().numpy(), gx.detach().numpy(), hx.numpy()
    expected = orders(torch, sin_and_square_sum, torch.autograd.grad)
    g = minigrad.compile(sin_and_square_sum)
    for _ in range(3):
        for mine, theirs in zip(orders(minigrad, g, autograd_grad), expected):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12)



def test_autograd_grad_for_an_output_the_region_reads():
    x0 = np.random.default_rng(2).uniform(0.5, 1.5, 5)
    g = minigrad.compile(sin_and_square_sum)
    for body in (sin_and_square_sum, g, g):
        x = minigrad.tensor(x0, requires_grad=True)
        y, z = body(x)
        found, = autograd_grad([z + y.sum()], [y])
        np.testing.assert_allclose(found.numpy(), 2 * np.sin(x0) + 1, rtol=1e-12)

# ------------------------------------------------------------------ numpy's warnings
@pytest.mark.parametrize("fn", [
    lambda x, w: (x.relu() * w).sum(),                  # 0 * inf in the forward
    lambda x, w: (x.log() * w + w / x).sum(),          # log(0), 1 / 0; and in the backward
    lambda x, w: ((x - x) / (w - w)).exp(),             # 0 / 0 and inf - inf, no reduction
], ids=["inf-times-zero", "log-and-division", "nan-elementwise"])
def test_compiled_code_computes_inf_and_nan_silently_as_eager(fn):
    torch = pytest.importorskip("torch")
    x0, w0 = np.array([-1.0, 0.0, 2.0]), np.array([np.inf, 1.0, 2.0])
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (x0, w0))
    tout = fn(tx, tw)
    tout.sum().backward()
    g = minigrad.compile(fn)
    before = np.geterr()
    for _ in range(3):                                  # traced, then the generated code
        x, w = minigrad.tensor(x0, requires_grad=True), minigrad.tensor(w0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")              # eager minigrad warns about none
            out = g(x, w)
            assert np.geterr() == before
            out.sum().backward()
        assert np.geterr() == before
        np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
        np.testing.assert_array_equal(w.grad.numpy(), tw.grad.numpy())


# ------------------------------------------------------------------ outputs sharing memory
def _outputs_after_writes(fn, call):
    """x's values and version, and the outcome of a backward, after writing into the
    second output in place (the first is x.sin(), which saved x)."""
    x = minigrad.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
    s, shared = fn(x)
    with minigrad.no_grad():
        shared.mul_(2)
    try:
        s.sum().backward()
        outcome = x.grad.numpy().round(6).tolist()
    except RuntimeError as error:
        outcome = str(error).splitlines()[0]
    return x.detach().numpy().tolist(), x._version, shared._base is not None, outcome


@pytest.mark.parametrize("second", ["detach", "data", "detached row", "row"])
def test_outputs_sharing_an_inputs_memory_share_what_eager_shares(second):
    """x.detach() shares x's version counter (a write through it makes backward refuse the
    changed saved x), x.data does not; neither is a view.  The second call runs the
    generated code."""
    take = {"detach": lambda x: x.detach(), "data": lambda x: x.data,
            "detached row": lambda x: x[0].detach(), "row": lambda x: x[0]}[second]

    def fn(x):
        return x.sin(), take(x)
    compiled = minigrad.compile(fn)
    for call in range(2):
        assert _outputs_after_writes(compiled, call) == _outputs_after_writes(fn, call)


@pytest.mark.parametrize("make", [lambda: minigrad.nn.LSTM(4, 3, num_layers=2),
                                  lambda: minigrad.nn.GRU(4, 3, bidirectional=True),
                                  lambda: minigrad.nn.TransformerEncoderLayer(4, 2, 8,
                                                                              dropout=0.0)],
                         ids=["lstm", "gru", "transformer layer"])
def test_recurrent_and_attention_layers_compile_without_breaks(make):
    """Their zeros first state (a constant, indexed per layer) and dropout=0.0 used to be
    graph breaks."""
    minigrad.manual_seed(0)
    model = make()
    compiled = minigrad.compile(model, fullgraph=True)
    for seed in range(2):
        x = minigrad.tensor(np.random.default_rng(seed).standard_normal((5, 2, 4)),
                            dtype=minigrad.float32)
        results = []
        for fn in (model, compiled):
            model.zero_grad()
            out = fn(x)
            out = out[0] if isinstance(out, tuple) else out
            (out * out).sum().backward()
            results.append([out.detach().numpy()] + [p.grad.numpy() for p in model.parameters()])
        for mine, eager in zip(*results):
            np.testing.assert_allclose(mine, eager, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_compiles_without_breaks(mode):
    """Its indices and weights follow from the sizes: constants (they were graph breaks)."""
    up = minigrad.nn.Upsample(scale_factor=2, mode=mode)
    compiled = minigrad.compile(up, fullgraph=True)
    for seed in range(2):
        values = np.random.default_rng(seed).standard_normal((1, 2, 3, 3))
        results = []
        for fn in (up, compiled):
            x = minigrad.tensor(values, requires_grad=True)
            out = fn(x)
            (out * out).sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy()))
        for mine, eager in zip(*results):
            np.testing.assert_allclose(mine, eager, rtol=1e-12)


def _dropout_program(x, w):
    h = minigrad.nn.functional.dropout((x @ w).tanh(), 0.3, True)
    channels = minigrad.nn.functional.dropout2d(h.reshape(2, 3, 2, 2), 0.5, True)
    return channels.sum() * 2 + minigrad.nn.functional.dropout(h, 0.1, True).pow(2).sum()


def _same_draws_as_eager(program, shapes=((6, 4), (4, 4)), generators=()):
    """Compiled with fullgraph, ``program`` gives eager's values, first and second
    derivatives and generator state after, under the same seed (of the default generator
    and ``generators``), call after call."""
    compiled = minigrad.compile(program, fullgraph=True)
    rng = np.random.default_rng(0)
    for call in range(3):
        values = [rng.standard_normal(shape) for shape in shapes]
        results = []
        for fn in (program, compiled):
            x, w = (minigrad.tensor(v, requires_grad=True) for v in values)
            for generator in (minigrad.default_generator, *generators):
                generator.manual_seed(call)
            out = fn(x, w)
            gx, gw = autograd_grad(out, (x, w), create_graph=True)
            ggx, = autograd_grad(gx.pow(2).sum() + gw.sum(), x)
            results.append([out.detach().numpy(), gx.detach().numpy(), gw.detach().numpy(),
                            ggx.numpy(), *(minigrad.rand(3, generator=g).numpy()
                                           for g in (None, *generators))])
        for mine, eager in zip(*results):
            np.testing.assert_array_equal(mine, eager)
    assert "compiled:" in compiled.explain()


def test_dropout_draws_its_masks_anew_on_every_call():
    """Dropout's masks are inputs the compiled call draws, in eager's order."""
    _same_draws_as_eager(_dropout_program)


_OWN = minigrad.Generator()


def _sampling_program(x, w):
    h = (x @ w).tanh()
    own = _OWN
    noisy = h + minigrad.randn_like(h) * 0.1 + minigrad.rand(6, 1, dtype=h.dtype)
    picks = minigrad.randint(0, 4, (6,)) + minigrad.randperm(6) + minigrad.randint_like(h, 3)[:, 0]
    shifted = noisy + minigrad.normal(0.0, 2.0, (4,), generator=own) * picks[:, None]
    return (minigrad.nn.functional.dropout(shifted, 0.2, True) * minigrad.rand_like(h)).pow(2).sum()


def test_samplers_of_shapes_draw_anew_on_every_call():
    """rand, randn, randint, randperm, normal of numbers and the _like forms (a VAE's
    reparameterization, a diffusion step's noise and timesteps) compile: each draw is an
    input the call draws again, from its generator, in eager's order."""
    _same_draws_as_eager(_sampling_program, generators=(_OWN,))


def _selu_program(x, w):
    h = minigrad.nn.functional.alpha_dropout(minigrad.nn.functional.selu(x @ w), 0.2, True)
    h = minigrad.nn.functional.feature_alpha_dropout(h.reshape(3, 2, 4), 0.5, True)
    return minigrad.nn.functional.rrelu(h, training=True).pow(2).sum()


def test_alpha_dropout_and_rrelu_draw_anew_on_every_call():
    """Their masks and slopes are dropout's mask and rand's draw (inputs each call draws)."""
    _same_draws_as_eager(_selu_program)


@pytest.mark.parametrize("draw", [
    lambda h: minigrad.bernoulli(h.sigmoid()),                 # reads the probabilities
    lambda h: minigrad.normal(h, 1.0),                          # reads the mean
    lambda h: minigrad.multinomial(h.softmax(1), 1).to(h.dtype),
    lambda h: minigrad.randn(h.shape, requires_grad=True),      # a leaf of its own
], ids=["bernoulli", "normal-of-tensor", "multinomial", "requires-grad"])
def test_draws_that_read_values_stay_graph_breaks(draw):
    compiled = minigrad.compile(lambda x: (x * draw(x)).sum(), fullgraph=True)
    with pytest.raises(GraphBreak, match="random op"):
        compiled(leaf(3, 4))


@pytest.mark.parametrize("seeding", [
    lambda: minigrad.manual_seed(0),
    lambda: minigrad.Generator().manual_seed(0),
    lambda: minigrad.random.set_rng_state(minigrad.random.get_rng_state()),
], ids=["manual_seed", "a new generator", "set_rng_state"])
def test_seeding_inside_is_a_graph_break(seeding):
    """The draws of a compiled call continue the generator's stream: a function that
    seeds (or makes a generator) would draw other values than eager, so it runs eagerly."""
    def program(x):
        seeding()
        return minigrad.nn.functional.dropout(x, 0.5, True).sum() + minigrad.randn(3).sum()
    with pytest.raises(GraphBreak, match="generator seeded"):
        minigrad.compile(program, fullgraph=True)(leaf(3, 4))
    compiled, x = minigrad.compile(program), leaf(3, 4)
    for call in range(2):
        minigrad.manual_seed(call)
        mine = compiled(x).item()
        minigrad.manual_seed(call)
        assert mine == program(x).item()


def test_a_transformer_layer_in_training_compiles():
    minigrad.manual_seed(0)
    layer = minigrad.nn.TransformerEncoderLayer(8, 2, 16)   # dropout 0.1
    compiled = minigrad.compile(layer, fullgraph=True)
    x = minigrad.tensor(np.random.default_rng(0).standard_normal((5, 2, 8)),
                        dtype=minigrad.float32)
    results = []
    for fn in (layer, compiled):
        layer.zero_grad()
        minigrad.manual_seed(1)
        out = fn(x)
        out.pow(2).sum().backward()
        results.append([out.detach().numpy()] + [p.grad.numpy() for p in layer.parameters()])
    for mine, eager in zip(*results):
        np.testing.assert_allclose(mine, eager, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ buffers updated in place
def _batch_norm_model():
    minigrad.manual_seed(0)
    nn = minigrad.nn
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.Flatten(), nn.Linear(100, 3), nn.BatchNorm1d(3))


def test_batch_norm_trains_compiled_as_eager():
    """Running statistics and num_batches_tracked are written back after every compiled
    call: parameters, buffers and their versions follow eager bit for bit."""
    eager, mine = _batch_norm_model(), _batch_norm_model()
    compiled = minigrad.compile(mine, fullgraph=True)
    optimizers = [minigrad.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
                  for m in (eager, mine)]
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = minigrad.tensor(rng.standard_normal((6, 2, 5, 5)), dtype=minigrad.float32)
        for fn, opt in zip((eager, compiled), optimizers):
            opt.zero_grad()
            fn(x).pow(2).mean().backward()
            opt.step()
        for a, b in zip(eager.state_dict().values(), mine.state_dict().values()):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert eager[1].running_mean._version == mine[1].running_mean._version
    eager.eval(), mine.eval()
    np.testing.assert_array_equal(compiled(x).detach().numpy(), eager(x).detach().numpy())


def test_a_captured_tensor_updated_in_place_is_written_back_every_call():
    counter = minigrad.zeros((), dtype=minigrad.int64)

    def count(x):
        counter.add_(1)
        return x * counter
    compiled = minigrad.compile(count, fullgraph=True)
    for calls in range(1, 4):
        out = compiled(minigrad.tensor([1.0, 2.0]))
        assert int(counter) == calls and out.tolist() == [calls, 2.0 * calls]


def test_a_captured_tensor_changed_after_it_was_saved_is_refused_as_eager():
    scale = minigrad.tensor([1.0, 2.0])

    def scaled(x):
        y = x * scale   # (saves scale for x's gradient)
        scale.mul_(2)
        return y
    compiled = minigrad.compile(scaled)
    for fn in (scaled, compiled, compiled):
        x = minigrad.tensor([1.0, 1.0], requires_grad=True)
        y = fn(x)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
