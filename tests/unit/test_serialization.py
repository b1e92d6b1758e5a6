"""minigrad.save / minigrad.load: round trips, safety by default, map_location,
atomic writes, corrupt files, and pickling tensors."""
import collections
import copy
import io
import os
import pickle

import numpy as np
import pytest

import minigrad as mg
from minigrad import optim, serialization


class Config:
    """A user class: loads only with weights_only=False or once allowed."""

    def __init__(self, depth):
        self.depth = depth


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def _round_trip(obj, **load_args):
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    buffer.seek(0)
    return mg.load(buffer, **load_args)


def test_nested_containers_numbers_and_tensors_round_trip():
    w = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    obj = {"w": w, "again": [w], 3: (1, 2.5, None, "s", True), "od": collections.OrderedDict(b=1, a=2),
           "i32": mg.tensor(np.array([1, 2], dtype=np.int32)), "f16": np.float16(1.5),
           "nan": float("nan"), "inf": -float("inf"), "c": 1 + 2j, "bytes": b"\x00\x01",
           "set": {1, 2}, "arr": np.eye(2, dtype=np.float32), "scalar": mg.tensor(3.0),
           "bool": mg.tensor([True, False]), "counter": collections.Counter([1, 1, 2]),
           "dtype": mg.float16, "long": mg.long, "device": mg.device("cpu")}
    back = _round_trip(obj)
    assert list(back) == list(obj)
    assert back["w"].tolist() == w.tolist() and back["w"].requires_grad and back["w"].is_leaf
    assert back["w"] is back["again"][0]  # one tensor saved twice loads as one
    assert back[3] == (1, 2.5, None, "s", True) and type(back["od"]) is collections.OrderedDict
    assert list(back["od"]) == ["b", "a"] and back["counter"] == collections.Counter([1, 1, 2])
    assert back["i32"]._data.dtype == np.int32 and back["f16"] == np.float16(1.5)
    assert np.isnan(back["nan"]) and back["inf"] == -float("inf") and back["c"] == 1 + 2j
    assert back["bytes"] == b"\x00\x01" and back["set"] == {1, 2}
    assert back["arr"].dtype == np.float32 and back["scalar"].shape == ()
    assert back["bool"].tolist() == [True, False]
    assert back["dtype"] is mg.float16 and back["long"] is mg.int64 and back["device"] == mg.device("cpu")
    assert back["w"]._data is not w._data  # a copy, not the same storage


def test_optimizer_state_round_trip_continues_training(tmp_path):
    def run(opt, w, steps):
        for _ in range(steps):
            opt.zero_grad()
            ((w - 2.0) ** 2).sum().backward()
            opt.step()

    w = mg.tensor(np.array([0.0, 1.0, 5.0]), requires_grad=True)
    opt = optim.Adam([w], lr=0.1, amsgrad=True)
    run(opt, w, 3)
    mg.save({"w": w.detach(), "opt": opt.state_dict()}, tmp_path / "ckpt.pt")
    ckpt = mg.load(tmp_path / "ckpt.pt")
    w2 = mg.tensor(ckpt["w"]._data.copy(), requires_grad=True)
    opt2 = optim.Adam([w2], lr=1.0)
    opt2.load_state_dict(ckpt["opt"])
    run(opt, w, 4), run(opt2, w2, 4)
    np.testing.assert_array_equal(w._data, w2._data)
    assert ckpt["opt"]["param_groups"][0]["betas"] == (0.9, 0.999)


def test_lr_scheduler_state_round_trip():
    opt = optim.SGD([mg.tensor([1.0], requires_grad=True)], lr=0.1)
    sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4])
    state = _round_trip(sched.state_dict())
    assert state == sched.state_dict()


