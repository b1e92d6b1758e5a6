"""What a compiled function reads besides its arguments, checked on every call.

The generated code holds the Tensors the traced call read from outside its arguments (a
module's parameters, a tensor in a closure) and the Python values it used (a module's
``stride``, its ``training`` flag, a float in a global).  Where the function would now
reach other ones, the compiled code would silently use the old: after ``model.fc =
nn.Linear(...)``, ``layer.weight = nn.Parameter(...)``, ``model.scale = 2.0``, or a
closure's or global's new value.  Such a call is traced again, as PyTorch's
``torch.compile`` guards on what its trace read.

What is checked:

- every module called while tracing, and its submodules: each one's parameters, buffers
  and children (by identity) and its plain attributes (numbers, strings, None, tuples of
  them: by value).  These change only through ``Module``'s attribute and registration
  methods, which count the changes (``nn.modules.module.state_changes``): a call checks
  the modules only when that count moved;
- the function's closure cells and the globals its code names (by identity; numbers and
  strings by value).

Not checked: values inside containers (a dict's or list's items), globals of the functions
it calls, and attributes of other objects.  Pass such values as arguments, which the
guards cover.

The other way round, the trace watches for Python side effects, which the generated code
would not repeat: a module attribute set while tracing (``self.calls += 1``), ``print``,
and a closure cell or global the function's code names that was rebound or, for a list,
dict or set, changed (``cache.append(y)``).  Each is a graph break (tracer.py), so that
guard runs eagerly, side effects included.  Changes to other objects go unseen.
"""
import functools
import types

from minigrad.nn.modules import module as _module

_PLAIN = (int, float, bool, str, complex, type(None))
_MISSING = object()


def world_check(fn, modules, args):
    """A function () -> True while ``fn`` would read what it read when traced (the
    ``modules`` called while tracing, a module ``fn`` is a method of or was given as an
    argument, ``fn``'s closure and globals), or None where there is nothing to check."""
    bound = ()
    while isinstance(fn, functools.partial):   # (a compiled method: partial(compiled, self))
        bound += fn.args + tuple(fn.keywords.values())
        fn = fn.func
    if isinstance(fn, types.MethodType):
        bound += (fn.__self__,)
    modules = list(modules) + [m for m in (*bound, *args) if isinstance(m, _module.Module)]
    checks = []
    if modules:
        checks.append(_modules_check(modules))
    code_check = _code_check(fn)
    if code_check is not None:
        checks.append(code_check)
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    first, second = checks
    return lambda: first() and second()


# ---------------------------------------------------------------------- modules
def _modules_check(modules):
    expected = _module_state(modules)
    counted = [_module.state_changes[0]]

    def modules_unchanged():
        if _module.state_changes[0] == counted[0]:
            return True
        if not _same(_module_state(modules), expected):
            return False
        counted[0] = _module.state_changes[0]   # (changed and changed back, or elsewhere)
        return True
    return modules_unchanged


def _module_state(roots):
    """(objects, values): every module's registered Tensors and children, and its plain
    attributes, for ``roots`` and everything under them."""
    objects, values, seen, stack = [], [], set(), list(roots)
    while stack:
        module = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        state = module.__dict__
        objects.append(module)
        for registry in ("_parameters", "_buffers", "_modules"):
            for name, value in state[registry].items():
                objects.append(value)
                values.append(name)
        plain = ((name, _plain(value)) for name, value in state.items())
        values.extend(item for item in plain if item[1] is not _MISSING)
        stack.extend(child for child in state["_modules"].values() if child is not None)
    return objects, values


def _plain(value):
    """``(type, value)`` for a number, string or None (or a tuple of them), else _MISSING."""
    if type(value) in _PLAIN:
        return type(value), value
    if type(value) is tuple:
        parts = tuple(_plain(v) for v in value)
        return _MISSING if _MISSING in parts else (tuple, parts)
    return _MISSING


# ---------------------------------------------------------------------- closures, globals
def _code_check(fn):
    """Check of ``fn``'s closure cells and the globals its code (and the code nested in it)
    names; None for a module or other callable, whose reads the module check covers."""
    function = _function_of(fn)
    if function is None:
        return None
    cells = function.__closure__ or ()
    namespace = function.__globals__
    names = sorted(name for name in _names(function.__code__) if name in namespace)
    expected = ([cell.cell_contents if _filled(cell) else _MISSING for cell in cells],
                [namespace[name] for name in names])
    if not cells and not names:
        return None

    def code_reads_unchanged():
        return _same(([cell.cell_contents if _filled(cell) else _MISSING for cell in cells],
                      [namespace.get(name, _MISSING) for name in names]), expected,
                     by_value=True)
    return code_reads_unchanged


def _function_of(fn):
    """The Python function behind ``fn`` (a function, a method, a partial of one), or None."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    function = fn.__func__ if isinstance(fn, types.MethodType) else fn
    return function if isinstance(function, types.FunctionType) else None


# ---------------------------------------------------------------------- side effects
def outside_state(fn):
    """What the trace may change outside ``fn`` by Python alone (the generated code would
    not repeat it): [(name, read, value, contents)] for its closure cells and the globals
    its code names (or, for a module, its forward's), a list's, dict's or set's items
    by identity.  ``changed_outside`` compares them after the trace."""
    if isinstance(fn, _module.Module):
        fn = type(fn).forward
    function = _function_of(fn)
    if function is None:
        return []
    state = []
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        def read(cell=cell):
            return cell.cell_contents if _filled(cell) else _MISSING
        state.append((name, read))
    namespace = function.__globals__
    for name in sorted(_names(function.__code__)):
        if name in namespace:
            state.append((name, functools.partial(namespace.get, name, _MISSING)))
    return [(name, read, read(), _contents(read())) for name, read in state]


def changed_outside(state):
    """The names in ``outside_state``'s list whose value or items changed since."""
    return [name for name, read, value, contents in state
            if read() is not value or _contents(value) != contents]


def _contents(value):
    kind = type(value)
    if kind is list:
        return tuple(map(id, value))
    if kind is dict:
        return tuple((key, id(item)) for key, item in value.items())
    if kind is set:
        return frozenset(map(id, value))
    return None


def _names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:   # (a cell not yet assigned)
        return False
    return True


def _same(now, then, by_value=False):
    """Both parts alike: the first part's objects the same objects, the second's values
    equal (or, ``by_value``, each object the same, or an equal number or string)."""
    (objects, values), (old_objects, old_values) = now, then
    if len(objects) != len(old_objects) or len(values) != len(old_values):
        return False
    if any(a is not b for a, b in zip(objects, old_objects)):
        return False
    if not by_value:
        return values == old_values
    return all(a is b or (_plain(a) is not _MISSING and _plain(a) == _plain(b))
               for a, b in zip(values, old_values))
