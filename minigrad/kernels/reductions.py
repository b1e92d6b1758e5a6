"""numpy building blocks for the reductions ops' `forward:` expressions."""
import numpy as np  # noqa: F401
