"""Library code that reads tensors' values in Python: a check on them (binary_cross_entropy's
input within [0, 1], a class target's range) that raises PyTorch's error.

Eagerly, ``reads_values`` only notes that nothing is being traced.  While
``minigrad.compile`` traces, it is a graph break: the generated code runs the recorded ops
alone, so a check made in Python at trace time would not run on later calls (a bad input
would give nan, or an index error, instead of PyTorch's message).  Masks made from values
need no such call: write them as Tensor comparisons (``x > 0``), which the tracer records.
"""
_tracer_state = None   # minigrad.compile.tracer.state, once imported (it imports nn.functional)


def reads_values(reason):
    """Call before reading tensor values in Python; ``reason`` says who reads them and why,
    for ``minigrad.compile``'s list of graph breaks."""
    global _tracer_state
    if _tracer_state is None:
        from minigrad.compile.tracer import state   # (here: the tracer imports nn.functional)
        _tracer_state = state
    tracer = _tracer_state.tracer
    if tracer is not None and tracer.depth == 0:
        tracer.graph_break(reason)
