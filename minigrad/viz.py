"""Draw a tensor's graph: Graphviz DOT text (no dependency) and SVG/PNG/PDF rendering.

>>> x = minigrad.tensor(3.0, requires_grad=True)
>>> y = 2 * x ** 2
>>> print(minigrad.viz.to_dot(y, params={"x": x}))       # paste into any Graphviz viewer
>>> minigrad.viz.render(y, "graph.svg", params={"x": x})  # needs the Graphviz `dot` program

Colours:
- op nodes (``MulBackward0``, ...): light grey boxes;
- leaves that require grad: light blue, with their name (from ``params`` or the
  caller's variables) and shape; the output tensor: light green;
- saved tensors (``show_saved=True``): orange, joined to the node that saved them;
- clogs: a red octagon where a tensor of this graph was converted to a plain number
  (``float(x)``, ``math.sqrt(x)``, ...), joined by a dotted red edge: gradients do
  not flow back along it;
- stale nodes (a backward already walked them: a gradient leak): purple;
  nodes whose saved values were freed by backward are drawn dashed.
"""
import os
import shutil
import subprocess
import sys

from minigrad.autograd import clogs
from minigrad.autograd.graph import nodes_of
from minigrad.autograd.node import AccumulateGrad

COLOURS = {
    "op": "lightgrey", "leaf": "lightblue", "output": "darkolivegreen1", "saved": "orange",
    "clog": "red", "stale": "mediumpurple1",
}


def to_dot(t, params=None, show_saved=False, direction="backward", name=None):
    """Graphviz DOT text for the graph behind ``t`` (a Tensor, or a list/tuple of them).

    params: ``{name: tensor}`` to label leaves (default: names found in the caller's
    variables).  show_saved: also draw the tensors each node saved for backward.
    direction: ``"backward"`` draws edges the way gradients flow (output -> inputs),
    ``"forward"`` the way values flow (inputs -> output).
    """
    if direction not in ("backward", "forward"):
        raise ValueError(f"direction must be 'backward' or 'forward', got {direction!r}")
    outputs = list(t) if isinstance(t, (list, tuple)) else [t]
    names = _leaf_names(params, outputs)
    lines = ["digraph minigrad {", '  graph [rankdir=TB];',
             '  node [shape=box, style=filled, fontname="Helvetica", fontsize=11];']
    edges = []

    def edge(src, dst, **attrs):   # src feeds dst in forward order
        a, b = (dst, src) if direction == "backward" else (src, dst)
        extra = "".join(f', {k}="{v}"' for k, v in attrs.items())
        edges.append(f'  "{a}" -> "{b}" [{extra[2:]}];' if attrs else f'  "{a}" -> "{b}";')

    all_nodes, seen = [], set()
    for out in outputs:
        for node in nodes_of(out):
            if node not in seen:
                seen.add(node)
                all_nodes.append(node)
    for node in all_nodes:
        lines.append(f'  "{_id(node)}" [{_node_attrs(node, names)}];')
        for nxt, _ in node.next_functions:
            if nxt is not None:
                edge(_id(nxt), _id(node))
        if show_saved and not isinstance(node, AccumulateGrad):
            for label, key in _saved(node):
                lines.append(f'  "{key}" [label="{label}", fillcolor="{COLOURS["saved"]}"];')
                edge(key, _id(node), style="dashed", arrowhead="none")
    for i, out in enumerate(outputs):
        key = f"output{i}"
        label = (name if name and len(outputs) == 1 else names.get(id(out)) or "output")
        lines.append(f'  "{key}" [label="{_escape(label)}\\n{_shape(out)}", '
                     f'fillcolor="{COLOURS["output"]}"];')
        node = out.grad_fn
        if node is None and out.requires_grad:
            node = _leaf_node(out, all_nodes)
        if node is not None:
            edge(_id(node), key)
    for i, clog in enumerate(_clogs_in(all_nodes, outputs)):
        key = f"clog{i}"
        where = f"{os.path.basename(clog.site[0])}:{clog.site[1]}"
        lines.append(f'  "{key}" [label="clog: {clog.kind}() at {_escape(where)}\\n'
                     f'(gradient stops here)", shape=octagon, fillcolor="{COLOURS["clog"]}", '
                     f'fontcolor="white"];')
        source = clog.node or _leaf_node(clog.tensor, all_nodes)
        if source is not None:
            edge(_id(source), key, style="dotted", color=COLOURS["clog"], penwidth="2")
    return "\n".join(lines + edges + ["}"]) + "\n"


