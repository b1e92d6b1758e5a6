"""One generated check per compiled guard: does this call match it?

``CompiledFunction.__call__`` finds a call's entry by building a key (every argument's
shape, dtype and requires_grad, the grad mode, the values of other arguments) and
looking it up; that costs about as much as the generated forward of a small program.
For the common call, positional Tensor arguments only, the entry that ran last also
has this straight-line check, generated for its guard: the grad mode, then one tuple
comparison of each Tensor's (shape, dtype number, requires_grad), the Tensors captured
from outside included.  A call it rejects takes the general lookup.

    def guard(args):
        if len(args) != 2:
            return False
        a0, a1 = args
        if type(a0) is not Tensor or type(a1) is not Tensor or a0 is a1:
            return False
        if (off_threads or inference_used.on) and (flags.enabled, flags.inference) != _mode:
            return False
        d0, d1 = a0._data, a1._data
        return (d0.shape, d0.dtype.num, a0._requires_grad,
                d1.shape, d1.dtype.num, a1._requires_grad) == _expected

The grad mode is read from the thread's flags only where it may differ from the usual
one (recording on, not in inference mode): each read of a thread-local costs about as
much as the rest of the check.  While no thread's grad mode is off (``off_threads``
empty) and no thread ever entered inference mode, this thread's mode is the usual one
(grad_mode's ``off_threads`` and ``inference_used``, as every op's forward tests them).
A guard compiled for another mode reads the flags always.
"""
from minigrad._tensor import Tensor
from minigrad.autograd import grad_mode
from minigrad.autograd.grad_mode import inference_used, off_threads

#: arguments from this many on: aliasing is checked with a set of ids, not pairwise
_PAIRWISE = 5


def make_guard(key, externals):
    """The check for ``key`` (see CompiledFunction.__call__), or None where the key has
    other than positional Tensor arguments.  ``externals``: the captured Tensors and
    their traced Values, ``[(tensor, value)]``."""
    enabled, inference, (kind, parts), kwargs = key[:4]
    if kwargs is not None or len(key) > 4 or not all(_is_tensor_part(p) for p in parts):
        return None   # (keyword arguments, aliased Tensors, non-Tensor arguments)
    names = [f"a{i}" for i in range(len(parts))]
    lines = ["def guard(args):",
             f"    if len(args) != {len(parts)}:",
             "        return False"]
    expected, checked = [], []
    if names:
        lines.append(f"    {_targets(names)} = args")
        distinct = _distinct(names)
        types = " or ".join(f"type({n}) is not Tensor" for n in names)
        lines += [f"    if {types}{' or ' + distinct if distinct else ''}:",
                  "        return False"]
    lines += [_mode_check(enabled, inference), "        return False"]
    if names:
        lines += [f"    {_targets('d' + n[1:] for n in names)} = "
                  f"{_targets(n + '._data' for n in names)}"]
        for n, (shape, number, requires_grad) in zip(names, parts):
            checked += [f"d{n[1:]}.shape", f"d{n[1:]}.dtype.num", f"{n}._requires_grad"]
            expected += [shape, number, requires_grad]
    namespace = {"Tensor": Tensor, "flags": grad_mode.flags, "off_threads": off_threads,
                 "inference_used": inference_used, "_mode": (enabled, inference)}
    for i, (tensor, value) in enumerate(externals):
        namespace[f"_x{i}"] = tensor
        checked += [f"_x{i}._data.shape", f"_x{i}._data.dtype.num", f"_x{i}._requires_grad"]
        expected += [value.shape, value.dtype.num, value.requires_grad]
    namespace["_expected"] = tuple(expected)
    lines.append(f"    return ({', '.join(checked)}{',' if len(checked) == 1 else ''}) "
                 "== _expected")
    text = "\n".join(lines) + "\n"
    exec(compile(text, "<minigrad.compile guard>", "exec"), namespace)  # noqa: S102 - ours
    guard = namespace["guard"]
    guard.source = text
    return guard


def _mode_check(enabled, inference):
    """The test that rejects a call in another grad mode than the guard's: the thread's
    flags are read only where they may differ from the usual mode (the module's
    docstring), unless the guard's mode is another."""
    if enabled and not inference:
        return ("    if (off_threads or inference_used.on) and "
                "(flags.enabled, flags.inference) != _mode:")
    return "    if (flags.enabled, flags.inference) != _mode:"


def _targets(names):
    names = list(names)
    return ", ".join(names) + ("," if len(names) == 1 else "")


def _is_tensor_part(part):
    """A Tensor's part of a key: (shape, dtype number, requires_grad)."""
    return len(part) == 3 and type(part[0]) is tuple


def _distinct(names):
    """A condition true when two of the arguments are the same Tensor ('' for one)."""
    if len(names) < 2:
        return ""
    if len(names) >= _PAIRWISE:
        return f"len({{{', '.join(f'id({n})' for n in names)}}}) != {len(names)}"
    return " or ".join(f"{a} is {b}" for i, a in enumerate(names) for b in names[i + 1:])
