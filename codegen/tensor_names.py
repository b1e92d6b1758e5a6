"""The attributes minigrad.Tensor has besides generated ops: names an op must not take.

Read from the class itself (imported), so a new hand-written method or property is
protected without a list to maintain.  A generated method that reuses one of these
names would silently replace it (`x.backward`, `x.shape`, `x.grad` ...).
"""
import ast
import os


def hand_written_names(package_root):
    """Names of Tensor attributes that codegen did not bind (methods, properties, slots)."""
    try:  # imported here, not at the top: codegen must run even when minigrad cannot import
        from minigrad._generated.methods import METHODS
        from minigrad._tensor import Tensor
    except Exception:  # noqa: BLE001 - broken generated code must not stop its own repair
        return _class_body_names(os.path.join(package_root, "minigrad", "_tensor.py"))
    return {name for name in dir(Tensor)
            if getattr(Tensor, name, None) is not METHODS.get(name, _MISSING)}


_MISSING = object()


def _class_body_names(path):
    """Fallback when minigrad cannot be imported: what `class Tensor` defines in its body."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError):
        return set(dir(object))
    names = set(dir(object))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Tensor":
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.Assign):
                    names.update(t.id for t in item.targets if isinstance(t, ast.Name))
                    if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in item.targets):
                        names.update(ast.literal_eval(item.value))
    return names
