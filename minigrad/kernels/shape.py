"""numpy building blocks for the shape ops' `forward:` expressions."""
import numpy as np  # noqa: F401
