"""The PyTorch that tests compare with: minigrad follows 2.13.

Some of its behaviour is newer than the torch installed elsewhere (the GPU machines'
image has 2.11); a comparison of such behaviour skips under an older torch rather than
failing on torch's side.
"""
import pytest

SPEC = (2, 13)


def version(torch):
    """(major, minor) of an imported torch."""
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def needs_spec_torch(torch, behaviour):
    """Skip this test when ``torch`` is older than 2.13, where ``behaviour`` differs."""
    if version(torch) < SPEC:
        pytest.skip(f"{behaviour} is PyTorch {SPEC[0]}.{SPEC[1]}'s; this torch is {torch.__version__}")
