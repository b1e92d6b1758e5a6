"""Cross-entropy written out, ``log_softmax(x, dim).gather(dim, index).mean()``: its
backward in one helper instead of three formulas.

The three formulas (mean's, gather's and log_softmax's in derivatives.yaml) pass the
gradient through two arrays nobody else reads, and each goes through its helpers
(``unreduce``, ``reduced_numel``, ``scatter_add`` with its dtype casts, ``cast_back``):
about 30 numpy and helper calls for a (128, 10) array, each of them slow in a training
step, where the matmuls before them have evicted the caches.  ``log_softmax_nll_backward``
makes the same numpy calls on the same values, in the same order, and only those: the
gradients stay bit for bit equal to eager's.

- mean: every element's gradient is ``grad / count``; the same division on the 0-d
  ``grad`` gives that number once, and ``add.at`` adds it at each index as it adds
  the element (the sum of zeros and it: ``0.0 + c``, as eager's scatter_add).
- gather: ``scatter_add(zeros_like(self), dim, index, grad)`` is that ``add.at`` into zeros
  (``kernels.core.scatter_add_into_zeros``, repeated indices add up).
- log_softmax: ``grad - exp(result) * sum(grad, dim, True)``, the same ufuncs.

Only in the array backward of programs with one float dtype (their ``cast_to`` and
``cast_back`` change nothing) and where the two intermediate values are read by the next
op alone (not returned, not read by another op): otherwise the three formulas run.
"""
import math

from minigrad.compile.namespace import namespace_of
from minigrad.kernels.core import _log_softmax, scatter_add_into_zeros
from minigrad.kernels.reductions import mean_array
from minigrad.kernels.shape import _along


def log_softmax_nll_forward(x, dim, index):
    """``(log_softmax(x, dim), mean(gather(that, dim, index)))``: the kernels' numpy calls
    (``_log_softmax``, gather's fancy index, ``mean_array``), whose checks of dims and
    dtypes passed when the region was traced (the guard keeps them), under the forward's
    switch of numpy's warnings."""
    result = _log_softmax(x, dim)
    return result, mean_array(result[_along(index.shape, dim % result.ndim, index)], None, False)


def log_softmax_nll_backward(grad, result, dim, index, count):
    """The gradient of ``x`` in ``mean(gather(log_softmax(x, dim), dim, index))``, from the
    mean's gradient ``grad``: ``result`` is log_softmax's, ``count`` gather's element count."""
    xp = namespace_of(result)
    picked = scatter_add_into_zeros(xp.divide(grad, count), dim, index, result.shape)
    return picked - xp.exp(result) * xp.add.reduce(picked, axis=dim, keepdims=True)


def fused_losses(program):
    """``{mean's record index: (log_softmax's record, gather's record)}`` for each chain this
    module's helper computes the backward of, and the indices of the records it replaces
    (found once per program: the forward and each backward ask)."""
    found = getattr(program, "_fused_losses", None)
    if found is None:
        found = program._fused_losses = _find(program) \
            if any(r.op.name == "mean" for r in program.records) else ({}, set())
    return found


def _find(program):
    from minigrad.compile.generate import output_vids, ref_vids   # (generate imports us)
    uses = {}
    for record in program.records:
        for vid in ref_vids(record.args.values()):
            uses[vid] = uses.get(vid, 0) + 1
    outputs = set(output_vids(program))
    producer = {r.outputs[0]: (i, r) for i, r in enumerate(program.records) if r.outputs}
    found, replaced = {}, set()
    for i, mean in enumerate(program.records):
        if not _is(mean, "mean", dim=None, keepdim=False, dtype=None):
            continue
        gather_at, gather = producer.get(_value(mean, "self"), (None, None))
        if gather is None or not _is(gather, "gather") or not _single_use(gather, uses, outputs):
            continue
        softmax_at, softmax = producer.get(_value(gather, "self"), (None, None))
        if softmax is None or not _is(softmax, "log_softmax", dtype=None) \
                or not _single_use(softmax, uses, outputs):
            continue
        values = program.values
        x, out = _value(softmax, "self"), softmax.outputs[0]
        if x is None or not values[x].requires_grad or not values[out].shape \
                or gather.args["dim"][0] != "const" or softmax.args["dim"][0] != "const" \
                or _value(gather, "index") is None:
            continue
        ndim = len(values[out].shape)
        if gather.args["dim"][1] % ndim != softmax.args["dim"][1] % ndim \
                or math.prod(values[gather.outputs[0]].shape) == 0 \
                or math.prod(values[out].shape) == 0:
            continue
        found[i] = (softmax, gather)
        replaced.update((gather_at, softmax_at))
    return found, replaced


def forward_line(mean, softmax, gather):
    """The helper's call computing log_softmax's and the mean's values in the forward."""
    return (f"v{softmax.outputs[0]}, v{mean.outputs[0]} = log_softmax_nll_forward("
            f"v{_value(softmax, 'self')}, {softmax.args['dim'][1]!r}, "
            f"v{_value(gather, 'index')})")


def backward_line(program, mean, softmax, gather):
    """``(target vid, code)``: the helper's call for the chain ending in ``mean``."""
    count = math.prod(program.values[gather.outputs[0]].shape)
    code = (f"log_softmax_nll_backward(g{mean.outputs[0]}, v{softmax.outputs[0]}, "
            f"{gather.args['dim'][1]!r}, v{_value(gather, 'index')}, {count})")
    return _value(softmax, "self"), code


def _is(record, name, **consts):
    return record.op.name == name and len(record.outputs) == 1 and all(
        record.args.get(arg, ("const", value)) == ("const", value)
        for arg, value in consts.items())


def _value(record, arg):
    ref = record.args.get(arg)
    return ref[1] if ref is not None and ref[0] == "value" else None


def _single_use(record, uses, outputs):
    vid = record.outputs[0]
    return uses.get(vid, 0) == 1 and vid not in outputs
