"""Formula helpers for the conv ops (see formulas/__init__.py for the rules)."""
from minigrad.autograd.formulas.core import ops_for  # noqa: F401
