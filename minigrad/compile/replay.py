"""Run a traced program eagerly, op by op, through the ordinary differentiable functions.

Used where the generated code cannot serve: ``create_graph=True`` on a region whose
Tensor-form backward cannot be generated (the replayed graph is differentiated
again), hooks on and captures of an output the region reads itself
(runtime.CompiledBackward), and checks that compare compiled with eager.
"""
import numpy as np

from minigrad import _tensor
from minigrad._generated import functions
from minigrad.compile.generate import unique_inputs


def replay(program, inputs, swaps=None):
    """{vid: Tensor} after running ``program`` on ``inputs`` (one Tensor per unique input).

    ``swaps``: {vid: fn}; the ops after that value read ``fn(value)`` in its place (which
    is what the result holds for it)."""
    values = dict(zip(unique_inputs(program), inputs))
    for record in program.records:
        op = record.op
        if op.name == "alias":
            out = values[record.args["self"][1]].detach()
        elif not op.line:   # a comparison: no gradient
            out = _tensor._compare(getattr(np, op.name),
                                   _value(record.args["self"], values),
                                   _value(record.args["other"], values))
        else:
            fn = getattr(functions, record.func_name)
            positional, keywords = [], {}
            for a in op.args:
                value = _value(record.args[a.name], values)
                if a.kwarg_only:
                    keywords[a.name] = value
                else:
                    positional.append(value)
            out = fn(*positional, **keywords)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        for vid, o in zip(record.outputs, outs):
            if vid is not None:
                values[vid] = o if not swaps or vid not in swaps else swaps[vid](o)
    return values


def _value(ref, values):
    kind = ref[0]
    if kind == "value":
        return values[ref[1]]
    if kind == "list":
        return [_value(r, values) for r in ref[1]]
    if kind == "tuple":
        return tuple(_value(r, values) for r in ref[1])
    return ref[1]
