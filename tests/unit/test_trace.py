"""minigrad.autograd.trace(): the recorded ops and backward steps, notebook style."""
import io

import minigrad as mg


def _traced(fn):
    out = io.StringIO()
    with mg.autograd.trace(file=out):
        fn()
    return out.getvalue().splitlines()


def test_notebook_simple_forward_and_backward():
    # 003_* notebook: simple(a, b) = (a + b) * b prints v0 = a + b, v1 = v0 * b, then dL lines
    a = mg.tensor([0.0171, 0.1633, 0.5833, 0.3794], requires_grad=True)
    b = mg.tensor([0.3774, 0.6308, 0.5239, 0.1387], requires_grad=True)

    def run():
        t = a + b
        loss = (t * b).sum()
        loss.backward()

    lines = _traced(run)
    assert lines[:3] == ["v0 = a + b", "v1 = v0 * b", "v2 = v1.sum()"]
    assert lines[3] == "dv2 ------------------------"
    steps = [line.split("#")[0].strip() for line in lines[4:-1]]
    assert steps == [
        "dv2_dv1 = expand(dv2_dv2, v1.shape)",
        "dv2_dv0 = dv2_dv1 * b",
        "dv2_db = dv2_dv1 * v0",
        "dv2_da = dv2_dv0",
        "dv2_db += dv2_dv0",
    ]
    assert lines[4].endswith("# SumBackward0")
    assert lines[-1] == "------------------------"
    # the numbers are untouched by tracing
    assert a.grad.tolist() == b.tolist()


def test_method_calls_and_unary_ops_are_traced():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    lines = _traced(lambda: mg.exp(x).sum(0))
    assert lines == ["v0 = x.exp()", "v1 = v0.sum(dim=0)"]


def test_ops_without_grad_are_not_printed():
    x = mg.tensor([1.0, 2.0])
    assert _traced(lambda: x * 2.0 + 1.0) == []


def test_trace_restores_the_ops():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    add = mg.add
    method = mg.Tensor.exp
    with mg.autograd.trace(file=io.StringIO()):
        assert mg.add is not add
    assert mg.add is add and mg.Tensor.exp is method
    assert (x + x).grad_fn.name() == "AddBackward0"
