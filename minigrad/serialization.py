"""``minigrad.save`` / ``minigrad.load``: checkpoints that loading cannot turn into code.

A checkpoint is a zip archive:

    minigrad_checkpoint/format       "minigrad-checkpoint 1"
    minigrad_checkpoint/data.json    the object's structure (dicts, lists, numbers, ...)
    minigrad_checkpoint/arrays/N.npy each tensor's values (numpy's format, no pickle)
    minigrad_checkpoint/pickles/N    objects outside that vocabulary (weights_only=False)

``load`` rebuilds containers, numbers, strings and tensors itself, so by default
(``weights_only=True``, as PyTorch) nothing in the file can run code.  Objects of
other classes are pickled by ``save`` and load only with ``weights_only=False`` or
when their class was allowed with ``add_safe_globals``.  A truncated or corrupt file
raises ``RuntimeError`` and yields nothing.  ``save`` to a path writes a temporary
file next to it and renames it into place, so a failed save leaves the previous
checkpoint intact (PyTorch's truncates it first).

>>> minigrad.save({"model": model.state_dict(), "epoch": 3}, "ckpt.pt")
>>> minigrad.load("ckpt.pt")["epoch"]
3
"""
import base64
import codecs
import collections
import copyreg
import importlib
import io
import json
import math
import os
import pickle
import tempfile
import warnings
import zipfile

import numpy as np

from minigrad import _array, _device, _dtypes
from minigrad._size import Size
from minigrad._tensor import Tensor, _rebuild_tensor

try:
    from numpy._core.multiarray import _reconstruct
except ImportError:  # numpy < 2
    from numpy.core.multiarray import _reconstruct

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals"]

_ROOT = "minigrad_checkpoint/"
_FORMAT = b"minigrad-checkpoint 1"
_TAG = "__minigrad__"
_DICT_TYPES = {dict: "dict", collections.OrderedDict: "OrderedDict", collections.Counter: "Counter"}
_DICT_CLASSES = {name: cls for cls, name in _DICT_TYPES.items()}

_safe_globals = {}


def add_safe_globals(safe_globals):
    """Allow these classes or functions in pickled parts of a checkpoint under
    ``weights_only=True`` (only for code you trust to be rebuilt from data).

    >>> minigrad.serialization.add_safe_globals([MyConfig])
    """
    for item in safe_globals:
        _safe_globals[(item.__module__, item.__qualname__)] = item


def get_safe_globals():
    return list(_safe_globals.values())


def clear_safe_globals():
    _safe_globals.clear()


