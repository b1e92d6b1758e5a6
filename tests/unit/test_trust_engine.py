"""Engine semantics as in PyTorch: per-thread modes, decorators, hooks, saved-tensor
hooks, inference mode, checkpointing, nesting.  Compared with torch where installed."""
import threading

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function


def _torch():
    return pytest.importorskip("torch")


# --- grad mode, inference mode and anomaly mode are per thread ---------------------------

def test_four_threads_of_independent_passes_all_succeed_and_grad_mode_is_restored():
    failures, done = [], []

    def work(seed):
        rng = np.random.default_rng(seed)
        for i in range(300):
            try:
                data = rng.standard_normal((4, 3))
                x = mg.tensor(data, requires_grad=True)
                if i % 3 == 0:
                    with mg.no_grad():
                        assert not (x * 2).requires_grad
                (x.exp() * x).sum().backward()
                np.testing.assert_allclose(x.grad.numpy(), np.exp(data) * (1 + data))
                done.append(1)
            except Exception as error:  # collected: an assert in a thread would be lost
                failures.append(repr(error))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [] and len(done) == 1200
    assert mg.is_grad_enabled()


@pytest.mark.parametrize("enter", [
    lambda: mg.no_grad(), lambda: mg.inference_mode(), lambda: mg.set_grad_enabled(False),
    lambda: mg.autograd.set_detect_anomaly(True)])
def test_a_mode_set_in_one_thread_is_not_seen_in_another(enter):
    seen = {}

    def other():
        seen["grad"] = mg.is_grad_enabled()
        seen["inference"] = mg.is_inference_mode_enabled()
        seen["anomaly"] = mg.autograd.is_anomaly_enabled()

    with enter():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == {"grad": True, "inference": False, "anomaly": False}
    assert mg.is_grad_enabled() and not mg.autograd.is_anomaly_enabled()


@pytest.mark.parametrize("lib_name", ["minigrad", "torch"])
def test_ops_record_by_their_own_threads_mode(lib_name):
    """An op records a graph by the grad mode of the thread that runs it: another thread's
    no_grad (held, or left on by a thread that ended) changes nothing, and a new thread
    starts recording even while the one that made it is in no_grad."""
    lib = mg if lib_name == "minigrad" else _torch()
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = {}
    entered, release = threading.Event(), threading.Event()

    def holds_no_grad():
        with lib.no_grad():
            seen["held"] = (x * 2).requires_grad
            entered.set()
            release.wait()

    def records():
        seen["new thread"] = (x * 2).requires_grad

    def ends_with_grad_off():
        lib.set_grad_enabled(False)
        seen["left off"] = (x + 1).requires_grad

    holder = threading.Thread(target=holds_no_grad)
    holder.start()
    entered.wait()
    seen["main, other thread in no_grad"] = (x * 2).requires_grad
    release.set()
    holder.join()
    with lib.no_grad():
        thread = threading.Thread(target=records)
        thread.start()
        thread.join()
        seen["main in no_grad"] = (x * 2).requires_grad
    for _ in range(3):  # (a new thread may get an ended one's id)
        thread = threading.Thread(target=ends_with_grad_off)
        thread.start()
        thread.join()
        seen["main"] = (x * x).sum().requires_grad
        thread = threading.Thread(target=records)
        thread.start()
        thread.join()
        assert seen == {"held": False, "main, other thread in no_grad": True,
                        "new thread": True, "main in no_grad": False, "left off": False,
                        "main": True}


def test_grad_mode_written_directly_is_read_by_the_ops():
    """``grad_mode.flags.enabled`` is what compiled regions set around their backward."""
    from minigrad.autograd import grad_mode
    x = mg.tensor([1.0], requires_grad=True)
    grad_mode.flags.enabled = False
    try:
        off = (x * 2).requires_grad
    finally:
        grad_mode.flags.enabled = True
    assert (off, (x * 2).requires_grad) == (False, True)


def test_saved_tensors_hooks_are_per_thread():
    packed = []
    x = mg.tensor([1.0, 2.0], requires_grad=True)

    def other():
        (x * x).sum()

    with mg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert packed == []
        (x * x).sum()
    assert packed == [1, 1]


# --- the managers as decorators --------------------------------------------------------

def _modes():
    return (mg.is_grad_enabled(), mg.is_inference_mode_enabled())


def _torch_modes(torch):
    return (torch.is_grad_enabled(), torch.is_inference_mode_enabled())


