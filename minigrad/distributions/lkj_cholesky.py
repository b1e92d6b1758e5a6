"""The LKJ distribution over Cholesky factors of correlation matrices."""
import math

from minigrad._dtypes import finfo
from minigrad._generated.api_minigrad import cat, lgamma, mvlgamma
from minigrad._sampling import randn
from minigrad._size import Size
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import arange
from minigrad.distributions import constraints
from minigrad.distributions.beta import Beta
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import broadcast_all


class LKJCholesky(Distribution):
    """LKJ distribution over lower Cholesky factors L of ``dim`` x ``dim`` correlation
    matrices: ``L L^T`` has density proportional to ``det(L L^T)^(concentration - 1)``
    (uniform over correlation matrices at concentration 1).

    Sampling uses the onion method (Lewandowski, Kurowicka and Joe 2009, section 3),
    vectorised over the rows: row i is ``sqrt(y_i) u_i`` with ``u_i`` uniform on the
    sphere of its first i coordinates and ``y_i`` a Beta draw, the diagonal entry
    completing the row to unit length.
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the squared length of row k's off-diagonal part (k = 1 .. dim - 1) is
        # Beta(k / 2, eta + (dim - 2) / 2 - (k - 1) / 2) (the onion method's y); row 0 has
        # no off-diagonal part and takes row 1's law, unused.  torch's first parameter is
        # k - 1/2 here, which is right for k = 1 only: its correlations past the second
        # row are wider than the LKJ law (tests/unit/test_distributions_rest.py checks ours)
        c = self.concentration
        offset = arange(dim - 1, dtype=c.dtype, device=c.device)
        offset = cat([offset.new_zeros((1,)), offset])   # k - 1, and 0 for row 0
        marginal = c + 0.5 * (dim - 2)
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(c.size(), Size((dim, dim)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @no_grad()
    def sample(self, sample_shape=()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = randn(self._extended_shape(sample_shape), dtype=y.dtype,
                       device=y.device).tril(-1)
        # the first row has no off-diagonal entries: its zero norm is kept from dividing
        norm = normal.norm(dim=-1, keepdim=True).clamp(min=finfo(y.dtype).tiny)
        w = y.sqrt() * (normal / norm)
        diagonal = (1 - w.pow(2).sum(-1)).clamp(min=finfo(w.dtype).tiny).sqrt()
        return w + diagonal.diag_embed()

    def log_prob(self, value):
        # density of L: prod_i L_ii^(2 (eta - 1) + dim - i) for i = 2..dim (the Jacobian
        # of L -> L L^T contributes the dim - i), normalised as in the paper, p. 1999
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diagonal.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_normalizer = (0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1)
                          - lgamma(alpha) * dm1)
        return unnormalized - log_normalizer
