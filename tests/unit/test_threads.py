"""minigrad.get_num_threads / set_num_threads: BLAS's threads (minigrad/_threads.py)."""
import builtins

import pytest

import minigrad as mg
from minigrad import _threads


@pytest.mark.parametrize("value", [0, -1, 1.5, "2"])
def test_bad_counts_get_torchs_errors(value):
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (mg, torch):
        with pytest.raises(RuntimeError) as error:
            lib.set_num_threads(value)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_set_num_threads_sets_every_blas_pool(monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    monkeypatch.setattr(_threads, "_set", None)   # (restored after: set_num_threads writes it)
    try:
        mg.set_num_threads(1)
        after = {i["num_threads"] for i in threadpoolctl.threadpool_info()
                 if i["user_api"] == "blas"}
        assert after == {1} and mg.get_num_threads() == 1
    finally:
        threadpoolctl.threadpool_limits(limits=max(before), user_api="blas")


def test_without_threadpoolctl_it_warns_and_changes_nothing(monkeypatch):
    real_import = builtins.__import__

    def no_threadpoolctl(name, *args, **kwargs):
        if name == "threadpoolctl":
            raise ImportError("No module named 'threadpoolctl'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_threadpoolctl)
    threads = mg.get_num_threads()
    with pytest.warns(UserWarning, match="pip install threadpoolctl"):
        mg.set_num_threads(threads + 1)
    assert mg.get_num_threads() == threads
