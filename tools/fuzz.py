"""Differential fuzzer: random straight-line programs under minigrad and PyTorch.

Every program is Python source over a library namespace ``L`` (``minigrad`` or
``torch``), one statement a line, over 1-3 float64 inputs ``v0 .. v2`` with
broadcasting shapes.  The generator draws each line from a seeded
``random.Random`` and runs it under torch as it goes, so it knows every
variable's shape; a line that torch refuses is sometimes kept (and ends the
program) to check that minigrad refuses it too.

Each program is then run under both libraries and compared:

- which line raises (if any) in the forward, the gradient and the
  Hessian-vector product stage;
- every variable's shape, dtype, requires_grad flag and values, after the whole
  program ran (so lost in-place writes show);
- the gradient of ``loss = sum_k (v_k * w_k).sum()`` over every float
  variable that requires grad, and a Hessian-vector product ``d(grad . u)/dx``;
- numeric warnings minigrad lets through where torch stays silent.

Values compare with rtol 1e-6, atol 1e-8, NaN equal to NaN.  A difference is a
*finding* unless docs/divergences.md lists it as deliberate (``DIVERGENCES``).

    .venv/bin/python tools/fuzz.py --programs 20000          # the full run
    .venv/bin/python tools/fuzz.py --seed 1234 --programs 1 -v  # one program, shown

The last line printed is ``findings: N of M programs``.  Inputs are always
created as float64, so the result does not depend on the default dtype.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import warnings

import numpy as np

RTOL, ATOL = 1e-6, 1e-8
MAX_LINES = 8


# ------------------------------------------------------------------ generation
class Gen:
    """The state of one program being generated: its lines and torch's values."""

    def __init__(self, rng, torch):
        self.rng, self.torch = rng, torch
        self.lines, self.env, self.n_inputs = [], {}, 0
        self.ended_by_error = False

    # variables ------------------------------------------------------------
    def floats(self, ndim_min=0):
        return [k for k, v in self.env.items()
                if isinstance(v, self.torch.Tensor) and v.is_floating_point() and v.dim() >= ndim_min]

    def pick(self, ndim_min=0):
        names = self.floats(ndim_min)
        return self.rng.choice(names) if names else None

    def nonleaf(self, ndim_min=0):
        names = [k for k in self.floats(ndim_min) if int(k[1:]) >= self.n_inputs]
        # sometimes an input, to check that in-place on a leaf is refused alike
        if not names or self.rng.random() < 0.05:
            names = self.floats(ndim_min)
        return self.rng.choice(names) if names else None

    def shape(self, name):
        return tuple(self.env[name].shape)

    def partner(self, a):
        """A variable whose shape broadcasts with ``a``'s (often ``a``'s own shape)."""
        sa = self.shape(a)
        good = [k for k in self.floats() if _broadcasts(sa, self.shape(k))]
        return self.rng.choice(good) if good and self.rng.random() < 0.9 else self.pick()

    def dim(self, name, allow_none=False):
        n = self.env[name].dim()
        if allow_none and self.rng.random() < 0.2:
            return None
        if n == 0:
            return self.rng.choice([0, -1]) if self.rng.random() < 0.9 else 1
        return self.rng.randrange(-n, n)

    def new_name(self):
        return f"v{len(self.env)}"

    # running ---------------------------------------------------------------
    def try_line(self, line):
        """Run ``line`` under torch; keep it when it runs (or, rarely, when it raises)."""
        scope = dict(self.env, L=self.torch, _rand=_rand)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(line, scope)
        except Exception:
            if self.rng.random() < 0.15:
                self.lines.append(line)
                self.ended_by_error = True
                return True
            return False
        self.lines.append(line)
        for k, v in scope.items():
            if k.startswith("v") and k[1:].isdigit():
                self.env[k] = v
        return True


def _broadcasts(a, b):
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