# --------------------------------------------------------------------------- save
class _Encoder:
    """Turns an object into JSON-able structure plus the arrays and pickles it refers to."""

    def __init__(self, pickle_module, pickle_protocol):
        self.arrays = []
        self.pickles = []
        self.tensor_ids = {}  # id(tensor) -> its record, so a shared tensor loads shared
        self.keep_alive = []
        self.pickle_module = pickle_module
        self.pickle_protocol = pickle_protocol

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)) or type(obj) is int:
            return obj
        if type(obj) is float:
            return obj if math.isfinite(obj) else {_TAG: "float", "repr": repr(obj)}
        if type(obj) is list:
            return [self.encode(v) for v in obj]
        if type(obj) is tuple:
            return {_TAG: "tuple", "items": [self.encode(v) for v in obj]}
        if type(obj) is Size:  # plain data, so weights_only loads read it
            return {_TAG: "size", "items": list(obj)}
        if type(obj) in _DICT_TYPES:
            return {_TAG: _DICT_TYPES[type(obj)],
                    "items": [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if type(obj) is np.ndarray and obj.dtype.kind in "biufc":
            return {_TAG: "ndarray", "array": self._array(obj)}
        if isinstance(obj, np.generic) and obj.dtype.kind in "biufc":
            return {_TAG: "npscalar", "array": self._array(np.asarray(obj))}
        if type(obj) is complex:
            return {_TAG: "complex", "real": self.encode(obj.real), "imag": self.encode(obj.imag)}
        if type(obj) is bytes:
            return {_TAG: "bytes", "base64": base64.b64encode(obj).decode("ascii")}
        if type(obj) in (set, frozenset):
            return {_TAG: type(obj).__name__, "items": [self.encode(v) for v in obj]}
        if type(obj) is _dtypes.dtype:
            return {_TAG: "dtype", "numpy": obj._numpy.str}
        if type(obj) is _device.device:
            return {_TAG: "device", "name": str(obj)}
        return self._pickle(obj)

    def _array(self, array):
        self.arrays.append(array)
        return len(self.arrays) - 1

    def _tensor(self, t):
        record = self.tensor_ids.get(id(t))
        if record is None:
            cls = type(t)
            if cls is not Tensor and _tensor_class(cls.__module__, cls.__qualname__) is not cls:
                return self._pickle(t)  # a user's subclass: its class is code, as in torch
            record = {_TAG: "tensor", "array": self._array(t._data),
                      "class": [cls.__module__, cls.__qualname__],
                      "requires_grad": bool(t.requires_grad), "device": str(t.device)}
            self.tensor_ids[id(t)] = record
            self.keep_alive.append(t)
        return record

    def _pickle(self, obj):
        self.pickles.append(self.pickle_module.dumps(obj, protocol=self.pickle_protocol))
        return {_TAG: "pickle", "index": len(self.pickles) - 1, "type": _qualname(type(obj))}


def _qualname(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _archive(obj, pickle_module, pickle_protocol):
    """The checkpoint's bytes: everything is encoded before anything is written."""
    encoder = _Encoder(pickle_module, pickle_protocol)
    structure = json.dumps(encoder.encode(obj), allow_nan=False)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(_ROOT + "format", _FORMAT)
        zf.writestr(_ROOT + "data.json", structure)
        for i, array in enumerate(encoder.arrays):
            member = io.BytesIO()
            np.save(member, _array.to_host(array), allow_pickle=False)  # a GPU array too
            zf.writestr(f"{_ROOT}arrays/{i}.npy", member.getvalue())
        for i, payload in enumerate(encoder.pickles):
            zf.writestr(f"{_ROOT}pickles/{i}", payload)
    return buffer.getvalue()


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` (tensors, state dicts, nested dicts/lists/tuples, numbers, strings)
    to ``f``: a path (written atomically) or a binary file-like object.

    >>> minigrad.save(model.state_dict(), "model.pt")
    """
    data = _archive(obj, pickle_module, pickle_protocol)
    if not isinstance(f, (str, os.PathLike)):
        f.write(data)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp) if os.path.exists(tmp) else None
        raise


# --------------------------------------------------------------------------- load
_WEIGHTS_ONLY_ERROR = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "do those steps only if you trust the source of the checkpoint. \n\t(1) Re-running "
    "`minigrad.load` with `weights_only` set to `False` will likely succeed, but it can result "
    "in arbitrary code execution. Do it only if you got the file from a trusted source.\n\t(2) "
    "Alternatively, to load with `weights_only=True` please check the recommended steps in the "
    "following error message.\nWeightsUnpickler error: Unsupported global: GLOBAL {name} was not "
    "an allowed global by default. Please use `minigrad.serialization.add_safe_globals([{short}])` "
    "to allowlist this global if you trust this class/function.")


class _SafeUnpickler(pickle.Unpickler):
    """Unpickles only minigrad tensors, plain arrays and the classes users allowed."""

    # Each of these only builds objects from classes that also pass find_class.
    _BUILTIN = {("minigrad._tensor", "_rebuild_tensor"): _rebuild_tensor,
                ("minigrad._tensor", "Tensor"): Tensor,
                ("collections", "OrderedDict"): collections.OrderedDict,
                ("copyreg", "__newobj__"): copyreg.__newobj__,
                ("copyreg", "_reconstructor"): copyreg._reconstructor,
                ("builtins", "object"): object, ("builtins", "set"): set,
                ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
                ("builtins", "slice"): slice, ("builtins", "range"): range,
                ("_codecs", "encode"): codecs.encode,  # bytes under pickle protocol 2
                ("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
                ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
                ("numpy.core.multiarray", "_reconstruct"): _reconstruct}

    def find_class(self, module, name):
        if module.startswith("numpy") and name.endswith("DType"):  # numpy 2's dtype classes
            return getattr(np.dtypes, name)
        found = self._BUILTIN.get((module, name)) or _safe_globals.get((module, name))
        if found is None:
            found = _tensor_class(module, name)
        if found is None:
            raise pickle.UnpicklingError(_WEIGHTS_ONLY_ERROR.format(name=f"{module}.{name}",
                                                                    short=name))
        return found


def _tensor_class(module, name):
    """A Tensor subclass defined in minigrad itself (``nn.Parameter``), else None."""
    if module != "minigrad" and not module.startswith("minigrad."):
        return None
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None
    return found if isinstance(found, type) and issubclass(found, Tensor) else None


class _Decoder:
    def __init__(self, zf, map_location, weights_only, pickle_module):
        self.zf = zf
        self.map_location = map_location
        self.weights_only = weights_only
        self.pickle_module = pickle_module
        self.tensors = {}

    def decode(self, node):
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            return node
        kind = node.get(_TAG)
        if kind in _DICT_CLASSES:
            mapping = _DICT_CLASSES[kind]()
            for k, v in node["items"]:
                mapping[self.decode(k)] = self.decode(v)
            return mapping
        if kind == "tuple":
            return tuple(self.decode(v) for v in node["items"])
        if kind == "size":
            return Size(node["items"])
        if kind == "tensor":
            return self._tensor(node)
        if kind == "ndarray":
            return self._array(node["array"])
        if kind == "npscalar":
            return self._array(node["array"])[()]
        if kind == "float":
            return float(node["repr"])
        if kind == "complex":
            return complex(node["real"], node["imag"])
        if kind == "bytes":
            return base64.b64decode(node["base64"])
        if kind in ("set", "frozenset"):
            return (set if kind == "set" else frozenset)(self.decode(v) for v in node["items"])
        if kind == "dtype":
            return _dtypes.as_dtype(np.dtype(node["numpy"]))
        if kind == "device":
            return _device.device(node["name"])
        if kind == "pickle":
            return self._unpickle(node)
        raise ValueError(f"unknown entry {kind!r} in data.json")

    def _array(self, index):
        with self.zf.open(f"{_ROOT}arrays/{int(index)}.npy") as member:
            return np.load(io.BytesIO(member.read()), allow_pickle=False)

    def _tensor(self, node):
        key = node["array"]
        if key in self.tensors:
            return self.tensors[key]
        module, name = node.get("class", ("minigrad._tensor", "Tensor"))
        cls = _tensor_class(module, name)
        if cls is None:
            raise ValueError(f"a tensor of unknown class {module}.{name}")
        location = node.get("device", "cpu")
        target = self.map_location
        if callable(target):
            t = _rebuild_tensor(cls, self._array(key), node["requires_grad"])
            moved = target(t, location)
            t = t if moved is None else moved
        else:
            # The values go straight to their device: the tensor stays a leaf (a Parameter).
            array = _device.on_device(self._array(key), self._target(location))
            t = _rebuild_tensor(cls, array, node["requires_grad"])
        self.tensors[key] = t
        return t

    def _target(self, location):
        """Where a tensor saved on ``location`` goes: map_location's answer, else back where
        it was saved (as torch; a cuda tensor without a GPU raises torch's error)."""
        target = self.map_location
        if isinstance(target, dict):
            target = target.get(location, location)
        target = location if target is None else target
        if _device.device(str(target)).type == "cuda" and not _array.has_backend("cuda"):
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "minigrad.cuda.is_available() is False. If you are running on a CPU-only "
                "machine, please use minigrad.load with map_location=minigrad.device('cpu') "
                "to map your storages to the CPU.")
        return target

    def _unpickle(self, node):
        payload = self.zf.read(f"{_ROOT}pickles/{int(node['index'])}")
        if self.weights_only:
            return _SafeUnpickler(io.BytesIO(payload)).load()
        warnings.warn(f"minigrad.load(weights_only=False) is unpickling a {node.get('type')}: "
                      "this runs code from the file; only load checkpoints you trust.",
                      UserWarning, stacklevel=4)
        return self.pickle_module.loads(payload)


def _read_bytes(f):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as source:
            return source.read(), os.fspath(f)
    return f.read(), getattr(f, "name", "the file-like object")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read an object written by :func:`save` from a path or a binary file-like object.

    ``map_location`` (a device, a string, a dict from saved to wanted locations, or
    ``fn(tensor, location)``) says where tensors go.  ``weights_only`` (default True)
    refuses pickled objects of classes not allowed by ``add_safe_globals``.

    >>> state = minigrad.load("model.pt", map_location="cpu")
    """
    if mmap:
        raise RuntimeError("minigrad.load does not support mmap=True: checkpoints are read "
                           "into memory")
    weights_only = True if weights_only is None else weights_only
    if pickle_module is not None and weights_only:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    raw, name = _read_bytes(f)
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        bad = zf.testzip()  # checks every member's CRC before anything is rebuilt
        if bad is not None:
            raise zipfile.BadZipFile(f"bad CRC-32 for member {bad}")
        if zf.read(_ROOT + "format") != _FORMAT:
            raise ValueError("unknown checkpoint format")
        structure = json.loads(zf.read(_ROOT + "data.json"))
        decoder = _Decoder(zf, map_location, weights_only, pickle_module or pickle)
        return decoder.decode(structure)
    except pickle.UnpicklingError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError, OSError, UnicodeDecodeError) as exc:
        raise RuntimeError(f"minigrad.load: {name} is not a complete minigrad checkpoint "
                           f"(truncated or corrupt file; nothing was loaded): {exc}") from exc
