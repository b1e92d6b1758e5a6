"""minigrad.linalg: as torch.linalg; the ops derivatives.yaml exports under this module, and
the functions composed of them (composites.py)."""
from minigrad._generated.api_linalg import *  # noqa: F401,F403
from minigrad.linalg.composites import (  # noqa: F401
    LinAlgError, cholesky_ex, cond, diagonal, eig, eigvals, householder_product, inv_ex, lu,
    lu_factor, lu_solve, matrix_rank, solve_ex, tensorinv, tensorsolve, vander)
