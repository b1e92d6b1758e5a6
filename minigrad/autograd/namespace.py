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
        if not self.as_tensors:
            # The plain backward's vocabulary (numpy functions, which nothing patches):
            # resolve every name at once and drop this __getattr__, whose mere presence
            # makes each `F.name` read several times slower (no LOAD_ATTR specialization).
            self._resolve_all()
            return getattr(self, name)
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


    def _resolve_all(self):
        from minigrad.autograd import formulas
        module = importlib.import_module(self._module_name)
        found = {**_public(formulas), **_public(module)}  # the generated module's first
        for name, value in found.items():
            self.__dict__.setdefault(name, value)
        self.__class__ = _ResolvedNamespace


class _ResolvedNamespace:
    """A FormulaNamespace whose names are all resolved: plain attribute reads."""

    def __repr__(self):
        return f"<formula namespace {self._module_name} (resolved)>"


def _public(module):
    return {k: v for k, v in vars(module).items() if not k.startswith("__")}


ARRAYS = FormulaNamespace("minigrad._generated.array_ops", as_tensors=False)
TENSORS = FormulaNamespace("minigrad._generated.functions", as_tensors=True)
