"""SpecError and the "did you mean" hint every YAML error may add.

Its own module so that load.py and analyze.py both raise it without importing each other.
"""
import difflib

# Names people reach for that difflib cannot guess: the spelling used in scope.
ALIASES = {"numpy": "np", "torch": "np", "scipy": "np", "self_": "self", "output": "result",
           "out": "result", "gradient": "grad", "grad_output": "grad"}


class SpecError(Exception):
    """A problem in derivatives.yaml, with its file:line, the entry and the fix."""


def did_you_mean(name, candidates):
    """`` Did you mean 'x' or 'y'?`` for the close matches of ``name`` ("" if none)."""
    candidates = sorted(set(candidates))
    matches = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    alias = ALIASES.get(name)
    if alias in candidates and alias not in matches:
        matches.insert(0, alias)
    if not matches:
        return ""
    return " Did you mean " + " or ".join(f"'{m}'" for m in matches) + "?"