DECORATORS = ["no_grad", "no_grad()", "enable_grad", "enable_grad()", "inference_mode",
              "inference_mode()", "inference_mode(False)", "set_grad_enabled(False)"]


def _decorate(lib, spelling, fn):
    name, _, args = spelling.partition("(")
    manager = getattr(lib, name)
    if not args:
        return manager(fn)
    value = args.rstrip(")")
    return (manager(eval(value)) if value else manager())(fn)


@pytest.mark.parametrize("spelling", DECORATORS)
def test_managers_decorate_functions_and_generators_as_torch(spelling):
    torch = _torch()
    results = {}
    for lib, modes in ((mg, _modes), (torch, lambda: _torch_modes(torch))):
        def fn():
            return modes()

        def gen():
            yield modes()
            yield modes()

        with lib.no_grad():  # start from a mode the decorator changes one way or the other
            before = modes()
            plain = _decorate(lib, spelling, fn)()
            iterator = _decorate(lib, spelling, gen)()
            first = next(iterator)
            between = modes()
            second = next(iterator)
            after = modes()
        results[lib.__name__] = (before, plain, first, between, second, after, modes())
    assert results["minigrad"] == results["torch"]


def test_inference_mode_nesting_matches_torch():
    torch = _torch()

    def probe(lib, modes):
        seen = []
        with lib.inference_mode():
            seen.append(modes())
            with lib.inference_mode(False):
                seen.append(modes())
                with lib.no_grad():
                    seen.append(modes())
                seen.append(lib.ones(2).is_inference())
            seen.append(lib.ones(2).is_inference())
        with lib.no_grad():
            with lib.inference_mode(False):
                seen.append(modes())
        seen.append(modes())
        return seen

    assert probe(mg, _modes) == probe(torch, lambda: _torch_modes(torch))


# --- nested (reentrant) backward ---------------------------------------------------------

class _Nested(Function):
    """Its backward runs a backward of its own, ``depth`` levels deep."""

    @staticmethod
    def forward(ctx, x, depth):
        ctx.depth = depth
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        if ctx.depth > 0:
            with mg.enable_grad():
                inner = mg.tensor([1.0], requires_grad=True)
                _Nested.apply(inner, ctx.depth - 1).sum().backward()
                assert inner.grad.item() == 2.0
        return grad * 2, None


def test_backward_nests_a_thousand_levels_deep():
    x = mg.tensor([1.0], requires_grad=True)
    _Nested.apply(x, 1000).sum().backward()
    assert x.grad.item() == 2.0
    assert mg.is_grad_enabled()


def test_a_nested_backward_keeps_the_callers_modes_when_it_changes_thread():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            seen.append(mg.autograd.is_anomaly_enabled())
            if ctx.depth > 0:
                with mg.enable_grad():
                    inner = mg.tensor([1.0], requires_grad=True)
                    Probe.apply(inner, ctx.depth - 1).sum().backward()
            return grad, None

    x = mg.tensor([1.0], requires_grad=True)
    with mg.autograd.set_detect_anomaly(True):
        Probe.apply(x, 100).sum().backward()
    assert seen == [True] * 101


def test_an_error_deep_in_a_nested_backward_reaches_the_caller():
    class Failing(Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            if ctx.depth == 0:
                raise ValueError("deep failure")
            with mg.enable_grad():
                inner = mg.tensor([1.0], requires_grad=True)
                Failing.apply(inner, ctx.depth - 1).sum().backward()
            return grad, None

    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="deep failure"):
        Failing.apply(x, 80).sum().backward()
    assert mg.is_grad_enabled()


# --- hooks -------------------------------------------------------------------------------

def _hook_order(lib):
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    accumulate = y.grad_fn.next_functions[0][0]
    accumulate.register_prehook(lambda grads: log.append(("node pre-hook", x.grad)))
    x.register_hook(lambda g: log.append(("tensor hook 1", g.tolist())) or g * 10)
    accumulate.register_hook(
        lambda grad_inputs, grad_outputs: log.append(("node hook", grad_outputs[0].tolist())))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post-accumulate", t.grad.tolist())))
    x.register_hook(lambda g: log.append(("tensor hook 2", g.tolist())))
    y.sum().backward()
    return log


