"""minigrad.viz: DOT text without dependencies; rendering where Graphviz is installed."""
import math
import shutil
import warnings

import pytest

import minigrad as mg
from minigrad.viz import COLOURS, render, to_dot


def _node_lines(dot):
    return [line for line in dot.splitlines() if "[label=" in line]


def test_to_dot_names_op_nodes_and_leaves():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    y = (x * 2.0) @ w
    dot = to_dot(y, params={"x": x, "w": w})
    assert dot.startswith("digraph")
    assert dot.rstrip().endswith("}")
    assert "MulBackward0" in dot and "MatmulBackward0" in dot
    assert 'label="x\\n(3)"' in dot
    assert 'label="w\\n(3, 1)"' in dot
    assert COLOURS["leaf"] in dot and COLOURS["output"] in dot


def test_to_dot_finds_leaf_names_in_the_callers_variables():
    weight = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (weight * weight).sum()
    dot = to_dot(loss)
    assert "weight" in dot and "loss" in dot


def test_direction_flips_edges():
    x = mg.tensor(3.0, requires_grad=True)
    y = 2 * x ** 2
    backward = to_dot(y, params={"x": x})
    forward = to_dot(y, params={"x": x}, direction="forward")
    edge = [line for line in backward.splitlines() if "->" in line][0]
    a, b = edge.strip().rstrip(";").split(" -> ")
    assert f"{b} -> {a}" in forward
    with pytest.raises(ValueError, match="direction"):
        to_dot(y, direction="sideways")


def test_saved_tensors_on_request():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.exp(x) * x
    assert COLOURS["saved"] not in to_dot(y)
    dot = to_dot(y, show_saved=True)
    assert COLOURS["saved"] in dot
    assert "self\\n(2)" in dot and "other\\n(2)" in dot


def test_clog_is_drawn_in_its_colour():
    x = mg.tensor(4.0, requires_grad=True)
    with pytest.warns(mg.autograd.GradientClogWarning):
        y = math.sqrt(x) + x
    dot = to_dot(y, params={"x": x})
    assert "clog: float()" in dot
    assert f'fillcolor="{COLOURS["clog"]}"' in dot
    assert "style=\"dotted\"" in dot


def test_graph_without_clog_has_no_clog_node():
    x = mg.tensor(4.0, requires_grad=True)
    assert "clog" not in to_dot(mg.sqrt(x) + x)


def test_stale_leaked_nodes_are_drawn_in_their_colour():
    velocity = mg.tensor(0.5, requires_grad=True)
    position = mg.tensor(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mg.autograd.GradientLeakWarning)
        for _ in range(3):
            position = position + velocity
            loss = position * 1.0
            loss.backward()
    position = position + velocity
    dot = to_dot(position * 1.0)
    stale = [line for line in _node_lines(dot) if COLOURS["stale"] in line]
    assert len(stale) == 3 and all("AddBackward0" in line for line in stale)


def test_multiple_outputs_and_leaf_output():
    a = mg.tensor([1.0], requires_grad=True)
    dot = to_dot([a * 2.0, a * 3.0])
    assert "output0" in dot and "output1" in dot
    assert "output0" in to_dot(a)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")
def test_render_writes_svg(tmp_path):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    path = render((x * x).sum(), str(tmp_path / "graph.svg"))
    text = open(path).read()
    assert "<svg" in text and "MulBackward0" in text


def test_render_without_graphviz_raises_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="apt-get install graphviz.*to_dot"):
        render((x * x).sum(), str(tmp_path / "graph.svg"))
