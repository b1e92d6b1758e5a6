"""Checks of forward derivatives (JVPs), run by the generated suite for every entry.

For each sample, with a random tangent per differentiable input (one input at a time,
then all together):

- the JVP against float64 central differences of the forward along the tangent;
- the JVP against the VJP on the same sample: ``<J t, u> == <t, J^T u>``;
- batched tangents (jacfwd's path) against one JVP per tangent;
- forward-over-reverse: the tangent of the VJP against central differences of the VJP.

A failure names the op, the input, the forward formula and its YAML line.
"""
import numpy as np

from minigrad._array import to_host
from minigrad._tensor import _wrap
from minigrad.autograd import forward_ad as fwAD
from minigrad.autograd import grad_mode
from minigrad.autograd.api import grad as autograd_grad
from minigrad.kernels.core import on_device_of
from minigrad.testing import _as_positional, _index, _named_leaves, build_sample


def _host64(t):
    """A tensor's values as a float64 numpy array (compared on the host)."""
    return to_host(t._data).astype(np.float64)


class _Report:
    def __init__(self, op, sample, kwargs, formulas):
        self.op, self.sample, self.formulas = op, sample, formulas
        self.names = [where for _, where in _named_leaves(kwargs)]

    def fail(self, j, what, details):
        name, k = self.names[j] if j is not None else ("(all together)", None)
        label = f"input `{name}`" + (f" (tensor {k} of the list)" if k is not None else "")
        where = "; ".join(f"{path}:{line}: `{key}: {text}`" for key, (path, line, text)
                          in self.formulas.items()) or "no `result:` formula"
        raise AssertionError(f"{getattr(self.op, '__name__', self.op)}: {what} for {label} is "
                             f"wrong ({where}) on sample {self.sample}: {details}")


def check_forward(op, outputs, sample, formulas, fast=False):
    """JVP against finite differences and against the VJP, one input at a time and all
    together; batched tangents against single ones."""
    kwargs = build_sample(sample)
    fn, leaves = _as_positional(op, outputs, kwargs, sample)
    if not leaves:
        return
    report = _Report(op, sample, kwargs, formulas)
    rng = np.random.default_rng(7)
    points = [leaf.detach() for leaf in leaves]
    float32 = any(p._data.dtype == np.float32 for p in points)
    full = [_wrap(on_device_of(p._data, rng.standard_normal(p.shape).astype(p._data.dtype)))
            for p in points]
    choices = [[t if i == j else None for i, t in enumerate(full)] for j in range(len(leaves))]
    if len(leaves) > 1:
        choices.append(full)
    for j, tangents in enumerate(choices):
        which = j if j < len(leaves) else None
        outs, jvp = _jvp(fn, points, tangents)
        for o, t in zip(outs, jvp):
            if t is not None and t._data.dtype != o._data.dtype:
                report.fail(which, "the dtype of the tangent", f"a {o.dtype} output got a "
                            f"{t.dtype} tangent")
        if which is not None:  # (all together: the sum of the terms, checked against the VJP)
            numerical = _central_differences(fn, points, tangents)
            _compare(report, which, "the forward derivative (JVP)", jvp, numerical, outs,
                     rtol=1e-2 if float32 else 1e-3, atol=1e-3 if float32 else 1e-5)
        if not float32:
            _against_vjp(report, which, fn, leaves, tangents, jvp, outs, rng)
    if not float32:
        _batched_against_single(report, fn, points, full, rng)


def _jvp(fn, points, tangents):
    with fwAD.dual_level(), grad_mode.no_grad():
        duals = [fwAD.make_dual(p, t) if t is not None else p for p, t in zip(points, tangents)]
        outs = fn(*duals)
        tangents_out = [fwAD.unpack_dual(o).tangent for o in outs]
    return outs, tangents_out


def _central_differences(fn, points, tangents, eps=1e-6):
    def at(sign):
        args = [_wrap(p._data.astype(np.float64) + sign * eps * t._data.astype(np.float64))
                if t is not None else _wrap(p._data.astype(np.float64) if p._data.dtype.kind == "f" else p._data)
                for p, t in zip(points, tangents)]
        with grad_mode.no_grad():
            return [_host64(o) for o in fn(*args)]
    return [(a - b) / (2 * eps) for a, b in zip(at(1.0), at(-1.0))]


