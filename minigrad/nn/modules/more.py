"""Modules for nn/_more_functional.py's functions: Softshrink, Hardshrink, RReLU,
AlphaDropout, FeatureAlphaDropout, Softmax2d, ChannelShuffle and
TripletMarginWithDistanceLoss (torch's arguments, reprs and state, which is empty).

>>> nn.Softshrink(0.5)(_ops.tensor([-2.0, 0.1]))
tensor([-1.5000,  0.0000])
"""
from minigrad.nn import functional as F
from minigrad.nn.modules.distance import PairwiseDistance
from minigrad.nn.modules.dropout import _DropoutNd
from minigrad.nn.modules.loss import _Loss
from minigrad.nn.modules.module import Module


class Softshrink(Module):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Module):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class RReLU(Module):
    """Randomized leaky ReLU: random slopes in [lower, upper] in training, their mean in
    eval mode."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"


class AlphaDropout(_DropoutNd):
    """Alpha dropout (for selu networks), in training mode only.  As torch's, it ignores
    ``inplace``."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels of (N, C, ...) input, in training mode only."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)


class Softmax2d(Module):
    """softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class ChannelShuffle(Module):
    """Interleave ``groups`` groups of channels (dim 1)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, margin + d(a, p) - d(a, n)) for a distance function d (default:
    nn.PairwiseDistance(), a submodule, as is any Module given)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)
