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
