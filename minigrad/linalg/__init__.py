"""minigrad.linalg: as torch.linalg; the ops derivatives.yaml exports under this module."""
import importlib as _importlib

# api_linalg.py exists once derivatives.yaml has an entry with `modules: [minigrad.linalg]`.
try:
    _api = _importlib.import_module("minigrad._generated.api_linalg")
except ModuleNotFoundError:
    _api = None
if _api is not None:
    globals().update({name: getattr(_api, name) for name in _api.__all__})
    __all__ = list(_api.__all__)
