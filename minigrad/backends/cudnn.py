"""minigrad.backends.cudnn: settable flags, as ``torch.backends.cudnn``; no cuDNN is used."""
enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available():
    return False


def version():
    """None: minigrad does not use cuDNN."""
    return None
