"""numpy building blocks for the elementwise ops' `forward:` expressions."""
import numpy as np  # noqa: F401