def render(t, path, params=None, show_saved=False, direction="backward", format=None):
    """Draw the graph behind ``t`` into ``path`` (format from its extension: svg, png, pdf).

    Needs the Graphviz ``dot`` program; raises RuntimeError saying how to get it otherwise.
    Returns ``path``.
    """
    dot = to_dot(t, params=params, show_saved=show_saved, direction=direction)
    fmt = format or os.path.splitext(path)[1].lstrip(".").lower() or "svg"
    program = shutil.which("dot")
    if program is None:
        raise RuntimeError(
            "minigrad.viz.render needs the Graphviz `dot` program, which is not installed "
            "(apt-get install graphviz, brew install graphviz, or conda install graphviz). "
            "minigrad.viz.to_dot(t) needs nothing: write its text to a .dot file and render "
            "it with any Graphviz viewer.")
    done = subprocess.run([program, f"-T{fmt}", "-o", path], input=dot.encode(),
                          capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz `dot -T{fmt}` failed: {done.stderr.decode().strip()}")
    return path


# ------------------------------------------------------------------ helpers
def _id(node):
    return f"n{id(node):x}"


def _escape(text):
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def _shape(tensor):
    return "(" + ", ".join(str(s) for s in tensor.shape) + ")"


def _node_attrs(node, names):
    if isinstance(node, AccumulateGrad):
        leaf = node.variable
        name = names.get(id(leaf))
        label = f"{_escape(name)}\\n{_shape(leaf)}" if name else _shape(leaf)
        return f'label="{label}", fillcolor="{COLOURS["leaf"]}"'
    label = node.name()
    colour = COLOURS["op"]
    style = "filled"
    if node._consumed:
        colour = COLOURS["stale"]
        label += "\\n(stale: walked by an earlier backward)"
    if node._released:
        style = "filled,dashed"
    return f'label="{label}", fillcolor="{colour}", style="{style}"'


def _saved(node):
    from minigrad.autograd.saved import SavedTensor, FREED
    for slot in node._saved_slots:
        value = getattr(node, slot, None)
        short = slot[len("_raw_saved_"):] if slot.startswith("_raw_saved_") else slot
        key = f"{_id(node)}_{short}"
        if value is FREED:
            yield f"{short}\\n(freed)", key
        elif type(value) is SavedTensor:
            data = value.tensor._data if value.tensor is not None else value._data
            yield f"{short}\\n(" + ", ".join(str(s) for s in data.shape) + ")", key
        elif isinstance(value, list):
            yield f"{short}\\n[{len(value)} tensors]", key


def _leaf_names(params, outputs):
    names = {}
    if params is not None:
        items = params.items() if hasattr(params, "items") else params
        for name, tensor in items:
            names[id(tensor)] = name
        return names
    from minigrad._tensor import Tensor
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is not None:
        for name, value in list(frame.f_locals.items()):
            if isinstance(value, Tensor) and not name.startswith("_"):
                names.setdefault(id(value), name)
    return names


def _leaf_node(tensor, nodes):
    if tensor is None:
        return None
    for node in nodes:
        if isinstance(node, AccumulateGrad) and node.variable is tensor:
            return node
    return None


def _clogs_in(nodes, outputs):
    members = set(nodes)
    leaves = {id(n.variable) for n in nodes if isinstance(n, AccumulateGrad)}
    found = []
    for clog in clogs.recent_clogs():
        tensor = clog.tensor
        if clog.node is not None and clog.node in members:
            found.append(clog)
        elif tensor is not None and tensor.grad_fn is None and id(tensor) in leaves:
            found.append(clog)
    seen, unique = set(), []
    for clog in found:   # one octagon per converted value
        key = (id(clog.node) if clog.node is not None else id(clog.tensor), clog.site)
        if key not in seen:
            seen.add(key)
            unique.append(clog)
    return unique
