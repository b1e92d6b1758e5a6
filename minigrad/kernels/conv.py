"""numpy building blocks for the conv ops' `forward:` expressions."""
import numpy as np  # noqa: F401
