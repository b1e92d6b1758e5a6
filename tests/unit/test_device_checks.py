"""minigrad/_array/device_checks.py: checks on a GPU that do not wait for it.

The CuPy-like test backend computes at once, so its events have always passed; these
tests hand the module events that have not, as a busy GPU's."""
import numpy as np
import pytest

from minigrad._array import device_checks


class _Event:
    """A GPU event still ahead of the host until someone waits for it."""

    def __init__(self):
        self.done = False

    def synchronize(self):
        self.done = True


@pytest.fixture(autouse=True)
def no_pending():
    device_checks._pending.clear()
    yield
    device_checks._pending.clear()


def test_a_flag_not_yet_on_the_host_is_kept_until_waited_for():
    device_checks._pending.append((_Event(), np.array(True), lambda: IndexError("Target 7")))
    device_checks.raise_ready()  # the GPU has not got there: nothing is known yet
    assert len(device_checks._pending) == 1
    with pytest.raises(IndexError, match="Target 7"):
        device_checks.raise_ready(wait=True)
    assert device_checks._pending == []


def test_passed_checks_are_forgotten_and_a_failure_clears_the_rest():
    passed, failed, later = _Event(), _Event(), _Event()
    passed.done = failed.done = True
    device_checks._pending.extend([(passed, np.array(False), None),
                                   (failed, np.array(True), lambda: IndexError("bad")),
                                   (later, np.array(True), lambda: IndexError("later"))])
    with pytest.raises(IndexError, match="bad"):
        device_checks.raise_ready()
    assert device_checks._pending == []  # one error per failed step


def test_checks_stop_at_the_first_flag_still_on_its_way():
    ahead, behind = _Event(), _Event()
    behind.done = True
    device_checks._pending.extend([(ahead, np.array(False), None),
                                   (behind, np.array(True), lambda: IndexError("bad"))])
    device_checks.raise_ready()  # in order: the second waits for the first
    assert len(device_checks._pending) == 2