def _compare(report, j, what, got, want, outs, rtol, atol):
    for i, (g, w) in enumerate(zip(got, want)):
        w = to_host(w)
        g = np.zeros(w.shape) if g is None else _host64(g)
        if g.shape != w.shape:
            report.fail(j, what, f"output {i} has a tangent of shape {list(g.shape)}, "
                        f"expected {list(w.shape)}")
        excess = np.abs(g - w) - (atol + rtol * np.abs(w))
        excess = np.where(np.isnan(g) & np.isnan(w), -np.inf, np.nan_to_num(excess, nan=np.inf))
        if excess.size and np.max(excess) > 0:
            k = int(np.argmax(excess))
            report.fail(j, what, f"largest error {abs(g.flat[k] - w.flat[k]):.3g} at output {i} "
                        f"index {_index(k, w.shape)}: JVP {g.flat[k]:.8g}, finite differences "
                        f"{w.flat[k]:.8g} (atol={atol}, rtol={rtol})")


def _against_vjp(report, j, fn, leaves, tangents, jvp, outs, rng):
    """<J t, u> == <t, J^T u> with the reverse pass on the same sample."""
    live = [(o, t) for o, t in zip(fn(*leaves), jvp) if o.requires_grad]
    if not live:
        return
    cotangents = [_wrap(on_device_of(o._data, rng.standard_normal(o.shape))) for o, _ in live]
    vjps = autograd_grad([o for o, _ in live], leaves, cotangents, allow_unused=True)
    forward = sum(float(np.sum(_host64(u) * (_host64(t) if t is not None else 0.0)))
                  for (_, t), u in zip(live, cotangents))
    reverse = sum(float(np.sum(_host64(t) * _host64(g))) for t, g in zip(tangents, vjps)
                  if t is not None and g is not None)
    if not np.isclose(forward, reverse, rtol=1e-6, atol=1e-8) and not (np.isnan(forward) and np.isnan(reverse)):
        report.fail(j, "the forward derivative against the backward one",
                    f"<J t, u> = {forward:.10g} but <t, J^T u> = {reverse:.10g}")


def _batched_against_single(report, fn, points, full, rng, batch=3):
    """jacfwd's path: B tangents at once give the B single JVPs."""
    stacks = [np.stack([to_host(t._data)] + [rng.standard_normal(t.shape) for _ in range(batch - 1)])
              for t in full]
    stacks = [_wrap(on_device_of(t._data, s)) for t, s in zip(full, stacks)]
    with fwAD.dual_level(), grad_mode.no_grad():
        duals = [fwAD._make_dual_batched(p, s) for p, s in zip(points, stacks)]
        batched = [fwAD.unpack_dual(o).tangent for o in fn(*duals)]
    for b in range(batch):
        _, single = _jvp(fn, points, [_wrap(s._data[b]) for s in stacks])  # (on the device)
        for i, (got, want) in enumerate(zip(batched, single)):
            if want is None:
                continue
            if got is None or got.shape[1:] != want.shape or not np.allclose(
                    _host64(got)[b], _host64(want), rtol=1e-7, atol=1e-9, equal_nan=True):
                shown = None if got is None else list(got.shape)
                report.fail(None, "the batched forward derivative (jacfwd)",
                            f"batch element {b} of output {i} differs from the single JVP "
                            f"(batched tangent shape {shown}, single {list(want.shape)})")


def check_forward_over_reverse(op, outputs, sample, formulas):
    """Second order through forward mode: the tangent of the VJP (backward formulas run on
    dual tensors) against central differences of the VJP."""
    kwargs = build_sample(sample)
    fn, leaves = _as_positional(op, outputs, kwargs, sample)
    if not leaves or any(leaf._data.dtype != np.float64 for leaf in leaves):
        return
    report = _Report(op, sample, kwargs, formulas)
    rng = np.random.default_rng(11)
    tangents = [rng.standard_normal(leaf.shape) for leaf in leaves]
    cotangents = None

    def vjp(shift, dual=False):
        nonlocal cotangents
        xs = [_wrap(leaf._data + shift * on_device_of(leaf._data, t)).requires_grad_()
              for leaf, t in zip(leaves, tangents)]
        if dual:
            xs = [fwAD.make_dual(x, _wrap(on_device_of(x._data, t))) for x, t in zip(xs, tangents)]
        outs = [o for o in fn(*xs) if o.requires_grad]
        if cotangents is None:
            cotangents = [rng.standard_normal(o.shape) for o in outs]
        if not outs:
            return None
        return autograd_grad(outs, xs, [_wrap(on_device_of(o._data, c)) for o, c in zip(outs, cotangents)],
                             allow_unused=True)

    with fwAD.dual_level():
        grads = vjp(0.0, dual=True)
        if grads is None:
            return
        got = [fwAD.unpack_dual(g).tangent if g is not None else None for g in grads]
    eps = 1e-6
    plus, minus = vjp(eps), vjp(-eps)
    want = [np.zeros(leaf.shape) if p is None else (_host64(p) - _host64(m)) / (2 * eps)
            for leaf, p, m in zip(leaves, plus, minus)]
    _compare(report, None, "the forward-over-reverse second derivative (the tangent of the "
             "gradient)", got, want, None, rtol=1e-3, atol=1e-4)
