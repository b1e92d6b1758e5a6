"""The "warn" | "error" | "off" switch shared by the clog and leak checks."""

MODES = ("warn", "error", "off")


class CheckMode:
    """One check's current mode (``.current``, one of MODES, compared with ``is``)."""

    def __init__(self, what, on_change=None):
        self.what = what
        self.current = MODES[0]
        self._on_change = on_change

    def set(self, mode):
        """Takes effect at once; used in a ``with`` block, restores the previous mode on exit."""
        if mode not in MODES:
            raise ValueError(f"{self.what} mode must be one of {MODES}, got {mode!r}")
        return _Setting(self, MODES[MODES.index(mode)])  # the interned constant


class _Setting:
    def __init__(self, check, mode):
        self._check, self._previous = check, check.current
        check.current = mode
        if check._on_change is not None:
            check._on_change()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._check.current = self._previous
        return False
