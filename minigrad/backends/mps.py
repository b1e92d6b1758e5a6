"""minigrad.backends.mps: Apple's Metal backend is not available in minigrad."""


def is_available():
    return False


def is_built():
    return False
