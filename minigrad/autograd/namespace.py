"""The two vocabularies a formula runs in.

A generated backward calls ``F.name(...)`` for every function in its formula.
In a plain backward ``F`` is ``ARRAYS`` (numpy implementations, fast, no graph);
under ``create_graph=True`` it is ``TENSORS`` (the differentiable ops, so the
backward itself is recorded and can be differentiated again).
"""
import importlib


class FormulaNamespace:
    """Looks names up in a generated module, then in the formula helpers.

    Resolution is lazy (the generated modules import each other) and cached as
    instance attributes, so after the first call a lookup is one dict hit.
    """

    def __init__(self, module_name, as_tensors):
        self._module_name = module_name
        self.as_tensors = as_tensors

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        module = importlib.import_module(self._module_name)
        value = getattr(module, name, None)
        if value is None:
            from minigrad.autograd import formulas
            value = getattr(formulas, name, None)
        if value is None:
            raise AttributeError(f"formula function '{name}' exists neither in "
                                 f"{self._module_name} nor in minigrad.autograd.formulas")
        setattr(self, name, value)
        return value


ARRAYS = FormulaNamespace("minigrad._generated.array_ops", as_tensors=False)
TENSORS = FormulaNamespace("minigrad._generated.functions", as_tensors=True)
