"""How a Tensor prints: PyTorch's layout (torch/_tensor_str.py), number for number.

Floats print with ``precision`` decimals (4) in a common width, as integers with a
trailing ``.`` when they all are, or in scientific notation when the magnitudes span more
than 1000x, exceed 1e8 or go under 1e-4; tensors over ``threshold`` elements (1000) show
``edgeitems`` (3) rows and columns at each end with ``...`` between.  The suffixes name
what the values cannot show: a dtype other than the default float, int64 or bool
(``dtype=minigrad.float64``: dtypes print with minigrad's name), ``grad_fn=<MulBackward0>``
or ``requires_grad=True``.
"""
import math
from types import SimpleNamespace

import numpy as np

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
PROFILES = {"default": DEFAULTS,
            "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
            "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80}}
PRINT_OPTS = SimpleNamespace(sci_mode=None, **DEFAULTS)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Options for printing tensors, as ``torch.set_printoptions``.

    >>> import minigrad as mg
    >>> mg.set_printoptions(precision=2)
    >>> mg.tensor([1.12345])
    tensor([1.12])
    >>> mg.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {sorted(PROFILES)}, not {profile!r}")
        vars(PRINT_OPTS).update(PROFILES[profile])
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}
    vars(PRINT_OPTS).update({k: v for k, v in given.items() if v is not None})
    PRINT_OPTS.sci_mode = sci_mode  # None (choose per tensor) unless given, as torch


class _Formatter:
    """One width and one notation for every element of a tensor (torch's _Formatter)."""

    def __init__(self, values):
        self.floating = values.dtype.kind in "fc"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.max_width = max([1] + [len(str(v)) for v in flat.tolist()])
            return
        flat = flat.astype(np.float64)
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size:
            self._measure(finite)

    def _measure(self, finite):
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = (high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
                         if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode)
        p = PRINT_OPTS.precision
        if self.sci_mode:
            texts, extra = [f"{v:.{p}e}" for v in finite.tolist()], 0
        elif self.int_mode:  # room for the trailing "." that says "floating"
            texts, extra = [f"{v:.0f}" for v in finite.tolist()], 1
        else:
            texts, extra = [f"{v:.{p}f}" for v in finite.tolist()], 0
        self.max_width = max(self.max_width, max(len(t) for t in texts) + extra)

    def format(self, value):
        p = PRINT_OPTS.precision
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{p}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{p}f}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values):
    """The elements a summarized print shows: ``edgeitems`` at each end of every dim."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * edge:
        values = np.concatenate([values[:edge], values[-edge:]])
    if values.ndim == 1:
        return values
    if not edge:
        return values[:0]
    return np.stack([_summarized(row) for row in values])


def _vector(values, indent, summarize, formatter):
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / (formatter.max_width + 2))))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = ([formatter.format(v) for v in values[:edge].tolist()] + [" ..."]
                + [formatter.format(v) for v in values[-edge:].tolist()])
    else:
        data = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values, indent, summarize, formatter):
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    edge, rows = PRINT_OPTS.edgeitems, values.shape[0]
    if summarize and rows > 2 * edge:
        parts = ([_nested(values[i], indent + 1, summarize, formatter) for i in range(edge)]
                 + ["..."]
                 + [_nested(values[i], indent + 1, summarize, formatter)
                    for i in range(rows - edge, rows)])
    else:
        parts = [_nested(values[i], indent + 1, summarize, formatter) for i in range(rows)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def values_str(values, indent):
    """The bracketed values of host array ``values``, indented past ``tensor(``."""
    if values.size == 0:
        return "[]"
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    summarize = values.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized(values) if summarize else values)
    return _nested(values, indent, summarize, formatter)


def tensor_str(values, dtype_suffix, device, grad):
    """``tensor(<values>, <suffixes>)`` for host array ``values``, the suffixes in torch's
    order: ``device`` (a list), a size where the values cannot show it, ``dtype_suffix``
    (``dtype=...`` or None), ``grad`` (a list); a suffix goes on a new line where the line
    would pass ``linewidth``."""
    prefix = "tensor("
    suffixes = list(device)
    if (values.size == 0 and values.ndim != 1) or (values.size and not PRINT_OPTS.edgeitems):
        suffixes.append(f"size={tuple(values.shape)}")
    if dtype_suffix:
        suffixes.append(dtype_suffix)
    text = prefix + values_str(values, len(prefix))
    parts, last = [text], len(text) - text.rfind("\n") + 1
    for suffix in suffixes + list(grad):
        if last + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * len(prefix) + suffix)
            last = len(prefix) + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"