def test_arbitrary_objects_need_weights_only_false():
    buffer = io.BytesIO()
    mg.save({"cfg": Config(3), "w": mg.tensor([1.0])}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        mg.load(buffer)
    buffer.seek(0)
    with pytest.warns(UserWarning, match="runs code from the file"):
        back = mg.load(buffer, weights_only=False)
    assert back["cfg"].depth == 3


def test_add_safe_globals_allows_a_class():
    buffer = io.BytesIO()
    mg.save(Config(4), buffer)
    try:
        serialization.add_safe_globals([Config])
        buffer.seek(0)
        assert mg.load(buffer).depth == 4
    finally:
        serialization.clear_safe_globals()


def test_loading_never_runs_code_from_the_file(tmp_path):
    path = tmp_path / "evil.pt"
    mg.save({"x": Evil()}, path)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL posix.system"):
        mg.load(path)
    raw = pickle.dumps(Evil())  # a bare pickle is not a checkpoint at all
    with pytest.raises(RuntimeError, match="not a complete minigrad checkpoint"):
        mg.load(io.BytesIO(raw))


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_truncated_or_corrupt_files_raise_and_load_nothing(tmp_path, damage):
    path = tmp_path / "ckpt.pt"
    mg.save({"w": mg.tensor(np.arange(1000.0))}, path)
    raw = path.read_bytes()
    if damage == "truncate":
        raw = raw[:len(raw) // 2]
    elif damage == "flip":
        position = raw.index(b"\x93NUMPY") + 200  # inside the tensor's values
        raw = raw[:position] + bytes([raw[position] ^ 0xFF]) + raw[position + 1:]
    else:
        raw = b""
    path.write_bytes(raw)
    with pytest.raises(RuntimeError, match="not a complete minigrad checkpoint"):
        mg.load(path)


def test_failed_save_keeps_the_previous_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    mg.save({"epoch": 1}, path)

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("cannot save this")

    with pytest.raises(RuntimeError, match="cannot save this"):
        mg.save({"epoch": 2, "bad": Unpicklable()}, path)
    assert mg.load(path) == {"epoch": 1}
    assert os.listdir(tmp_path) == ["ckpt.pt"]  # no temporary file left behind


def test_save_writes_atomically_even_if_the_write_fails(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    mg.save({"epoch": 1}, str(path))

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(serialization.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        mg.save({"epoch": 2}, path)
    monkeypatch.undo()
    assert mg.load(path) == {"epoch": 1} and os.listdir(tmp_path) == ["ckpt.pt"]


def test_map_location_forms():
    obj = {"w": mg.tensor([1.0, 2.0])}
    for location in ("cpu", mg.device("cpu"), {"cpu": "cpu"}):
        assert _round_trip(obj, map_location=location)["w"].tolist() == [1.0, 2.0]
    seen = []

    def to_cpu(tensor, location):
        seen.append(location)
        return tensor * 2

    assert _round_trip(obj, map_location=to_cpu)["w"].tolist() == [2.0, 4.0] and seen == ["cpu"]
    assert _round_trip(obj, map_location=lambda t, loc: None)["w"].tolist() == [1.0, 2.0]
    if not mg.cuda.is_available():
        with pytest.raises((RuntimeError, AssertionError), match="CUDA"):
            _round_trip(obj, map_location="cuda")


def test_explicit_pickle_module_requires_weights_only_false():
    buffer = io.BytesIO()
    mg.save([1], buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module"):
        mg.load(buffer, pickle_module=pickle)
    buffer.seek(0)
    assert mg.load(buffer, pickle_module=pickle, weights_only=False) == [1]


def test_tensors_pickle_and_deepcopy():
    w = mg.tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    (w * w).sum().backward()  # pickling drops .grad and the accumulator, as torch
    back = pickle.loads(pickle.dumps(w))
    assert back.tolist() == [1.0, 2.0] and back.requires_grad and back.grad is None
    assert back._data.dtype == np.float32 and back.is_leaf
    result = pickle.loads(pickle.dumps(w * 3))
    assert result.is_leaf and result.requires_grad and result.tolist() == [3.0, 6.0]
    clone = copy.deepcopy(w)  # deepcopy, as torch's, keeps .grad
    assert clone.tolist() == w.tolist() and clone._data is not w._data
    assert clone.grad.tolist() == [2.0, 4.0] and clone.requires_grad
    shared = copy.deepcopy([w, w])
    assert shared[0] is shared[1]
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(w * 2)


def test_matches_torch_save_load_contract(tmp_path):
    torch = pytest.importorskip("torch")
    state = {"layer.weight": np.arange(6.0).reshape(2, 3), "layer.bias": np.zeros(2)}
    mg.save({k: mg.tensor(v) for k, v in state.items()}, tmp_path / "m.pt")
    torch.save({k: torch.tensor(v) for k, v in state.items()}, tmp_path / "t.pt")
    mine, theirs = mg.load(tmp_path / "m.pt"), torch.load(tmp_path / "t.pt")
    assert list(mine) == list(theirs)
    for k in mine:
        np.testing.assert_array_equal(mine[k]._data, theirs[k].numpy())


def test_missing_parent_directory_and_file_errors_match_torch(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .*missing does not exist."):
        mg.save(1, tmp_path / "missing" / "x.pt")
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "nothing.pt")


def test_tensors_inside_pickled_objects_load_once_the_object_is_allowed():
    buffer = io.BytesIO()
    cfg = Config(1)
    cfg.scale = mg.tensor([1.0, 2.0], requires_grad=True)
    mg.save({"cfg": cfg}, buffer)
    try:
        serialization.add_safe_globals([Config])
        buffer.seek(0)
        back = mg.load(buffer)
    finally:
        serialization.clear_safe_globals()
    assert back["cfg"].depth == 1 and back["cfg"].scale.tolist() == [1.0, 2.0]
    assert back["cfg"].scale.requires_grad


class UserTensor(mg.Tensor):
    """A Tensor subclass outside minigrad: its class is code, so it loads only if trusted."""


def test_parameters_load_as_parameters_and_user_subclasses_need_trust():
    parameter = pytest.importorskip("minigrad.nn.parameter")
    p = parameter.Parameter(mg.tensor([1.0, 2.0]))
    back = _round_trip({"p": p, "t": mg.tensor([3.0])})
    assert type(back["p"]) is parameter.Parameter and back["p"].requires_grad
    assert type(back["t"]) is mg.Tensor

    buffer = io.BytesIO()
    mg.save(UserTensor([1.0]), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        mg.load(buffer)
