"""Comparing what a program raises under PyTorch and under minigrad."""
import pytest

import minigrad as mg


def assert_same_error(build, torch, message=True):
    """``build(torch)`` raises, and ``build(minigrad)`` raises the same type and message
    (``message``: False to compare types only, or a function of PyTorch's message giving
    the one expected)."""
    with pytest.raises(Exception) as expected:
        build(torch)
    with pytest.raises(type(expected.value)) as got:
        build(mg)
    if message:
        theirs = str(expected.value)
        assert str(got.value) == (message(theirs) if callable(message) else theirs)


def torch_result_or_same_error(build, torch, error):
    """``build(torch)``'s result; or, where it raises ``error``, None once ``build(minigrad)``
    has raised the same (type and message)."""
    try:
        return build(torch)
    except error as raised:
        with pytest.raises(error) as got:
            build(mg)
        assert str(got.value) == str(raised)
        return None