def test_hook_order_on_a_leaf_matches_torch():
    torch = _torch()
    assert _hook_order(mg) == _hook_order(torch)
    assert [name for name, _ in _hook_order(mg)] == [
        "tensor hook 1", "tensor hook 2", "node pre-hook", "post-accumulate", "node hook"]


def _multi_grad_hook_calls(lib):
    graph = lib.autograd.graph
    calls = []

    def record(grads):
        calls.append([None if g is None else g.tolist() for g in grads])

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b, c = x * 2, x * 3, x * 4
    handle = graph.register_multi_grad_hook((a, b, c), record)
    (a.sum() + b.sum()).backward(retain_graph=True)
    (a.sum() + b.sum() + c.sum() * 2).backward(retain_graph=True)
    lib.autograd.grad(a.sum() + c.sum(), [x], retain_graph=True)
    handle.remove()
    a.sum().backward(retain_graph=True)
    firsts = []
    graph.register_multi_grad_hook((a, b), lambda g: firsts.append(g.tolist()), mode="any")
    (a.sum() + b.sum() * 2).backward(retain_graph=True)
    y = lib.tensor([1.0], requires_grad=True)
    graph.register_multi_grad_hook((x, y), record)
    (x.sum() * 3).backward()
    (x.sum() * 3 + y.sum()).backward()
    return calls, firsts


def test_register_multi_grad_hook_matches_torch():
    torch = _torch()
    assert _multi_grad_hook_calls(mg) == _multi_grad_hook_calls(torch)


def test_register_multi_grad_hook_refuses_an_unknown_mode():
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="one of"):
        mg.autograd.graph.register_multi_grad_hook((x,), print, mode="some")


def test_node_metadata_is_a_dict_kept_on_the_node():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 3
    y.grad_fn.metadata["tag"] = "scale"
    assert y.grad_fn.metadata == {"tag": "scale"}
    y.sum().backward()
    assert x.grad.item() == 3.0


# --- hooks on saved tensors --------------------------------------------------------------

def _saved_tensor_hooks(lib):
    log = []
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    y = x * x
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: log.append("pack") or t * 1, lambda t: log.append("unpack") or t)
    errors = []
    try:
        raw.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as error:
        errors.append(str(error))
    y.sum().backward()
    try:
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as error:
        errors.append(str(error))
    z = x.exp()
    z.grad_fn._raw_saved_result.register_hooks(lambda t: log.append("pack result") or t,
                                               lambda t: log.append("unpack result") or t)
    z.sum().backward()
    return log, errors, x.grad.tolist()


def test_hooks_on_one_saved_tensor_match_torch():
    torch = _torch()
    assert _saved_tensor_hooks(mg) == _saved_tensor_hooks(torch)


def test_an_unpack_hook_must_return_a_tensor():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 5)
    with pytest.raises(TypeError, match="expected to be a Tensor but got result of type int"):
        y.sum().backward()


def test_save_on_cpu_and_increment_version():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autograd.graph.save_on_cpu():
        y = (x.exp() * x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]) * [2.0, 3.0], rtol=1e-6)
    z = x * x
    before = x._version
    mg.autograd.graph.increment_version(x)
    assert x._version == before + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# --- gradcheck ---------------------------------------------------------------------------

@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_rejects_a_function_whose_output_shape_changes_between_calls(fast_mode):
    calls = []

    def shrinking(x):
        calls.append(1)
        return x[:len(calls) % 3 + 1] * 2

    x = mg.tensor(np.arange(4.0), dtype=mg.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="outputs with the same shape when inputs are perturbed"):
        mg.autograd.gradcheck(shrinking, (x,), fast_mode=fast_mode)
    assert mg.autograd.gradcheck(lambda t: t * t, (x,), fast_mode=fast_mode)


# --- checkpoint(use_reentrant=False) -----------------------------------------------------

def _checkpoint_runs(lib, checkpoint_module, early_stop):
    log = []

    def block(x):
        log.append("start")
        y = x.sin().exp()
        log.append("end")
        return y

    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    with checkpoint_module.set_checkpoint_early_stop(early_stop):
        out = checkpoint_module.checkpoint(block, x, use_reentrant=False)
    out.sum().backward()
    return log, x.grad.tolist()


