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


def user_frame():
    """The innermost stack frame outside minigrad (None if there is none)."""
    frame = sys._getframe(1)
    while frame is not None and _inside(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def user_site():
    """``(filename, lineno)`` of the innermost frame outside minigrad."""
    frame = user_frame()
    if frame is None:
        return ("<unknown>", 0)
    return (frame.f_code.co_filename, frame.f_lineno)


def user_names(keep):
    """``(name, value)`` for the user's public variables (locals, then globals) where ``keep(value)``."""
    frame = user_frame()
    if frame is None:
        return
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in list(scope.items()):
            if not name.startswith("_") and keep(value):
                yield name, value
