"""Find the user's line: the first stack frame outside the minigrad package."""
import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _inside(filename):
    return filename.startswith(_PACKAGE) or filename.startswith("<frozen")


def user_stacklevel():
    """The ``stacklevel`` that makes ``warnings.warn`` (called by our caller) name the user's line."""
    frame = sys._getframe(2)  # the caller of the function that calls warnings.warn
    level = 2
    while frame is not None and _inside(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


def user_site():
    """``(filename, lineno)`` of the innermost frame outside minigrad."""
    frame = sys._getframe(1)
    while frame is not None and _inside(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0)
    return (frame.f_code.co_filename, frame.f_lineno)