@pytest.mark.parametrize("early_stop", [True, False])
def test_non_reentrant_checkpoint_stops_recomputing_early_as_torch(early_stop):
    torch = _torch()
    import torch.utils.checkpoint as torch_checkpoint
    from minigrad.utils import checkpoint as mg_checkpoint
    ours = _checkpoint_runs(mg, mg_checkpoint, early_stop)
    assert ours[0] == _checkpoint_runs(torch, torch_checkpoint, early_stop)[0]
    assert ours[0] == (["start", "end", "start"] if early_stop else ["start", "end"] * 2)
    np.testing.assert_allclose(ours[1], _checkpoint_runs(torch, torch_checkpoint, early_stop)[1])


# --- output_nr, new_*, split_with_sizes ---------------------------------------------------

def _new_and_split(lib):
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    made = [x.new_tensor([1, 2]), x.new_zeros(2, 3), x.new_ones((2,)), x.new_full((2,), 3),
            x.new_zeros([2]), x.new_ones(2, dtype=lib.int64), x.new_empty(2, 1)]
    described = [(str(t.dtype).split(".")[-1], list(t.shape), t.requires_grad) for t in made]
    values = [t.tolist() for t in made[:-1]]
    pieces = (x * 2).split_with_sizes([1, 1])
    a, b, c = lib.arange(5.0, dtype=lib.float64, requires_grad=True).split_with_sizes([1, 3, 1])
    return (described, values, [p.output_nr for p in pieces], [a.output_nr, b.output_nr, c.output_nr],
            x.output_nr, type(pieces).__name__)


def test_new_tensors_split_with_sizes_and_output_nr_match_torch():
    torch = _torch()
    assert _new_and_split(mg) == _new_and_split(torch)


def test_split_with_sizes_refuses_sizes_that_do_not_add_up_as_torch():
    with pytest.raises(RuntimeError, match=r"split_sizes to sum exactly to 5 .* split_sizes=\[2, 2\]"):
        mg.ones(5).split_with_sizes([2, 2])


# --- inference mode: views and in-place ---------------------------------------------------

def _inference_views_and_inplace(lib):
    seen = []

    def attempt(fn):
        try:
            seen.append(fn())
        except RuntimeError as error:
            seen.append(str(error))

    normal = lib.ones(3)
    with lib.inference_mode():
        view_of_normal = normal[1:]
        inference = lib.ones(3)
        view_of_inference = inference[1:]
        seen.append((view_of_normal.is_inference(), view_of_inference.is_inference()))
        attempt(lambda: view_of_normal.mul_(2).tolist())
        attempt(lambda: inference.add_(1).tolist())
    attempt(lambda: inference.add_(1))
    attempt(lambda: view_of_inference.add_(1))
    attempt(lambda: view_of_normal.add_(1).tolist())
    attempt(lambda: inference[1:].is_inference())
    attempt(lambda: inference._version)
    attempt(lambda: inference.requires_grad_())
    leaf = lib.ones(3, requires_grad=True)
    attempt(lambda: (leaf * inference).sum().backward())
    return seen


def test_inference_mode_views_and_inplace_match_torch():
    torch = _torch()
    ours = _inference_views_and_inplace(mg)
    theirs = [s.replace("torch.", "minigrad.") if isinstance(s, str) else s
              for s in _inference_views_and_inplace(torch)]
    assert ours == theirs


# --- mark_dirty on a view input -----------------------------------------------------------

def _mark_dirty_on_views(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class AddInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx, scale, target, value):
            target.add_(value * scale)
            ctx.mark_dirty(target)
            ctx.scale = scale
            return target

        @staticmethod
        def backward(ctx, grad):
            return None, grad, grad * ctx.scale

    seen = []
    a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    b = a * 1
    view = b[1:]
    out = Double.apply(view)
    seen += [out is view, type(b.grad_fn).__name__, b.tolist()]
    (b * lib.tensor([1.0, 10.0, 100.0], dtype=lib.float64)).sum().backward()
    seen.append(a.grad.tolist())
    plain = lib.tensor([1.0, 2.0], dtype=lib.float64)
    value = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
    AddInto.apply(2.0, plain[:1], value)   # the view is the second tensor input
    seen += [plain.tolist(), plain.requires_grad]
    (plain * lib.tensor([5.0, 7.0], dtype=lib.float64)).sum().backward()
    seen.append(value.grad.tolist())
    leaf = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    try:
        Double.apply(leaf[:1])
    except RuntimeError as error:
        seen.append(str(error).split(".")[0])
    return seen


def test_mark_dirty_on_a_view_input_matches_torch():
    torch = _torch()
    assert _mark_dirty_on_views(mg) == _mark_dirty_on_views(torch)
