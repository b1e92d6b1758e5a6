"""codegen/ has no module-level import cycle (load and analyze both use codegen.errors)."""
import pathlib

from tests.conftest import ROOT
from tests.unit.test_import_graph import find_cycle, import_graph, module_name


def codegen_modules():
    return {module_name(p): p for p in sorted(pathlib.Path(ROOT, "codegen").rglob("*.py"))}


def test_no_module_level_import_cycle_in_codegen():
    graph = import_graph(codegen_modules())
    assert graph["codegen.load"] >= {"codegen.analyze", "codegen.errors"}  # the graph is read
    cycle = find_cycle(graph)
    assert cycle is None, "module-level import cycle: " + " -> ".join(cycle)
