"""numpy building blocks for the linalg ops' `forward:` expressions."""
import numpy as np  # noqa: F401