def gen_inputs(g):
    rng = g.rng
    ndim = rng.choice([0, 1, 1, 2, 2, 2, 3, 3])
    full = [rng.randint(1, 4) for _ in range(ndim)]
    n = rng.choice([1, 1, 2, 2, 3])
    g.n_inputs = n
    style = rng.random()
    for i in range(n):
        if i == 0:
            shape = list(full)
        else:
            keep = rng.randint(0, ndim)
            shape = [s if rng.random() < 0.7 else 1 for s in full[ndim - keep:]]
        seed = rng.randrange(2**31)
        requires = "True" if i == 0 or rng.random() < 0.85 else "False"
        # style: plain normals, or rounded values (ties at max/min/relu kinks), or with zeros
        if style < 0.7:
            data = f"_rand({seed}, {tuple(shape)})"
        elif style < 0.85:
            data = f"_rand({seed}, {tuple(shape)}).round(0)"
        else:
            data = f"_rand({seed}, {tuple(shape)}) * (_rand({seed + 1}, {tuple(shape)}) > 0)"
        g.try_line(f"v{i} = L.tensor({data}, dtype=L.float64, requires_grad={requires})")


def _rand(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


UNARY = ["exp", "tanh", "sigmoid", "sin", "cos", "neg", "abs", "relu", "sqrt", "log", "square",
         "reciprocal", "sign", "floor", "log1p", "expm1", "rsqrt", "atan", "sinh", "erf"]
SCALAR = ["{a} * 1.5", "2.0 - {a}", "{a} ** 2", "{a} / 3.0", "{a} ** 3", "{a}.pow(0.5)",
          "{a} + 1", "1.0 / ({a} + 2.5)", "-{a}", "{a} ** -1", "{a} ** 0"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "L.maximum({a}, {b})",
          "L.minimum({a}, {b})", "L.atan2({a}, {b})", "{a} ** {b}", "L.hypot({a}, {b})",
          "{a}.lerp({b}, 0.3)", "L.addcmul({a}, {a}, {b}, value=0.5)", "L.fmax({a}, {b})",
          "{a}.copysign({b})"]
REDUCE = ["sum", "mean", "prod", "amax", "amin", "logsumexp", "var", "std", "norm", "max", "min",
          "nansum", "median", "cumsum", "cumprod", "argmax", "all", "any"]
INPLACE_UNARY = ["exp_", "sigmoid_", "tanh_", "relu_", "neg_", "abs_", "zero_", "sqrt_", "sin_"]


def g_unary(g, out):
    a = g.pick()
    op = g.rng.choice(UNARY)
    form = g.rng.choice([f"{a}.{op}()", f"L.{op}({a})"])
    return f"{out} = {form}"


def g_scalar(g, out):
    return f"{out} = " + g.rng.choice(SCALAR).format(a=g.pick())


def g_binary(g, out):
    a = g.pick()
    b = g.partner(a)
    if g.rng.random() < 0.5:
        a, b = b, a
    return f"{out} = " + g.rng.choice(BINARY).format(a=a, b=b)


def g_reduce(g, out):
    a, rng = g.pick(), g.rng
    op = rng.choice(REDUCE)
    keep = rng.choice(["False", "True"])
    if op in ("cumsum", "cumprod"):
        return f"{out} = {a}.{op}({g.dim(a)})"
    if op in ("max", "min", "median") and rng.random() < 0.6:
        return f"{out} = {a}.{op}(dim={g.dim(a)}, keepdim={keep})[{rng.choice([0, 0, 1])}]"
    if op in ("max", "min", "median", "all", "any"):
        return f"{out} = {a}.{op}()"
    if op == "argmax":
        return f"{out} = {a}.argmax(dim={g.dim(a)}, keepdim={keep})"
    d = g.dim(a, allow_none=op in ("sum", "mean", "amax", "amin", "norm", "nansum", "var", "std", "prod"))
    if d is None:
        return f"{out} = {a}.{op}()"
    if op in ("sum", "mean", "amax", "amin", "nansum") and g.env[a].dim() >= 2 and rng.random() < 0.3:
        d = (0, -1)
    extra = ""
    if op in ("var", "std"):
        extra = rng.choice(["", ", unbiased=False", ", correction=0", ", correction=2"])
    if op == "prod" and isinstance(d, tuple):
        d = d[0]
    return f"{out} = {a}.{op}(dim={d}, keepdim={keep}{extra})"


def g_view(g, out):
    a, rng = g.pick(), g.rng
    shape, n = g.shape(a), g.env[a].dim()
    choices = [
        lambda: f"{a}.t()",
        lambda: f"{a}.transpose({g.dim(a)}, {g.dim(a)})",
        lambda: f"{a}.permute({tuple(rng.sample(range(n), n))})",
        lambda: f"{a}.reshape({_reshape_target(rng, shape)})",
        lambda: f"{a}.view({_reshape_target(rng, shape)})",
        lambda: f"{a}.unsqueeze({rng.randrange(-n - 1, n + 1)})",
        lambda: f"{a}.squeeze({g.dim(a)})" if rng.random() < 0.7 else f"{a}.squeeze()",
        lambda: f"{a}.narrow({g.dim(a)}, {rng.randint(0, 1)}, {rng.randint(0, 2)})",
        lambda: f"{a}.select({g.dim(a)}, {rng.randint(-1, 2)})",
        lambda: f"{a}[{_basic_index(rng, shape)}]",
        lambda: f"{a}.expand({_expand_target(rng, shape)})",
        lambda: f"{a}.flatten()",
        lambda: f"{a}.diagonal()",
        lambda: f"{a}.unbind({g.dim(a)})[{rng.randint(-1, 1)}]",
        lambda: f"{a}.split({rng.randint(1, 2)}, {g.dim(a)})[{rng.randint(0, 1)}]",
        lambda: f"{a}.chunk({rng.randint(1, 3)}, {g.dim(a)})[0]",
        lambda: f"{a}.movedim({g.dim(a)}, {g.dim(a)})",
        lambda: f"{a}.mT",
        lambda: f"{a}.detach()",
        lambda: f"{a}.clone()",
        lambda: f"{a}.contiguous()",
        lambda: f"{a}.flip({g.dim(a)})",
        lambda: f"{a}.repeat({tuple(rng.randint(1, 2) for _ in range(max(n, 1)))})",
        lambda: f"{a}.roll({rng.randint(-2, 2)}, {g.dim(a)})",
    ]
    return f"{out} = " + rng.choice(choices)()


def _reshape_target(rng, shape):
    size = int(np.prod(shape))
    options = [(-1,), (size,), (1, size), (size, 1), tuple(reversed(shape)) or (1,), ()]
    for k in (2, 3):
        if size % k == 0 and size > k:
            options.append((k, -1))
    return rng.choice(options)


def _basic_index(rng, shape):
    parts = []
    for s in shape[: rng.randint(1, max(len(shape), 1))]:
        kind = rng.random()
        if kind < 0.3:
            parts.append(str(rng.randint(-s, s - 1)))
        elif kind < 0.7:
            parts.append(f"{rng.randint(0, 1)}:{rng.choice(['', str(s)])}:{rng.choice([1, 2])}")
        elif kind < 0.8:
            parts.append("None")
        elif kind < 0.9:
            parts.append("...")
        else:
            parts.append(":")
    if not shape:
        parts = [rng.choice(["None", "...", "()"])]
    return ", ".join(parts) if len(parts) > 1 or parts[0] != "()" else "()"


def _expand_target(rng, shape):
    target = [s if s != 1 or rng.random() < 0.3 else rng.randint(2, 3) for s in shape]
    if rng.random() < 0.3:
        target = [2] + target
    if rng.random() < 0.2 and target:
        target[-1] = -1
    return tuple(target)


def g_index(g, out):
    a, rng = g.pick(ndim_min=1), g.rng
    if a is None:
        return None
    shape = g.shape(a)
    idx = [rng.randint(-shape[0], shape[0] - 1) for _ in range(rng.randint(1, 4))]
    choices = [
        lambda: f"{a}[L.tensor({idx})]",
        lambda: f"{a}[{idx}]",
        lambda: f"{a}[{a} > 0]",
        lambda: f"{a}[{a} > 0].sum()",
        lambda: f"{a}.index_select(0, L.tensor({[i % shape[0] for i in idx]}))",
        lambda: f"{a}.masked_fill({a} < 0, 0.5)",
        lambda: f"{a}.masked_select({a} > 0.3)",
        lambda: f"{a}.gather({g.dim(a)}, L.zeros({shape}, dtype=L.int64))",
    ]
    if len(shape) >= 2:
        j = [rng.randint(0, shape[1] - 1) for _ in range(rng.randint(1, 3))]
        choices += [lambda: f"{a}[:, {j}]", lambda: f"{a}[..., L.tensor({j})]",
                    lambda: f"{a}[{a}.sum(-1) > 0]",
                    lambda: f"{a}[:, {j}].reshape(-1)",
                    lambda: f"{a}[L.tensor({idx}), {rng.randint(0, shape[1] - 1)}]"]
    return f"{out} = " + rng.choice(choices)()


def g_combine(g, out):
    a, rng = g.pick(), g.rng
    same = [k for k in g.floats() if g.shape(k) == g.shape(a)]
    b = rng.choice(same)
    n = g.env[a].dim()
    if rng.random() < 0.5:
        d = rng.randrange(-n - 1, n + 1)
        return f"{out} = L.stack([{a}, {b}], dim={d})"
    if n == 0:
        return f"{out} = L.cat([{a}, {b}])"
    d = g.dim(a)
    near = [k for k in g.floats() if g.env[k].dim() == n and all(
        x == y for i, (x, y) in enumerate(zip(g.shape(k), g.shape(a))) if i != d % n)]
    return f"{out} = L.cat([{a}, {rng.choice(near)}], dim={d})"


def g_matmul(g, out):
    a, rng = g.pick(ndim_min=1), g.rng
    if a is None:
        return None
    sa = g.shape(a)
    fits = [k for k in g.floats(1) if g.shape(k)[-2 if g.env[k].dim() >= 2 else 0] == sa[-1]]
    if fits and rng.random() < 0.8:
        return f"{out} = {a} @ {rng.choice(fits)}"
    if len(sa) >= 2:
        return f"{out} = {a} @ {a}.mT"
    return f"{out} = {a} @ {g.pick(ndim_min=1)}"


def g_softmax(g, out):
    a = g.pick()
    fn = g.rng.choice(["L.softmax", "L.log_softmax"])
    return f"{out} = {fn}({a}, dim={g.dim(a)})"


def g_where(g, out):
    a = g.pick()
    b = g.partner(a)
    c = g.rng.choice([f"{a} > 0", f"{b} > {a}", f"{a} != {a}"])
    other = g.rng.choice([b, "0.0", "1.5"])
    return f"{out} = L.where({c}, {a}, {other})"


def g_clamp(g, out):
    a, rng = g.pick(), g.rng
    b = g.partner(a)
    forms = [f"{a}.clamp(min=-0.5, max=0.5)", f"{a}.clamp(min=0.0)", f"{a}.clamp(max=0.2)",
             f"L.clamp({a}, min={b})", f"L.clamp({a}, max={b})",
             f"L.clamp({a}, min={b}, max={b} + 1)", f"{a}.clamp(min=0.5, max=-0.5)"]
    return f"{out} = " + rng.choice(forms)


def g_inplace(g, out):
    t, rng = g.nonleaf(), g.rng
    if t is None:
        return None
    target = t
    if rng.random() < 0.4 and g.env[t].dim() > 0:
        target = f"{t}[{_basic_index(rng, g.shape(t))}]"
    b = g.partner(t)
    forms = [f"{target}.{rng.choice(INPLACE_UNARY)}()", f"{target}.mul_({b})",
             f"{target}.add_({b}, alpha=2)", f"{target}.sub_({b})", f"{target}.div_(2.0)",
             f"{target}.clamp_(min=-0.3)", f"{target}.copy_({b})", f"{target}.fill_(0.25)",
             f"{target} *= 1.5", f"{target}.mul_({b}.sum())"]
    line = rng.choice(forms)
    if line.startswith(target + " *="):
        line = f"{target}.mul_(1.5)" if target != t else line
    if rng.random() < 0.05:
        line = f"with L.no_grad(): {line}"
    return line


def g_setitem(g, out):
    t, rng = g.nonleaf(ndim_min=1), g.rng
    if t is None:
        return None
    shape = g.shape(t)
    keys = [_basic_index(rng, shape), f"{t} > 0",
            str([rng.randint(0, shape[0] - 1) for _ in range(rng.randint(1, 3))])]
    key = rng.choice(keys)
    try:
        target_shape = tuple(eval(f"{t}[{key}]", dict(g.env, L=g.torch)).shape)
    except Exception:
        target_shape = ()
    fits = [k for k in g.floats() if _broadcasts(target_shape, g.shape(k))
            and len(g.shape(k)) <= len(target_shape)]
    value = rng.choice(fits + ["0.5", "-1.0"]) if fits else rng.choice(["0.5", "-1.0"])
    if rng.random() < 0.2:
        value = g.pick() + ".sum()"
    return f"{t}[{key}] = {value}"


def g_view_var(g, out):
    """A named view of a non-leaf, so later in-place ops reach base and view alike."""
    t, rng = g.nonleaf(ndim_min=1), g.rng
    if t is None:
        return None
    forms = [f"{t}[{_basic_index(rng, g.shape(t))}]", f"{t}.select(0, 0)",
             f"{t}.unbind(0)[0]", f"{t}.transpose(0, -1)", f"{t}.view(-1)",
             f"{t}.detach()", f"{t}.unsqueeze(0)", f"{t}.expand({g.shape(t)})"]
    return f"{out} = " + rng.choice(forms)


GENERATORS = [
    (g_unary, 10), (g_scalar, 5), (g_binary, 10), (g_reduce, 8), (g_view, 10), (g_index, 6),
    (g_combine, 4), (g_matmul, 4), (g_softmax, 3), (g_where, 3), (g_clamp, 3),
    (g_inplace, 10), (g_setitem, 6), (g_view_var, 6),
]


def generate(seed, torch):
    """The source lines of program ``seed``."""
    rng = random.Random(seed)
    g = Gen(rng, torch)
    gen_inputs(g)
    funcs, weights = zip(*GENERATORS)
    n_lines = rng.randint(1, MAX_LINES)
    attempts = 0
    while len(g.lines) < g.n_inputs + n_lines and not g.ended_by_error and attempts < 60:
        attempts += 1
        fn = rng.choices(funcs, weights)[0]
        try:
            line = fn(g, g.new_name())
        except (IndexError, ValueError):
            line = None  # no variable fits this op's needs
        if line is not None:
            g.try_line(line)
    return g.lines


# ------------------------------------------------------------------- running
class Outcome:
    """What one library did with one program."""

    def __init__(self):
        self.error = None       # (stage, line number or None, exception type name, message)
        self.values = {}        # name -> (shape, dtype name, requires_grad, ndarray)
        self.grads = None       # list of ndarray (zeros for None)
        self.hvp = None
        self.warnings = []      # categories of warnings seen


def run(lines, lib, is_torch, seed):
    out = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _run(lines, lib, is_torch, seed, out)
        finally:
            out.warnings = [(w.category.__name__, str(w.message)) for w in caught]
    return out


def _run(lines, lib, is_torch, seed, out):
    scope = {"L": lib, "_rand": _rand}
    for i, line in enumerate(lines):
        try:
            exec(line, scope)
        except Exception as e:  # noqa: BLE001 -- any exception is an outcome to compare
            out.error = ("forward", i, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            return
    names = sorted((k for k in scope if k.startswith("v") and k[1:].isdigit()), key=lambda k: int(k[1:]))
    n_inputs = sum(1 for line in lines if "= L.tensor(_rand(" in line)
    try:
        tensors = {k: scope[k] for k in names if isinstance(scope[k], lib.Tensor)}
        for k, t in tensors.items():
            out.values[k] = (tuple(t.shape), str(t.dtype).split(".")[-1], bool(t.requires_grad),
                             _np(t))
        inputs = [tensors[k] for k in names[:n_inputs] if tensors[k].requires_grad]
    except Exception as e:  # noqa: BLE001 (torch refuses to touch some views after in-place)
        out.error = ("values", None, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return
    wrng = np.random.default_rng(seed)
    stage = "loss"
    try:
        terms = [(t * lib.tensor(wrng.standard_normal(tuple(t.shape)), dtype=lib.float64)).sum()
                 for t in tensors.values() if t.is_floating_point() and t.requires_grad]
        if not terms or not inputs:
            return
        stage = "grad"
        loss = terms[0]
        for term in terms[1:]:
            loss = loss + term
        grads = lib.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
        out.grads = [_np(g) if g is not None else np.zeros(tuple(x.shape)) for g, x in zip(grads, inputs)]
        stage = "hvp"
        # one direction per input, drawn whether or not its gradient has a graph, so
        # both libraries use the same directions
        directions = [wrng.standard_normal(tuple(x.shape)) for x in inputs]
        dots = [(g * lib.tensor(u, dtype=lib.float64)).sum()
                for g, u in zip(grads, directions) if g is not None and g.requires_grad]
        if dots:
            s = dots[0]
            for d in dots[1:]:
                s = s + d
            hv = lib.autograd.grad(s, inputs, allow_unused=True)
            out.hvp = [_np(h) if h is not None else np.zeros(tuple(x.shape)) for h, x in zip(hv, inputs)]
        else:
            out.hvp = [np.zeros(tuple(x.shape)) for x in inputs]
    except Exception as e:  # noqa: BLE001
        out.error = (stage, None, type(e).__name__, str(e).splitlines()[0] if str(e) else "")


def _np(t):
    if getattr(t, "_is_zerotensor", lambda: False)():  # torch's lazy zeros refuse .numpy()
        return np.zeros(tuple(t.shape))
    return np.array(t.detach().numpy(), copy=True)


# ---------------------------------------------------------------- comparing
def compare(mg_out, torch_out):
    """The differences between the two outcomes, as short strings."""
    diffs = []
    me, te = mg_out.error, torch_out.error
    if (me is None) != (te is None) or (me and te and me[:2] != te[:2]):
        diffs.append(f"raises: minigrad {me} / torch {te}")
        return diffs
    if me and te and me[2] != te[2]:
        diffs.append(f"exception type: minigrad {me[2]}: {me[3]} / torch {te[2]}: {te[3]}")
    for k, tv in torch_out.values.items():
        mv = mg_out.values.get(k)
        if mv is None:
            diffs.append(f"{k}: missing under minigrad")
            continue
        if mv[:3] != tv[:3]:
            diffs.append(f"{k}: shape/dtype/requires_grad minigrad {mv[:3]} / torch {tv[:3]}")
        elif not _close(mv[3], tv[3]):
            diffs.append(f"{k}: values differ\n  minigrad {mv[3].tolist()}\n  torch    {tv[3].tolist()}")
    for label in ("grads", "hvp"):
        m, t = getattr(mg_out, label), getattr(torch_out, label)
        if (m is None) != (t is None):
            diffs.append(f"{label}: minigrad {m is not None} / torch {t is not None}")
        elif m is not None:
            for i, (a, b) in enumerate(zip(m, t)):
                if a.shape != b.shape or not _close(a, b):
                    diffs.append(f"{label}[{i}] differ\n  minigrad {a.tolist()}\n  torch    {b.tolist()}")
    torch_kinds = {w[0] for w in torch_out.warnings}
    for kind, msg in mg_out.warnings:
        if kind not in torch_kinds:
            diffs.append(f"warning only under minigrad: {kind}: {msg}")
    return diffs


def _close(a, b):
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return np.array_equal(a, b)
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))


# Deliberate divergences (docs/divergences.md): (name, test on the program's lines,
# its differences and its seed, which some tests use to run it again, changed) -- a
# program they match is not a finding.
_STAGES = ("forward", "values", "loss", "grad", "hvp")


def _torch_refuses_multi_output_views(lines, diffs, seed):
    """torch refused a multi-output view; minigrad allowed it, and then either ran on or
    stopped later at its ordinary version check (a saved tensor the write changed)."""
    first = diffs[0]
    if not first.startswith("raises: minigrad") or "returns multiple views" not in first:
        return False
    if first.startswith("raises: minigrad None"):
        return True
    match = re.match(r"raises: minigrad \('(\w+)', (\d+|None), .*?/ torch \('(\w+)', (\d+|None), ", first)
    if not match or "modified by an inplace operation" not in first.split(" / torch ")[0]:
        return False
    ours, theirs = match.group(1, 3)
    return _STAGES.index(ours) > _STAGES.index(theirs)


def _libs():
    import minigrad
    import torch
    return minigrad, torch


def _only_numbers_differ(diffs):
    return not any(d.startswith(("raises", "exception type", "warning")) or "missing" in d
                   or "shape/dtype" in d for d in diffs)


_COPYSIGN = re.compile(r"\.copysign\((v\d+)\)")


def _nan_sign(lines, diffs, seed):
    """copysign copied the sign bit of a NaN: with every NaN that copysign reads made
    positive (in both libraries alike), nothing differs."""
    if not _only_numbers_differ(diffs) or not any(_COPYSIGN.search(line) for line in lines):
        return False
    positive = [_COPYSIGN.sub(r".copysign(L.where(L.isnan(\1), \1.detach().abs(), \1))", line)
                for line in lines]
    mg, torch = _libs()
    return compare(run(positive, mg, False, seed), run(positive, torch, True, seed)) == []


def _second_order_of_nonfinite(lines, diffs, seed):
    """Only the Hessian-vector product differs, and only where the gradient itself is
    inf or NaN (the same in both libraries): there is no second derivative to agree on."""
    if not all(d.startswith("hvp[") for d in diffs):
        return False
    mg, torch = _libs()
    ours, theirs = run(lines, mg, False, seed), run(lines, torch, True, seed)
    if ours.hvp is None or theirs.hvp is None:
        return False
    for ours_hv, theirs_hv, grad in zip(ours.hvp, theirs.hvp, theirs.grads):
        if not ours_hv.shape == theirs_hv.shape == grad.shape:
            return False
        differ = ~np.isclose(ours_hv, theirs_hv, rtol=RTOL, atol=ATOL, equal_nan=True)
        if np.isfinite(grad[differ]).any():
            return False
    return True


_TIE_OPS = re.compile(r"\.(min|max|amax|amin|median|argmax)\(|L\.(maximum|minimum|fmax|clamp)\(|[<>]")


def _ulp_ties(lines, diffs, seed):
    """An elementwise result differs in its last bits between the libraries (both within
    their accuracy; torch's own SIMD and scalar loops differ), so the two libraries see
    different ties in a min, max or comparison that reads it: the values agree to
    1e-12, but which elements are equal, or which is larger, differs."""
    if not _only_numbers_differ(diffs):
        return False
    mg, torch = _libs()
    scopes = [{"L": lib, "_rand": _rand} for lib in (mg, torch)]
    for line in lines:
        if _TIE_OPS.search(line):
            read = set(re.findall(r"\bv\d+\b", line.split("=", 1)[-1]))
            try:
                values = [{k: _np(scope[k]).astype(np.float64) for k in read if k in scope}
                          for scope in scopes]
            except Exception:  # noqa: BLE001 (torch refuses to read some views after in-place)
                return False
            if _ties_differ(*values):
                return True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for scope in scopes:
                    exec(line, scope)
        except Exception:  # noqa: BLE001 -- the comparison reported how it ended
            return False
    return False


def _ties_differ(ours, theirs):
    """Values within 1e-12 of each other in both libraries, whose ties or order differ."""
    if ours.keys() != theirs.keys() or not all(
            ours[k].shape == theirs[k].shape and np.allclose(ours[k], theirs[k], rtol=1e-12,
                                                             atol=0, equal_nan=True)
            for k in ours):
        return False
    names = sorted(ours)
    for a in names:
        if np.unique(ours[a]).size != np.unique(theirs[a]).size:
            return True
        for b in names:
            if a < b and _broadcasts(ours[a].shape, ours[b].shape):
                for rel in (np.equal, np.greater):
                    if not np.array_equal(rel(ours[a], ours[b]), rel(theirs[a], theirs[b])):
                        return True
    return False


_MATMUL = re.compile(r"^(v\d+) = (v\d+) @ (v\d+)$")


def _matmul_folded_copy(lines, diffs, seed):
    """Only minigrad's backward reports that an input of ``a @ b`` (one of them 3-d or more,
    the other 1-d or 2-d) was changed in place: torch folded that input's batch dims into
    a reshaped copy and saved the copy, so it does not notice."""
    first = diffs[0]
    if not first.startswith("raises: minigrad ('grad'") or not first.endswith("/ torch None"):
        return False
    match = re.search(r"modified by an inplace operation: \[\S+ \[([\d, ]*)\]\]", first)
    if match is None:
        return False
    changed = tuple(int(n) for n in match.group(1).split(",") if n.strip())
    _, torch = _libs()
    scope = {"L": torch, "_rand": _rand}
    for i, line in enumerate(lines):
        found = _MATMUL.match(line)
        if found:
            a, b = (tuple(scope[name].shape) for name in found.group(2, 3))
            big, small = (a, b) if len(a) >= 3 else (b, a)
            if len(big) >= 3 and len(small) <= 2 and big == changed:
                return True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(line, scope)
        except Exception:  # noqa: BLE001 -- the comparison reported how it ended
            return False
    return False


DIVERGENCES = [("multi-output-views", _torch_refuses_multi_output_views),
               ("nan-sign", _nan_sign),
               ("second-order-of-nonfinite", _second_order_of_nonfinite),
               ("ulp-ties", _ulp_ties),
               ("matmul-folded-copy", _matmul_folded_copy)]


def deliberate(lines, diffs, seed):
    """The name of the divergence in docs/divergences.md that explains ``diffs``, or None."""
    for name, matches in DIVERGENCES:
        if matches(lines, diffs, seed):
            return name
    return None


def check(seed, torch, mg):
    """(lines, differences) for program ``seed``."""
    lines = generate(seed, torch)
    mg_out = run(lines, mg, False, seed)
    torch_out = run(lines, torch, True, seed)
    return lines, compare(mg_out, torch_out)


def _kind(diff):
    """A short label grouping similar findings in the summary."""
    first = diff.splitlines()[0]
    if first.startswith("raises") or first.startswith("exception type"):
        return re.sub(r"\('(forward|grad|hvp|loss|values)', (\d+|None), ", "(", first)[:110]
    if first.startswith("warning"):
        return first[:90]
    return first.split(":", 1)[-1].strip()[:60] if first.startswith("v") else first[:60]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="first program's seed")
    parser.add_argument("--show", type=int, default=20, help="findings printed in full")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every program")
    parser.add_argument("--only", default="", help="print only findings whose first line has this")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("tools/fuzz.py compares with PyTorch: pip install torch", file=sys.stderr)
        return 2
    import minigrad as mg
    findings = divergent = 0
    kinds = {}
    for seed in range(args.seed, args.seed + args.programs):
        lines, diffs = check(seed, torch, mg)
        if args.verbose:
            print(f"# program {seed}\n" + "\n".join(lines))
        if not diffs:
            continue
        name = deliberate(lines, diffs, seed)
        if name:
            divergent += 1
            continue
        findings += 1
        kind = _kind(diffs[0])
        kinds[kind] = kinds.get(kind, 0) + 1
        if findings <= args.show and args.only in diffs[0]:
            print(f"--- finding: program {seed}\n" + "\n".join(lines))
            print("\n".join("  ! " + d for d in diffs))
    for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"{n:6d}  {kind}")
    print(f"deliberate divergences (docs/divergences.md): {divergent}")
    print(f"findings: {findings} of {args.programs} programs")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
