"""Element-wise operations that take either a Python float or a numpy array.

The friction and backlash laws are written once with these helpers. A float goes through
the ``math`` module and plain comparisons (about twenty times faster than numpy on one
number, which matters in the drive's fixed-step loop); anything else goes through numpy
and broadcasts.
"""

import math

import numpy as np


def exp(x):
    return math.exp(x) if isinstance(x, float) else np.exp(x)


def absolute(x):
    return abs(x) if isinstance(x, float) else np.abs(x)


def sign(x):
    """-1, 0 or +1 (0 at x = 0, as numpy.sign)."""
    if isinstance(x, float):
        return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)
    return np.sign(x)


def minimum(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a if a <= b else b
    return np.minimum(a, b)


def maximum(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a if a >= b else b
    return np.maximum(a, b)


def where(cond, a, b):
    if isinstance(cond, (bool, np.bool_)):
        return a if cond else b
    return np.where(cond, a, b)


def as_input(x):
    """A float (or numpy float scalar) becomes a Python float (fast path); everything else
    a float ndarray."""
    if type(x) is float:
        return x
    if isinstance(x, float):
        return float(x)
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return float(x)
    return np.asarray(x, dtype=float)
