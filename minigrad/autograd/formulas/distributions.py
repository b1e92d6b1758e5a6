"""Formula helpers for the distributions' ops (derivatives.yaml: the gamma family)."""


def derivative_not_implemented(what):
    """The gradient of an input torch does not differentiate either (igamma's ``a``):
    backward raises torch's error instead of returning a wrong zero."""
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
