"""CuPy as the "cuda" array library, registered on first use.

CuPy is an optional extra (``pip install minigrad[cuda]`` installs
``cupy-cuda12x``): importing minigrad never imports it.  The first time
something asks for the cuda device (``device="cuda"``, ``.cuda()``,
``minigrad.cuda.is_available()``), ``load`` imports CuPy and
``cupyx.scipy.special`` and registers them with the array layer.
"""
from minigrad import _array

_state = {"error": None}  # why CuPy could not be registered, once that is known


def load(required=True):
    """Register CuPy as the cuda backend.

    Returns True when it is registered.  Without CuPy (or without a GPU it can see),
    returns False, or raises RuntimeError saying how to install it when ``required``.
    """
    if "cuda" in _array._BY_DEVICE:
        return True
    if _state["error"] is None:  # first use, or a test backend took "cuda" and gave it up
        _state["error"] = _register()
    if _state["error"] is not None and required:
        raise RuntimeError(_state["error"])
    return _state["error"] is None


def _register():
    """None once CuPy is registered, else why it could not be."""
    from minigrad._device import CUDA_UNAVAILABLE  # lazily: _device imports the array layer
    try:  # CuPy is optional: imported only when cuda is asked for
        import cupy  # noqa: I001 (lazy, see above)
        import cupyx.scipy.special  # (lazy, as cupy)
    except ImportError:
        return CUDA_UNAVAILABLE
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError: no driver, no device
        return f"CuPy is installed but cannot use a GPU ({exc}). {CUDA_UNAVAILABLE}"
    if count == 0:
        return f"CuPy is installed but finds no GPU. {CUDA_UNAVAILABLE}"
    _array.register(cupy.ndarray, cupy, cupyx.scipy.special, "cuda")
    return None


def reset():
    """Forget a failed attempt, so the next ``load`` tries again (tests)."""
    _state["error"] = None
