"""numpy building blocks for the nn ops' `forward:` expressions."""
import numpy as np  # noqa: F401
