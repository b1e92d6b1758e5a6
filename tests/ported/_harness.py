"""Run one PyTorch program twice: as written (real torch) and with only its imports changed.

A ported program is a source string written exactly as a PyTorch user writes it, starting
with `import torch` (or `import torch.nn as nn`, `from torch import optim`, ...). `run_both`
executes it once unchanged and once with every import line's `torch` module path replaced by
`minigrad` (keeping the name the program uses: `import torch` becomes
`import minigrad as torch`). Nothing else in the text changes.

Random streams differ between the libraries, so the programs draw their data and initial
weights from numpy's seeded generator and hand them over with `torch.from_numpy`/`copy_`.
Each program leaves what it wants compared in a dict named `results`; `assert_same`
compares the two runs' dicts value by value (tensors, lists of numbers, state dicts).
"""
import re

import numpy as np

_IMPORT = re.compile(r"^(\s*)(import|from)\s+torch\b((?:\.\w+)*)(.*)$")


def port(source):
    """The program with only its torch imports pointed at minigrad."""
    lines = []
    for line in source.splitlines():
        match = _IMPORT.match(line)
        if match is None:
            lines.append(line)
            continue
        indent, keyword, submodule, rest = match.groups()
        if keyword == "import" and not submodule and " as " not in rest:
            # `import torch` binds the name `torch`: keep that name.
            lines.append(f"{indent}import minigrad as torch{rest}")
        else:
            lines.append(f"{indent}{keyword} minigrad{submodule}{rest}")
    return "\n".join(lines) + "\n"


def run(source, name="<program>"):
    """Execute a program's source text; returns its `results` dict."""
    namespace = {"__name__": "__ported__"}
    exec(compile(source, name, "exec"), namespace)
    return namespace["results"]


def run_both(source, name="<program>"):
    """(torch results, minigrad results) of the same program text."""
    import minigrad
    import torch

    saved = torch.get_default_dtype(), minigrad.get_default_dtype(), torch.get_num_threads()
    torch.set_num_threads(1)  # small programs: threads only contend on a shared machine
    try:
        reference = run(source, name + "[torch]")
        ported = run(port(source), name + "[minigrad]")
    finally:
        torch.set_default_dtype(saved[0])
        minigrad.set_default_dtype(saved[1])
        torch.set_num_threads(saved[2])
        # A program's set_default_device stays in force after it (torch keeps a function
        # mode entered, which also turns off fast paths such as nn.TransformerEncoder's
        # nested tensors): the next program starts without one, as a fresh process does.
        torch.set_default_device(None)
        minigrad.set_default_device(None)
    return reference, ported


def to_numpy(value):
    """A tensor (either library), number or nested list as a numpy array."""
    if hasattr(value, "detach"):
        value = value.detach()
        return np.asarray(value.cpu().numpy() if hasattr(value, "cpu") else value.numpy())
    return np.asarray(value)


def assert_same(reference, ported, rtol, atol=0.0):
    """Every entry of the torch run's results matches the ported run's (values and dtypes)."""
    assert set(reference) == set(ported), (sorted(reference), sorted(ported))
    for key in reference:
        expected, actual = reference[key], ported[key]
        if isinstance(expected, dict):
            assert list(expected) == list(actual), f"{key}: keys {list(expected)} vs {list(actual)}"
            for sub in expected:
                _compare(f"{key}[{sub!r}]", expected[sub], actual[sub], rtol, atol)
        else:
            _compare(key, expected, actual, rtol, atol)


def _compare(label, expected, actual, rtol, atol):
    if isinstance(expected, (list, tuple)) and any(hasattr(e, "dtype") for e in expected):
        assert len(expected) == len(actual), f"{label}: {len(expected)} vs {len(actual)} items"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _compare(f"{label}[{i}]", e, a, rtol, atol)
        return
    if hasattr(expected, "dtype") and hasattr(actual, "dtype"):
        assert str(expected.dtype).split(".")[-1] == str(actual.dtype).split(".")[-1], (
            f"{label}: dtype {expected.dtype} vs {actual.dtype}")
    e, a = to_numpy(expected), to_numpy(actual)
    assert e.shape == a.shape, f"{label}: shape {e.shape} vs {a.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=label)
