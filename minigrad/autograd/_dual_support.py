"""The function transforms' window on forward-mode AD (``minigrad.autograd.forward_ad``).

Reverse transforms must keep the tangents of an outer forward transform alive
(``hessian`` is ``jacfwd(jacrev(f))``): they read a tensor's tangent and put it
back on a fresh leaf.  When forward_ad is not available every tensor has no
tangent, and the forward transforms say clearly that they cannot run.
"""
import importlib

_MISSING = object()
_module = _MISSING


def forward_ad_or_none():
    """``minigrad.autograd.forward_ad``, or None where this build does not have it."""
    global _module
    if _module is _MISSING:
        try:
            _module = importlib.import_module("minigrad.autograd.forward_ad")
        except ImportError:
            _module = None
    return _module


def require_forward_ad(api):
    """forward_ad, or a clear error naming ``api`` that needs it."""
    module = forward_ad_or_none()
    if module is None:
        raise NotImplementedError(
            f"{api} uses forward-mode AD (minigrad.autograd.forward_ad), which this minigrad "
            "does not have yet; use the reverse-mode equivalent (jacrev, vjp, or "
            "strategy='reverse-mode') meanwhile.")
    return module


def forward_ad_for_a_new_level():
    """forward_ad, when a level can be opened here (none is open), else None."""
    module = forward_ad_or_none()
    state = getattr(module, "state", None)  # forward_ad's switches; level -1: none open
    if state is None or getattr(state, "level", 0) >= 0:
        return None
    return module


def tangent_of(tensor):
    """The forward-mode tangent of ``tensor`` at the current level, or None."""
    module = forward_ad_or_none()
    if module is None:
        return None
    return module.unpack_dual(tensor).tangent


def with_tangent(tensor, tangent):
    """``tensor`` carrying ``tangent``: batched when it has one more (leading) dimension."""
    module = forward_ad_or_none()
    if tangent.ndim == tensor.ndim + 1:
        return module._make_dual_batched(tensor, tangent)
    return module.make_dual(tensor, tangent)


def detached(tensor):
    """``tensor`` without its reverse-mode history, keeping its forward-mode tangent."""
    tangent = tangent_of(tensor)
    if tangent is None:
        return tensor.detach()
    primal = forward_ad_or_none().unpack_dual(tensor).primal
    return with_tangent(primal.detach(), tangent.detach())
