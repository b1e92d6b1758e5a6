"""``vmap``: map a function over a dimension of its inputs, as ``torch.func.vmap``.

torch.func.vmap runs ``func`` once, on BatchedTensors whose every op applies a batch
rule.  minigrad runs ``func`` once per index along the mapped dimensions, on the
slices ``x.select(in_dim, i)``, and stacks what comes back along ``out_dims``.  Both
are differentiable ops, so gradients flow through a vmapped result to its inputs, and
the other transforms compose with vmap both ways (``vmap(grad(f))``, ``jacrev(vmap(f))``)
with nothing special to do.  ``chunk_size`` is checked and changes nothing: the loop
already runs one slice at a time.

A loop accepts some functions torch's batch rules refuse (``.item()`` or ``if`` on a
mapped value): docs/divergences.md, vmap-loop, says which and why.  Where slices give
outputs that cannot be stacked (a different structure or shape per slice, which only
data-dependent code does) it raises torch's errors for such code.

>>> x, y = minigrad.ones(2, 3), minigrad.ones(2, 3)
>>> vmap(minigrad.dot)(x, y)
tensor([3., 3.])
"""
import contextlib
import functools
from collections import OrderedDict

from minigrad import _tensor, random
from minigrad._array import namespace_of
from minigrad._generated import functions   # a module: minigrad.compile patches its ops
from minigrad.func._pytree import tree_flatten, tree_unflatten

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")
_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")
_CONTROL_FLOW_ERROR = ("vmap: It looks like you're attempting to use a Tensor in some "
                       "data-dependent control flow. We don't support that yet, please file an "
                       "issue at https://github.com/pytorch/pytorch/issues .")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its inputs, as ``torch.func.vmap``.

    ``in_dims`` is an int (every positional argument's mapped dim), or a tuple with
    one entry per positional argument, nested like the argument (a pytree prefix):
    an int, or None for an argument that is not mapped.  Keyword arguments are passed
    to every call unmapped.  ``out_dims`` says where the mapped dimension goes in each
    output (None: an output that does not depend on the mapped inputs, returned as
    is).  ``randomness``: 'error' (a random op inside raises), 'different' (each slice
    draws its own numbers), 'same' (every slice sees the same numbers).

    >>> minigrad.func.vmap(lambda row: row.sum())(minigrad.ones(2, 3))
    tensor([3., 3.])
    >>> minigrad.func.vmap(minigrad.mul, in_dims=(0, None))(minigrad.ones(2, 3), minigrad.arange(3.0))
    tensor([[0., 1., 2.],
            [0., 1., 2.]])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    _check_out_dims(out_dims, func)
    batch_size, flat_in_dims, flat_args, args_spec = _mapped_inputs(in_dims, args, func)
    draws = _Randomness(randomness)
    inputs, outputs = [], []
    # With no slices, func still runs once, on zeros shaped like a slice, so that the
    # outputs' structure and shapes are known (torch runs it on empty batches).
    for i in range(batch_size) if batch_size else [None]:
        flat = [arg if d is None else _slice(arg, d, i) for arg, d in zip(flat_args, flat_in_dims)]
        inputs.extend(arg for arg, d in zip(flat, flat_in_dims) if d is not None)
        with draws.slice():
            outputs.append(func(*tree_unflatten(flat, args_spec), **kwargs))
    return _stacked_outputs(outputs, out_dims, batch_size, func, inputs)


def _slice(arg, dim, i):
    if i is None:  # an empty batch: a slice of zeros, still in arg's graph
        return arg.narrow(dim, 0, 0).sum(dim).to(arg.dtype)
    return arg.select(dim, i)


def _get_name(func):
    """How torch's messages name ``func``."""
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


# --------------------------------------------------------------- inputs
def _mapped_inputs(in_dims, args, func):
    """``(batch_size, flat_in_dims, flat_args, args_spec)``, with torch's checks."""
    name = _get_name(func)
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, "
                         "or you are trying to vmap over a function with no inputs. The latter "
                         "is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        flat_in_dims[i] = _checked_in_dim(in_dim, arg, where)
    return _batch_size(flat_in_dims, flat_args), flat_in_dims, flat_args, args_spec


def _checked_in_dim(in_dim, arg, where):
    """``in_dim`` made non-negative, after torch's checks."""
    if in_dim is None:
        return None
    if not isinstance(in_dim, int):
        raise ValueError(f"{where}: Got in_dim={in_dim} for an input but in_dim must be either an "
                         "integer dimension or None.")
    if not isinstance(arg, _tensor.Tensor):
        raise ValueError(f"{where}: Got in_dim={in_dim} for an input but the input is of type "
                         f"{type(arg)}. We cannot vmap over non-Tensor arguments, please use None "
                         "as the respective in_dim")
    ndim = arg.dim()
    if not -ndim <= in_dim < ndim:
        raise ValueError(f"{where}: Got in_dim={in_dim} for some input, but that input is a Tensor "
                         f"of dimensionality {ndim} so expected in_dim to satisfy -{ndim} <= "
                         f"in_dim < {ndim}.")
    return in_dim % ndim


def _batch_size(flat_in_dims, flat_args):
    sizes = [arg.size(d) for d, arg in zip(flat_in_dims, flat_args) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


# ----------------------------------------------------- pytree prefixes
def _broadcast_to_and_flatten(prefix, spec):
    """One entry per leaf of ``spec``: the leaf of the pytree ``prefix`` above it
    (``in_dims=(0, None)`` for ``(x, [y, z])`` gives ``[0, None, None]``); None where
    ``prefix`` is not a prefix of ``spec``'s structure.  torch's rules, so its errors."""
    prefix_leaves, prefix_spec = tree_flatten(prefix)
    subtrees = _subtrees(prefix_spec, spec)
    if subtrees is None:
        return None
    return [leaf for leaf, subtree in zip(prefix_leaves, subtrees)
            for _ in range(subtree.num_leaves)]


def _subtrees(prefix_spec, spec):
    """The subtrees of ``spec`` at ``prefix_spec``'s leaves (torch's ``flatten_up_to``)."""
    if prefix_spec.is_leaf():
        return [spec]
    dicts = (dict, OrderedDict)
    both_dicts = prefix_spec.type in dicts and spec.type in dicts
    if spec.is_leaf() or not (both_dicts or prefix_spec.type is spec.type):
        return None
    if len(prefix_spec.children) != len(spec.children):
        return None
    if both_dicts:  # any key order; taken in the prefix's order, as torch does
        if set(prefix_spec.context) != set(spec.context):
            return None
        by_key = dict(zip(spec.context, spec.children))
        children = [by_key[key] for key in prefix_spec.context]
    elif prefix_spec.context != spec.context:  # another namedtuple class
        return None
    else:
        children = spec.children
    found = []
    for prefix_child, child in zip(prefix_spec.children, children):
        below = _subtrees(prefix_child, child)
        if below is None:
            return None
        found.extend(below)
    return found


# -------------------------------------------------------------- outputs
def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for leaf in tree_flatten(out_dims)[0]:
        if not (leaf is None or isinstance(leaf, int)):
            raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             "be an int, None or a python collection of ints representing where "
                             "in the outputs the vmapped dimension should appear.")


def _stacked_outputs(outputs, out_dims, batch_size, func, inputs):
    """The slices' outputs stacked along ``out_dims``, in their (common) structure."""
    columns, spec = None, None
    for output in outputs:
        leaves, output_spec = tree_flatten(output)
        if spec is None:
            spec, columns = output_spec, [[] for _ in leaves]
        elif output_spec != spec:  # only data-dependent Python code can do this
            raise RuntimeError(_CONTROL_FLOW_ERROR)
        for column, leaf in zip(columns, leaves):
            column.append(leaf)
    flat_out_dims = _flat_out_dims(out_dims, outputs[0], spec, func)
    name = _get_name(func)
    stacked = [_stacked(column, out_dim, batch_size, name, inputs)
               for column, out_dim in zip(columns, flat_out_dims)]
    return tree_unflatten(stacked, spec)


def _flat_out_dims(out_dims, output, spec, func):
    # torch's special case: one Tensor output takes out_dims as an int or a 1-tuple
    if isinstance(output, _tensor.Tensor):
        if out_dims is None or isinstance(out_dims, int):
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        flat = None
    else:
        flat = _broadcast_to_and_flatten(out_dims, spec)
    if flat is None:
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                         "is not compatible with the structure of `outputs`. out_dims has "
                         f"structure {tree_flatten(out_dims)[1]} but outputs has structure {spec}.")
    return flat


def _stacked(values, out_dim, batch_size, name, inputs):
    """One output's values, one per slice, as vmap's result for that output."""
    if out_dim is None:
        if _is_batched(values, inputs):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                             "out_dim is None")
        return values[0]
    for value in values:
        if not isinstance(value, _tensor.Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(value)}. Did you mean to set out_dims= to None for output?")
    shapes = {tuple(value.shape) for value in values}
    if len(shapes) > 1:
        raise RuntimeError("vmap: We do not support batching operators that can output dynamic "
                           f"shape: `{name}` returned tensors of shapes {sorted(shapes)} for "
                           "different slices.")
    result = functions.stack(values, dim=out_dim)
    return result if batch_size else result.narrow(out_dim, 0, 0)


def _is_batched(values, inputs):
    """Does a Tensor output depend on the mapped inputs?  A loop can tell only when it is
    a mapped input's slice, or differs between slices."""
    first = values[0]
    if not isinstance(first, _tensor.Tensor):
        return False
    if any(first is x for x in inputs):
        return True
    return not all(_same_values(first, value) for value in values[1:])


def _same_values(a, b):
    if a is b:
        return True
    if not isinstance(b, _tensor.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan_equal = a.is_floating_point() or a.is_complex()
    return bool(namespace_of(a._data).array_equal(a._data, b._data, equal_nan=nan_equal))


# ----------------------------------------------------------- randomness
class _Randomness:
    """How the slices of one vmap call draw from the default generator.

    'different' is what a loop does; 'same' puts the generator back where it was before
    each slice, so that after the call it has moved as one slice's draws moved it (as
    torch's single unmapped draw); 'error' stands a guard in for the generator's numpy
    Generator while a slice runs.  The generator is global, so this holds for every
    thread while a slice runs, and a Generator passed as ``generator=`` is not covered
    (docs/divergences.md, vmap-loop)."""

    def __init__(self, mode):
        self.mode = mode
        if mode == "same":
            self.start = random.default_generator._numpy.bit_generator.state

    @contextlib.contextmanager
    def slice(self):
        generator = random.default_generator
        if self.mode == "same":
            generator._numpy.bit_generator.state = self.start
        if self.mode != "error":
            yield
            return
        saved = generator._numpy
        guard = generator._numpy = _NoDraws(saved)
        try:
            yield
        finally:
            if generator._numpy is guard:   # (unless func re-seeded it: keep the new stream)
                generator._numpy = saved


class _NoDraws:
    """The default generator's numpy Generator under randomness='error': any draw raises
    torch's error; its state can still be read and set (``get_rng_state`` is no draw)."""

    def __init__(self, rng):
        self.bit_generator = rng.bit_generator

    def __getattr__(self, name):
        raise RuntimeError(_RANDOM_ERROR)
